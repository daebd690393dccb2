/**
 * The contract between the agent workflows (runs and threads) and their activities.
 * Types only: the workflow bundle must not pull activity code (or Node) into the
 * deterministic sandbox.
 *
 * One agent-step layer serves both hosts: `describeAgent`, `callAgentModel` and
 * `callAgentTool` (and `notifyApproval` for approval requests).
 */
import type { CompactionPlan } from "./compaction.js";
import type { StandingPermission } from "./approval-permissions.js";
import type { ToolResultRef } from "./tool-result-refs.js";
import type { CallTrace, StepTraceRequest } from "./step-trace.js";
import type { ChatMessage, ToolCall, Usage } from "./messages.js";
import type { JsonObject, Principal } from "./json.js";
import type { ApprovalCall, GateVerdict } from "./approval.js";
import type { DefinitionParts } from "./fingerprint.js";

/** How a host schedules calls of one tool. */
export interface ToolDescription {
  /** An async tool: its callback runs, and its result arrives later (threads only). */
  async: boolean;
  /** The task queue (a work pool) its calls run on, when it is not the host's own. */
  queue?: string;
  /** Attempts the tool's own `retry` allows its handler (1 without retry). */
  maxAttempts: number;
  /**
   * `always`: no call runs before a decision. `maybe`: the tool's `needsApproval` function
   * decides per call, on the worker; a call it did not clear waits. Absent: never gated.
   */
  approval?: "always" | "maybe";
  /** The tool has an `approval.notify` hook: a request with its calls schedules the notification. */
  notifies?: true;
  /** The tool has an `approval.escalate.notify` hook: an escalation of a request with its calls schedules the notification. */
  notifiesEscalation?: true;
}

/** What `describeAgent` tells a run or a thread about its agent, as the worker knows it now. */
export interface AgentDescription {
  /** Identifies this description: describing again with it as `knownHash` answers `{ unchanged: true }`. */
  hash: string;
  /** Hash of everything a deferred step depends on (system, model, tool names/descriptions/schemas). */
  definitionHash: string;
  /** A short hash of each part `definitionHash` covers, kept in a deferral's record so RC5048 can name what changed. Absent in recorded histories. */
  definitionParts?: DefinitionParts;
  maxTurns: number;
  /** The agent's model, named in its model calls' summaries in the Temporal UI. Absent in recorded histories. */
  model?: string;
  /** Activity timeouts for this agent's model and tool calls. */
  timeouts: { startToCloseMs: number; heartbeatMs: number };
  tools: Record<string, ToolDescription>;
  /** Attempts of a model call for retryable failures (429, 5xx, network) before the run or turn fails with AI1003. */
  modelMaxAttempts: number;
  /** The agent's declared context window, and the tokens its system prompt and tool list take. */
  contextWindow?: number;
  overheadTokens: number;
  /** Whether the agent declares `onExpired`; without it an expiry fails the run with RC5047. */
  hasOnExpired: boolean;
  /** Whether the agent declares `onDenied`; without it the model is told the deferral was denied. Absent in recorded histories. */
  hasOnDenied?: boolean;
  /** Whether the worker has an `onStatusChange` hook to call (threads announce their transitions through it). */
  statusHook: boolean;
  /** A run calls the model in local activities (`modelCalls: "local"`). Absent otherwise, and in recorded histories. */
  localModelCalls?: true;
  /** The most tool calls one answer may hold (before the principal's share): absent in recorded histories, where no limit was checked. */
  maxToolCalls?: number;
  /** Its sub-agents: the tool name the model calls each by, and the agent it runs. Absent when none. */
  agents?: Record<string, string>;
  /** When its threads compact their older turns (`compaction`). Absent when they never do, and in recorded histories. */
  compaction?: CompactionPlan;
}

