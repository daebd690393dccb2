import { DEFAULT_MODEL_CALLS, type JoinedStream } from "./contracts.js";
import type { ChatMessage, Usage } from "./messages.js";
import type { Principal } from "./json.js";
import type { DeferralRecord, FailureInfo, RunOutcome } from "./deferral-record.js";
import type { RunTrace } from "./step-trace.js";

export type RunStatus = "running" | "deferred" | "needs-compaction" | "completed" | "failed";

/** The version of the run's input this release writes and reads (see `AgentRunInput.version`). */
export const AGENT_RUN_VERSION = 1;

/** Start input of the agent workflow: one object, so continue-as-new can carry it. */
export interface AgentRunInput {
  agentId: string;
  prompt: string;
  principal?: Principal;
  /** A sub-run dispatched after a resume inherits the restored (not re-verified) principal. */
  restored?: boolean;
  /** Deferring is refused in this run (RC5051); names the fan-out it runs in. */
  deferralRefused?: string;
  /**
   * The shape of this input, set by whoever starts the run (the client, a sub-agent call, a
   * dispatch) and carried through continue-as-new: `AGENT_RUN_VERSION`. A worker refuses a
   * version it does not know (AI1012) rather than guess at its fields; a later release that
   * changes the input reads this to migrate what 1.0 wrote.
   */
  version: number;
  /** Cancels the run (AI1005) when it has not finished this long after it started, deferrals included. */
  timeoutMs?: number;
  /** Continue as new once the current execution's history reaches this many events (besides when Temporal suggests it). */
  maxHistoryEvents?: number;
  /** The model calls stream their answers' deltas to the run's readers (`agents.followUpdates`). */
  stream?: boolean;
  /** At most this many turns, whatever the agent's `maxTurns`: a sub-agent's share of its parent's. */
  turnCap?: number;
  /**
   * @internal How the starting client saw the agent's model calls scheduled, where not as
   * `DEFAULT_MODEL_CALLS` (its `modelCalls: "local"`, its `timeouts`), and its model (the
   * call's summary in the Temporal UI): the run's first model call, sent before the worker
   * described the agent, is scheduled so. A worker that schedules them otherwise has that
   * call made again, as it does.
   */
  firstCall?: FirstCallPlan;
  /** The run this one is a sub-agent of: told when this run parks on a deferral, and when that deferral moves on. */
  parent?: { workflowId: string };
  /** @internal A thread's sub-agent: its answers are shown to the thread's readers while written (the workflow's own; carried through continue-as-new). */
  joinStream?: JoinedStream;
  /** @internal What the previous execution of this run handed on when it continued as new: the workflow's own. */
  carried?: RunCarry;
}

/** @internal See `AgentRunInput.firstCall`. */
export interface FirstCallPlan {
  model?: string;
  local?: true;
  timeouts?: { startToCloseMs: number; heartbeatMs: number };
}

/** The plan for a run of `agent`: its model, and what it schedules otherwise than the defaults. */
export function firstCallPlanOf(agent: { model?: string; modelCalls?: "local"; timeouts: { callMs: number; heartbeatMs: number } }): FirstCallPlan | undefined {
  const { startToCloseMs, heartbeatMs } = DEFAULT_MODEL_CALLS.timeouts;
  const plan: FirstCallPlan = {
    ...(typeof agent.model === "string" && agent.model !== "" ? { model: agent.model } : {}),
    ...(agent.modelCalls === "local" ? { local: true as const } : {}),
    ...(agent.timeouts.callMs !== startToCloseMs || agent.timeouts.heartbeatMs !== heartbeatMs ? { timeouts: { startToCloseMs: agent.timeouts.callMs, heartbeatMs: agent.timeouts.heartbeatMs } } : {}),
  };
  return Object.keys(plan).length > 0 ? plan : undefined;
}

/**
 * What a run hands to its next execution when it continues as new, between turns and
 * with nothing waiting: its progress, its transcript, its deferral records (their ids go
 * on counting, and a spent token still reads its first outcome) and its deadline.
 */