/**
 * How a run's model calls are scheduled when its agent and worker keep the defaults
 * (`timeouts.call` 10 min, `timeouts.heartbeat` 30 s, `modelMaxAttempts` 8, calls not
 * local): the run's first model call is scheduled so before the agent is described
 * (`AgentModelCallInput.describe`), and the defaults are these.
 */
export const DEFAULT_MODEL_CALLS = { timeouts: { startToCloseMs: 600_000, heartbeatMs: 30_000 }, modelMaxAttempts: 8 } as const;

/** What a run's first model call after a resume checks: the definition the deferred step was recorded with. */
export interface DefinitionCheck {
  deferralId: string;
  definitionHash: string;
  /** Its parts' hashes, when the record kept them: the refusal names the parts that differ. */
  definitionParts?: DefinitionParts;
}

export interface DescribeAgentInput {
  agentId: string;
  /** The hash of the description the host holds: recorded in history every turn, so an unchanged one is not sent again. */
  knownHash?: string;
  /** Opens the step's `invoke_agent` span on the worker (absent in recorded histories). */
  trace?: StepTraceRequest;
}

/** `trace`: the `traceparent` of the step span opened for `DescribeAgentInput.trace`, when an SDK records it. */
export type DescribeAgentOutput = (AgentDescription | { unchanged: true }) & { trace?: string };

/**
 * One model call of a run or a thread. It carries only what the transcript gained since
 * the host's previous call (history stays linear); the worker has the rest cached, or
 * reads it from the host by query.
 */
export interface AgentModelCallInput {
  /** Whose transcript: decides which query a worker without a cached copy reads it by. */
  host: "run" | "thread";
  agentId: string;
  /** The run's or thread's workflow id. */
  workflowId: string;
  /**
   * With the workflow id, names the transcript in the worker's cache: a run's run id, a
   * thread's first run id (a thread's transcript only grows, across continue-as-new too,
   * until it compacts: see `epoch`).
   */
  transcriptId: string;
  /** Bumped whenever the transcript is rewritten (a compacted run; a thread's compactions, counted) rather than appended to. */
  epoch: number;
  /** Transcript length before `delta`. */
  baseLength: number;
  /**
   * Fingerprint of the message before `delta`: a cached copy that ends elsewhere (holding
   * an answer the host never took, from a call that was retried or stopped) is not used.
   */
  baseTail?: string;
  /** Only what was appended since the previous call; the worker caches its own answer, so that is never sent back. */
  delta: ChatMessage[];
  /**
   * Tool results in `delta` sent by reference (their content left empty): the worker takes
   * them from what its own tool calls returned, or reads the transcript by query. Each
   * result is then stored in history once, as its tool call's result.
   */
  toolResultRefs?: ToolResultRef[];
  /** Who the host acts for, for a system prompt that is a function of it. */
  principal?: Principal;
  /** True once a run was resumed: its principal was restored, not re-verified. */
  restored?: boolean;
  /**
   * Set on a run's first model call after a resume: the agent must still hash as it did
   * when the run deferred (RC5048) and still be registered (AI1007).
   */
  definitionCheck?: DefinitionCheck;
  /** Streams the answer to the thread while it is written, in throttled batches, under this message id. */
  streamId?: string;
  /** A thread's sub-agent: its answers also reach the thread's readers while they are written (see `JoinedStream`). */
  joinStream?: JoinedStream;
  /**
   * Where the answer's deltas go in the thread's stream when they travel out of band (a
   * `StreamTransport`) rather than by signal: attempt `a` numbers them from
   * `base + (a − 1) · STREAM_ATTEMPT_SPAN + 1`, inside the block the thread reserved, and
   * `after` is the seq of the thread's last durable entry. Absent from threads older than
   * reserved blocks: those get their deltas by signal.
   */
  streamSeq?: { base: number; after: number };
  /**
   * The room the host's transcript has for this answer, as JSON bytes: a larger answer is
   * refused with AI1018 and not kept. Absent from hosts older than transcript budgets.
   */
  room?: { leftBytes: number; limitBytes: number };
  /** The step the call belongs to, when the host is traced. */
  trace?: CallTrace;
  /**
   * Where the answer's calls that need approval will wait: the id the request will have,
   * and the first run its token is bound to when the host continued as new. Sent by hosts
   * that enforce approvals; the worker then answers with `gate`.
   */
  gate?: { deferralId: string; firstRunId?: string };
  /**
   * The standing permissions in force in the host (`StandingPermission`), sent with the gate
   * when it holds any: a gated call one of them fits is `permitted` rather than asked for.
   */
  permissions?: StandingPermission[];
  /**
   * Sent by a thread whose turn did not describe the agent first (it schedules with the
   * description it got earlier in this run, saving a local activity's marker per turn): the
   * hash of that description. The worker answers with `described` when the agent changed.
   */
  knownHash?: string;
  /**
   * Sent by a run's first model call, scheduled before anything described the agent (as
   * `DEFAULT_MODEL_CALLS` say), which saves the marker of a `describeAgent` local activity:
   * the worker answers with `described` and opens the run's first step span for `trace`
   * (answering its `traceparent` as `trace`). A call not scheduled as the agent's model calls
   * are asks no model: it answers `unasked` with `described`, and the run schedules it again.
   */
  describe?: { trace?: StepTraceRequest };
}

export interface ModelCallOutput {
  message: { role: "assistant"; content: string | null; tool_calls?: ToolCall[] };
  usage: Usage;
  /** The final answer as the agent's `output` schema parsed it (when it declares one and the answer has no tool calls). */
  output?: unknown;
  /** Which of the answer's calls wait for a decision, and the digest of the request's token (when the host sent `gate`). */
  gate?: GateVerdict;
  /** The agent as the worker describes it now, when it no longer hashes as the call's `knownHash` (or the call was sent to `describe` it). */
  described?: AgentDescription;
  /** The `traceparent` of the step span a `describe` call opened, when an SDK records it. */
  trace?: string;
  /** A `describe` call scheduled otherwise than the agent's model calls are: no model was asked (`message` is empty). */
  unasked?: true;
}

/** What a handler asked for when it deferred: everything but the token, which never enters history. */
export interface DeferralRequest {
  schema?: JsonObject;
  ttlMs: number;
  meta: JsonObject;
  /**
   * The digest of the winning call's token (`resumeDigest`): the workflow checks a resume's
   * proof against it. Absent from requests made before proofs existed.
   */
  digest?: string;
}

interface ToolCallBasics {
  agentId: string;
  /** The run's or thread's workflow id: with the call id it makes the idempotency key and names sub-runs. */
  workflowId: string;
  /** The host's task queue: where sub-runs a tool dispatches go, even from a tool's own queue. */
  taskQueue: string;
  toolCall: ToolCall;
  principal?: Principal;
  /** The step the call belongs to, when the host is traced. */
  trace?: CallTrace;
  /**
   * Which use of its id this call is, when the model gave an earlier call of the transcript
   * the same id (absent for the first): its idempotency key and answer token then differ
   * from the earlier call's.
   */
  occurrence?: number;
  /**
   * Set when a person approved this call of a gated tool: the handler runs. `edited`: the
   * approver edited the input, and `toolCall`'s arguments are the edit (sent once). Calls
   * scheduled before that carry the edit as `input` beside the model's arguments.
   * Without it a gated tool's handler never runs.
   */
  approved?: { deferralId: string; edited?: true; input?: JsonObject; permissionId?: string; /** Who decided it, on a thread (a run keeps its `resumedBy`): the handler's `ctx.resumedBy`. */ by?: Principal };
  /**
   * The most this call's result may weigh: its share of the room the host's transcript has
   * for the step's results (the tool's own `maxResultBytes` applies below it). Absent from
   * hosts older than transcript budgets.
   */
  maxResultBytes?: number;
}