export interface RunCarry {
  messages: ChatMessage[];
  turnsUsed: number;
  usage: Usage;
  restored: boolean;
  principal?: Principal;
  resumedBy?: Principal;
  records: DeferralRecord[];
  /** The first settled state after each resumed sub-agent deferral (null: not settled since), for duplicate resumes. */
  subAgentOutcomes?: Record<string, RunOutcome | null>;
  /** The worker cache's view of the transcript: a rewrite's epoch, and how much of it was sent. */
  epoch: number;
  sentLength: number;
  /** When the run's `timeout` ends (epoch ms), if it has one. */
  deadline?: number;
  /** How many executions came before this one. */
  continuedRuns: number;
  /** The run's trace context, when an OpenTelemetry SDK recorded its steps. */
  trace?: RunTrace;
  /** Where the run's stream stands, so readers go on with the same seqs (its entries are not carried). */
  stream?: { seq: number; floor?: number };
}

/** A run's state as its workflow holds it: the whole transcript included. */
export interface RunProgress {
  agentId: string;
  status: RunStatus;
  /** The transcript without the system prompt (which is prepared on the worker and never stored). */
  messages: ChatMessage[];
  turnsUsed: number;
  maxTurns: number | undefined;
  usage: Usage;
  principal?: Principal;
  /** True once the run was resumed: `principal` was restored from storage, not re-verified. */
  restored: boolean;
  resumedBy?: Principal;
  /** The deferral the run waits on, while it is deferred. */
  deferralId?: string;
}

/** How many of the newest messages `agents.state()` shows at most. */
export const RECENT_MESSAGES = 20;

/** How many bytes (JSON) the newest messages `agents.state()` shows weigh at most together: 256 KiB. */
export const RECENT_MESSAGES_BYTES = 262_144;

/**
 * A run's live state, as the `runState` query returns it (`agents.state()`). It never holds
 * the whole transcript, which may be larger than one Temporal payload: `recentMessages` are
 * the newest (at most `RECENT_MESSAGES`, and no more than `RECENT_MESSAGES_BYTES` of JSON
 * together, so possibly none when the newest alone is larger); `agents.listMessages()` pages
 * through all of it.
 */
export interface RunState extends Omit<RunProgress, "messages"> {
  /** The newest messages, oldest first: the last `recentMessages.length` of `messageCount`. */
  recentMessages: ChatMessage[];
  /** How many messages the transcript holds (without the system prompt). */
  messageCount: number;
  /** Why the run failed, once it has (its typed code when there is one). */
  error?: FailureInfo;
  /** The seq of the run's last stream entry (`agents.followUpdates`); absent from runs older than run streams. */
  lastSeq?: number;
  /** The id the answer being written will have, while the run streams one. */
  streamingMessageId?: string;
}

/** A completed run. Its transcript is read with `agents.listMessages({ runId })`, a page at a time. */
export interface AgentResult<O = unknown> {
  status: "completed";
  /** The final answer. */
  text: string;
  /** The final answer parsed and validated by the agent's `output` schema; absent without one. */
  output?: O;
  turnsUsed: number;
  usage: Usage;
  /** How many messages the run's transcript holds (without the system prompt). */
  messageCount: number;
}

/** A page of a run's transcript (`agents.listMessages()`), oldest first. */
export interface RunMessagePage {
  messages: ChatMessage[];
  /** How many messages the transcript holds. */
  total: number;
  /** Pass it back for the next page; absent on the last one. */
  cursor?: string;
}

/** A completed run as a resume's outcome carries it: the result without its message count. */
export function resultSummary<O>({ status, text, output, turnsUsed, usage }: AgentResult<O>): Pick<AgentResult<O>, "status" | "text" | "output" | "turnsUsed" | "usage"> {
  return { status, text, ...(output !== undefined ? { output } : {}), turnsUsed, usage };
}