/** A tool call of an agent run: its handler may defer the run. */
export interface RunToolCall extends ToolCallBasics {
  host: "run";
  /** The id the run's next deferral will have: the same for every call of a batch. */
  deferralId: string;
  /** True once the run has been resumed: its principal was restored, not re-verified. */
  restored?: boolean;
  resumedBy?: Principal;
  /** Set inside a fan-out branch: deferring is refused there (RC5051). Names where. */
  deferralRefused?: string;
  /** Set when this call's deferral expired: the agent's `onExpired` runs instead of the handler. */
  expired?: { deferralId: string; expiresAt: string; meta: JsonObject };
  /** The run's first execution, which its resume tokens are bound to; set once the run continued as new (the activity's own execution differs then). */
  firstRunId?: string;
  /** Set when someone denied this call's deferral: the agent's `onDenied` runs instead of the handler. */
  denied?: { deferralId: string; reason: string; by?: Principal; meta: JsonObject };
  /** A thread's sub-agent: where the tool's `ctx.progress` is shown too (the thread's stream, marked with the sub-agent). */
  joinStream?: JoinedStream;
}

/** A tool call of a thread turn: deferring fails the turn (AI1023); async tools start here. */
export interface ThreadToolCall extends ToolCallBasics {
  host: "thread";
  /** Runs an async tool's callback; its result arrives later through `addToolResult`. */
  start?: boolean;
  /** The thread's first run id, which the call's answer token is bound to (the current run's may differ). */
  firstRunId?: string;
  /** False when the turn streams nothing (`sendMessage({ stream: false })`, or a thread without streaming): `ctx.progress` is dropped. */
  streamed?: false;
}

export type AgentToolCallInput = RunToolCall | ThreadToolCall;

/** A tool's result as the model reads it. */
export interface ToolResult {
  content: string;
  isError: boolean;
}

/** A run's tool call ends in a result, or in the deferral its handler asked for. */
export type RunToolCallOutput = ToolResult | { deferred: DeferralRequest };

/**
 * A thread's tool call ends in a result; an async tool's start in `started` (or a result
 * when its callback gave up), with the digest of the answer token it handed out (absent
 * from workers older than answer tokens).
 */
export type ThreadToolCallResult = ToolResult | { started: true; digest?: string };

export type AgentToolCallOutput = RunToolCallOutput | ThreadToolCallResult;

/** `notifyApproval`: tells people of an approval request, through its tools' `approval.notify` hooks. */
export interface NotifyApprovalInput {
  agentId: string;
  /** The request's id (its deferral's). */
  deferralId: string;
  expiresAt: string;
  calls: Array<Pick<ApprovalCall, "toolCallId" | "toolName" | "arguments" | "meta">>;
  principal?: Principal;
  /** The host's first execution, which the request's token is bound to, once it continued as new. */
  firstRunId?: string;
  /** Set when the request waits in a thread. */
  threadId?: string;
  /** Absent when the request is made; a reminder (numbered from 1) or its escalation otherwise. */
  reason?: "reminder" | "escalated";
  reminder?: number;
  /** The request's `meta.requires`, once it escalated. */
  requires?: string[];
}

export interface AgentStepActivities {
  describeAgent(input: DescribeAgentInput): Promise<DescribeAgentOutput>;
  callAgentModel(input: AgentModelCallInput): Promise<ModelCallOutput>;
  callAgentTool(input: AgentToolCallInput): Promise<AgentToolCallOutput>;
  notifyApproval(input: NotifyApprovalInput): Promise<void>;
}

/**
 * Where a sub-agent's answers are shown while they are written: the stream of the thread
 * whose turn called it, as `tool-progress` entries of that call (`SubAgentProgress` data),
 * out of band on the worker's stream transport only (no signal, no history, no billed action).
 */
export interface JoinedStream {
  threadId: string;
  /** The thread's run when the call started (what a `directStreamTransport` reader names). */
  runId: string;
  toolCallId: string;
  /** The tool name the thread's model called the sub-agent by. */
  toolName: string;
}
