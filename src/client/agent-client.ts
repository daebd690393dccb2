import { randomUUID } from "node:crypto";
import {
  Client,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from "@temporalio/client";
import type { agentRun } from "../../workflows/runs/agent-run.js";
import type { DeferredAck, RunOutcome } from "../core/deferral-record.js";
import { cancelUpdate, runStateQuery, subAgentOutcomeQuery } from "../core/wire/run.js";
import { firstCallPlanOf, resultSummary, type AgentResult, type AgentRunInput, type RunState } from "../core/run-state.js";
import type { RunMessagePage } from "../core/run-state.js";
import { currentResult, readRunMessages } from "./run-messages.js";
import { resolveDeferralConfig, type DeferralConfig, type ResolvedDeferralConfig } from "../deferral/config.js";
import type { AgentDefinition } from "../core/define-agent.js";
import type { Duration } from "@temporalio/common";
import { unwrapFailure } from "../core/errors/from-failure.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import type { Principal } from "../core/json.js";
import { connect, type ClientConnectionOptions } from "./connection.js";
import { clientStreamTransport, ThreadsClient, type ThreadsClientOptions } from "./threads/threads-client.js";
import { ApprovalInbox, withAllowedContext } from "./approval-inbox.js";
import type { ApprovalRecord } from "../core/approval-context.js";
import { AgentSchedules } from "./schedules.js";
import { DeferralStore, unguarded } from "./deferral-store.js";
import { runInputOf, startAgentRun, uiSummaryOf, type UiSummary } from "./start-run.js";
import { authorizeRun, type Caller } from "./authorize.js";
import { previewResume, resumeDeferral, type ResumeOptions, type ResumePreview, type ResumeResult } from "./resume.js";
import type { AuthorizeHook } from "./authorize.js";
import { translateRun } from "./run-failure.js";
import { boundedQuery, type QueryDeadline } from "./bounded-query.js";
import { ackFromHistory } from "./history-ack.js";
import { parkedAck, settleRun, type SettleDeps } from "./settle.js";
import { currentDetails } from "./history-watch.js";
import { fromSeqOf, RunStreamSource } from "./run-stream.js";
import { followStream, pollIntervalMs } from "./threads/stream-updates.js";
import { messagePage, type FollowUpdatesOptions, type ListMessagesOptions, type StreamUpdatesOptions } from "./shared-options.js";
import type { StreamSnapshot } from "../core/thread-contracts.js";
import { RunNotFoundError } from "../core/errors/runs.js";

export interface AgentClientOptions extends ClientConnectionOptions {
  /** Needed to resume: the secret the workers sign tokens with (32+ bytes), or `secrets: [current, ...previous]` while rotating. */
  deferral?: Pick<DeferralConfig, "secret" | "secrets">;
  /**
   * Asked before every operation: `run.start`, `run.state`, `run.result`, `run.cancel`,
   * `deferral.get`, `deferral.list` (per row), `approval.context` (a refusal leaves `approvals.get`'s `context` out), `deferral.replace`, `resume` (a resume's
   * per-call `authorize` replaces it), the `schedule.*` operations of `agents.schedules`, and
   * the thread operations of `agents.threads` unless `threads.authorize` is set. Only an exact `true` allows; a refusal is AI1013 (RC5056 for
   * resume, AI1021 for threads, AI1093 for schedules) and reads or changes nothing. Without it, everything is allowed.
   */
  authorize?: AuthorizeHook;
  /** Options of `agents.threads`: the default agent of new threads and their authorize hook (default: `authorize`). */
  threads?: Pick<ThreadsClientOptions, "agent" | "authorize">;
  /** How readers of threads and runs in this process hear live entries (see `ClientStreamOptions`). */
  stream?: ThreadsClientOptions["stream"];
  /**
   * What the static summary of a started run shows in the Temporal UI and CLI: `"content"`
   * (the default) names the agent and the prompt's first words, `"agent-only"` the agent
   * alone. The summary is user metadata, a payload like the prompt itself: a codec
   * encrypts it, and without one it shows nothing history does not already hold in the
   * clear. Choose `"agent-only"` where operators who may list workflows must not read
   * prompts even through a codec server. A run's own `uiSummary` overrides it.
   */
  uiSummary?: UiSummary;
  /**
   * Ask the server to hand a new run's first workflow task straight to a worker in this
   * process (Temporal's eager workflow start), saving a trip through the task queue. Needs
   * `connection` to be the `NativeConnection` a worker on `taskQueue` uses, and a server
   * with `system.enableEagerWorkflowStart` (a server without it starts the run as usual;
   * Temporal's client refuses any other connection). Default off.
   */
  eagerStart?: boolean;
  /**
   * Take the acknowledgment of a park from a worker of this process (same namespace and
   * task queue) once Temporal has stored the workflow task that parks the run, rather than
   * from the run's history: `run()` and `settled()` answer 4–18 ms sooner (bench latency,
   * dev server), where the history is read late right after a park. The acknowledgment is
   * the one the history holds, made by the workflow from the run's state, and a read of the
   * run's history or description made after it shows the park. While such a worker runs, the
   * history is read every 250 ms rather than at each new event, for runs whose tasks went to
   * workers in other processes (those are read from the history either way). Default on;
   * `false` always reads the history, at each new event.
   */
  inProcessParks?: boolean;
}

/** Which run an `AgentClient` method acts on, and for whom (`authorize` is asked about `principal`). */
export interface RunTarget extends Caller {
  /** The run's id (its workflow id). */
  runId: string;
}

/** `cancel`: why, for the run's error and history. */
export interface CancelOptions {
  /** Why the run is cancelled: carried by its AI1005 error. */
  reason?: string;
}

/**
 * The raw Temporal handle of a run (`AgentClient.workflowHandle`), for advanced use: the run's
 * workflow takes an `AgentRunInput` and returns its `AgentResult`.
 */
export type RunWorkflowHandle = WorkflowHandle<(input: AgentRunInput) => Promise<AgentResult>>;

export interface RunOptions {
  /** The user's message that starts the run. */
  prompt: string;
  /** Who the run acts for; tools read it as `ctx.principal`. Plain JSON. Also who `authorize` is asked about (`run.start`, then the handle's reads). */
  principal?: Principal;
  /**
   * The run's id (its workflow id). Starting the same id again attaches to the run
   * that already exists instead of starting a second one. Random when absent.
   */
  runId?: string;
  /**
   * Cancels the run (AI1005) if it has not finished this long after it started, time spent
   * deferred included, e.g. `"7d"`. Its deferral, if any, is denied.
   */
  timeout?: Duration;
  /**
   * Continue as new once the current execution's history reaches this many events (at
   * least 100). Temporal suggests it by itself at a few thousand events or a few MB, so a
   * long run never meets its history limits; set this to continue sooner.
   */
  maxHistoryEvents?: number;
  /** What this run's static summary in the Temporal UI shows (see `AgentClientOptions.uiSummary`). Default: the client's. */
  uiSummary?: UiSummary;
  /**
   * Stream each answer's deltas to the run's readers (`followUpdates`, the front door's
   * `GET /runs/:id/events`) while the model writes it. Messages, statuses and deferrals
   * reach readers whether or not it is set. Default false. On a worker with a stream
   * transport (the default) the deltas cost no Temporal action; on one that streams by
   * signal (`threads.stream.transport: "workflow"`), each batch is a signal.
   */
  stream?: boolean;
}

/**
 * A started run, bound to its id and to the principal it was made for
 * (`agents.handle(runId, { principal })`, or what `start` returns). Each method is the
 * `AgentClient` method of the same name with the same options less the `RunTarget`,
 * authorized the same way on every call.
 */
export interface RunHandle<O = unknown> {
  readonly runId: string;
  /**
   * Waits until the run completes (its result), fails (its typed error) or defers (the
   * acknowledgment). Only reads: it writes nothing to the run's history, however often it
   * is called. AI1014 when Temporal terminated the run or it timed out. Authorized as `run.result`.
   */
  settled(options?: SettledOptions): Promise<AgentResult<O> | DeferredAck>;
  /** See `AgentClient.result`. */
  result(): Promise<AgentResult<O>>;
  /** See `AgentClient.state`. */
  state(): Promise<RunState>;
  /** See `AgentClient.listMessages`. */
  listMessages(options?: ListMessagesOptions): Promise<RunMessagePage>;
  /** See `AgentClient.streamUpdates`. */
  streamUpdates(options?: StreamUpdatesOptions): Promise<StreamSnapshot>;
  /** See `AgentClient.followUpdates`. */
  followUpdates(options?: FollowUpdatesOptions): AsyncGenerator<StreamSnapshot>;
  /** See `AgentClient.cancel`. */
  cancel(options?: CancelOptions): Promise<void>;
}

/** What `RunHandle.settled` waits for. */
export interface SettledOptions {
  /**
   * A park not to answer with again: the `deferralId` of an acknowledgment the caller holds,
   * or `"current"` for whatever deferral the run waits on when asked. While the run still
   * waits on it, `settled` waits until the run has moved on and settled again (its result,
   * its error or a new acknowledgment); a run that already moved on answers at once. Only
   * reads, as without it.
   */
  after?: string;
}

/** What services use to start agent runs, follow them, and resume their deferrals. */
export class AgentClient {
  readonly client: Client;
  readonly taskQueue: string;
  /** Read access to deferral records. */
  readonly deferrals: DeferralStore;
  /** One inbox for what waits on people: approval requests and deferrals, listed, read and decided. */
  readonly approvals: ApprovalInbox;
  readonly #deferral: ResolvedDeferralConfig | undefined;
  readonly #deferralOptions: AgentClientOptions["deferral"];
  readonly #authorize: AuthorizeHook | undefined;
  readonly #threadOptions: AgentClientOptions["threads"];
  readonly #uiSummary: UiSummary | undefined;
  readonly #reads: QueryDeadline;
  readonly #eagerStart: boolean;
  readonly #inProcessParks: boolean;
  readonly #runStreams: RunStreamSource;
  #threads: ThreadsClient | undefined;
  #schedules: AgentSchedules | undefined;

  constructor(options: AgentClientOptions) {
    const connected = connect(options, "AgentClient");
    ({ client: this.client, taskQueue: this.taskQueue } = connected);
    this.#reads = { timeoutMs: connected.queryTimeoutMs, taskQueue: connected.taskQueue };
    this.#deferral = options.deferral ? resolveDeferralConfig(options.deferral) : undefined;
    this.#deferralOptions = options.deferral;
    this.#authorize = options.authorize;
    this.#threadOptions = options.threads;
    // Checked now, not when `threads` is first read: a client made with a bad option is refused before it is used.
    this.#runStreams = new RunStreamSource(this.client, clientStreamTransport(options.stream, this.client), this.#reads);
    this.#uiSummary = options.uiSummary === undefined ? undefined : uiSummaryOf(options.uiSummary, "AgentClient");
    this.#eagerStart = options.eagerStart === true;
    if (options.inProcessParks !== undefined && typeof options.inProcessParks !== "boolean") {
      throw new InvalidDefinitionError({ subject: "AgentClient", problem: "inProcessParks must be true or false" });
    }
    this.#inProcessParks = options.inProcessParks !== false;
    this.deferrals = new DeferralStore(this.client, options.authorize, this.#reads);
    this.approvals = new ApprovalInbox({ client: this.client, taskQueue: this.taskQueue, deferrals: this.deferrals, secrets: this.#deferral?.secrets, resume: (o) => this.resume(o), authorize: this.#authorize, reads: this.#reads });
  }

  /** Long-lived chat threads on the same connection and task queue, asking `threads.authorize` or else `authorize`. */
  get threads(): ThreadsClient {
    const authorize = this.#threadOptions?.authorize ?? this.#authorize;
    return (this.#threads ??= new ThreadsClient({
      client: this.client,
      taskQueue: this.taskQueue,
      queryTimeout: this.#reads.timeoutMs,
      ...(this.#deferralOptions ? { deferral: this.#deferralOptions } : {}),
      ...this.#threadOptions,
      // The transport the run streams use: one default transport (and one look at the workers) per client, not two.
      stream: { transport: this.#runStreams.streamTransport },
      ...(authorize ? { authorize } : {}),
    }));
  }

  /**
   * Agents on a schedule (Temporal Schedules): each schedule starts ordinary runs of its agent
   * on this client's task queue, asking `authorize` about the `schedule.*` operations.
   */
  get schedules(): AgentSchedules {
    return (this.#schedules ??= new AgentSchedules({ client: this.client, taskQueue: this.taskQueue, authorize: this.#authorize, uiSummary: this.#uiSummary }));
  }

  /** Starts a run, or attaches to the run that already has `options.runId`. */
  async start<O = unknown>(agent: AgentDefinition<O> | string, options: RunOptions): Promise<RunHandle<O>> {
    const agentId = typeof agent === "string" ? agent : agent?.id;
    if (typeof agentId !== "string" || agentId === "") {
      throw new InvalidDefinitionError({ subject: "run", problem: "pass an agent from defineAgent() or its id" });
    }
    // The agent at hand says how its first model call is scheduled, before any worker described it.
    const plan = typeof agent === "string" ? undefined : firstCallPlanOf(agent);
    const input = { ...runInputOf(agentId, options), ...(plan ? { firstCall: plan } : {}) };
    const runId = options.runId ?? `${agentId}-${randomUUID()}`;
    await authorizeRun(this.#authorize, { operation: "run.start", principal: options.principal, runId, agentId });
    await startAgentRun(this.client, this.taskQueue, runId, input, {
      uiSummary: uiSummaryOf(options.uiSummary ?? this.#uiSummary, `run of agent "${agentId}"`),
      eager: this.#eagerStart,
    });
    return this.handle<O>(runId, options.principal !== undefined ? { principal: options.principal } : {});
  }

  /**
   * Starts (or attaches to) a run and waits until it settles: the `AgentResult` when it
   * completes, the `Deferred` acknowledgment as soon as it parks, its typed error when it fails.
   */
  async run<O = unknown>(agent: AgentDefinition<O> | string, options: RunOptions): Promise<AgentResult<O> | DeferredAck> {
    return (await this.start(agent, options)).settled();
  }

  /**
   * A handle on an existing run, its calls made as `caller.principal` and authorized as the
   * client's own methods are, on every call; the handle itself reads and checks nothing.
   */
  handle<O = unknown>(runId: string, caller: Caller = {}): RunHandle<O> {
    if (typeof runId !== "string" || runId === "") {
      throw new InvalidDefinitionError({ subject: "agents.handle", problem: "runId must be a non-empty string" });
    }
    const bound: RunTarget = { runId, ...(caller.principal !== undefined ? { principal: caller.principal } : {}) };
    return {
      runId,
      settled: (options = {}) => this.settled<O>({ ...options, ...bound }),
      result: () => this.result<O>(bound),
      state: () => this.state(bound),
      listMessages: (options = {}) => this.listMessages({ ...options, ...bound }),
      streamUpdates: (options = {}) => this.streamUpdates({ ...options, ...bound }),
      followUpdates: (options = {}) => this.followUpdates({ ...options, ...bound }),
      cancel: (options = {}) => this.cancel({ ...options, ...bound }),
    };
  }

  /**
   * Waits until the run completes (its result), fails (its typed error) or defers (the
   * acknowledgment); see `RunHandle.settled`. Only reads. Authorized as `run.result`.
   */
  async settled<O = unknown>(options: RunTarget & SettledOptions): Promise<AgentResult<O> | DeferredAck> {
    const runId = runIdOf(options, "agents.settled()");
    const after = options.after;
    if (after !== undefined && (typeof after !== "string" || after === "")) {
      throw new InvalidDefinitionError({ subject: "settled()", problem: 'after must be a deferral id or "current"' });
    }
    await authorizeRun(this.#authorize, { operation: "run.result", principal: options.principal, runId });
    return (await this.#settled(runId, after)) as AgentResult<O> | DeferredAck;
  }

  #settled(runId: string, after?: string): Promise<AgentResult | DeferredAck> {
    const line = () => boundedQuery(this.client, this.#reads, runId, () => currentDetails(this.client, runId));
    const fromHistory = (id: string, expiresAt: string) => ackFromHistory(this.client, runId, id, expiresAt);
    const deps: SettleDeps = {
      client: this.client,
      result: () => this.#result(runId),
      deferred: (id) => parkedAck(line, unguarded(this.deferrals), id, fromHistory),
      ...(this.#inProcessParks ? { taskQueue: this.taskQueue } : {}),
    };
    return settleRun(deps, runId, after);
  }

  #result(runId: string): Promise<AgentResult> {
    const wf = this.workflowHandle(runId);
    return translateRun(runId, async () => currentResult(await wf.result()));
  }

  /**
   * Cancels a run: it stops the model call or tool in flight (their AbortSignal fires), denies
   * a deferral it waits on (its tokens then read RC5050), and fails with AI1005 carrying the
   * turns and the whole run's usage. A run that already finished is left as it is; AI1010
   * for an unknown run; AI1013 when `authorize` refuses `run.cancel` (nothing is sent).
   */
  async cancel(options: RunTarget & CancelOptions): Promise<void> {
    const runId = runIdOf(options, "agents.cancel()");
    await authorizeRun(this.#authorize, { operation: "run.cancel", principal: options.principal, runId });
    const wf = this.workflowHandle(runId);
    try {
      await wf.executeUpdate(cancelUpdate, { args: [{ ...(options.reason ? { reason: options.reason } : {}) }] });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw unwrapFailure(err);
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      // Closed runs take no updates: fine, unless the run never existed.
      await translateRun(runId, () => wf.describe());
    }
  }

  /**
   * Waits for the run to finish: its result, or its typed error (AI1014: terminated or timed
   * out). Stays pending while it is deferred. Authorized as `run.result`.
   */
  async result<O = unknown>(options: RunTarget): Promise<AgentResult<O>> {
    const runId = runIdOf(options, "agents.result()");
    await authorizeRun(this.#authorize, { operation: "run.result", principal: options.principal, runId });
    return (await this.#result(runId)) as AgentResult<O>;
  }

  /**
   * The run's live state: status, turns used, token usage, the newest messages
   * (`recentMessages`) and how many there are (`messageCount`). Authorized as `run.state`.
   */
  async state(options: RunTarget): Promise<RunState> {
    const runId = runIdOf(options, "agents.state()");
    await authorizeRun(this.#authorize, { operation: "run.state", principal: options.principal, runId });
    return translateRun(runId, () => boundedQuery(this.client, this.#reads, runId, () => this.workflowHandle(runId).query(runStateQuery)));
  }

  /**
   * A page of the run's transcript, oldest first: pass the returned `cursor` for the next
   * page; none means the end. Works while the run runs or waits deferred, and after it
   * finished (a worker then replays the run to answer, so one must be running). Pages stay
   * well under Temporal's payload limit however long the run: at most `limit` messages
   * (default 100, at most 1,000) and 1 MiB of JSON, but always at least one message.
   * Authorized as `run.state`.
   */
  async listMessages(options: RunTarget & ListMessagesOptions): Promise<RunMessagePage> {
    const runId = runIdOf(options, "agents.listMessages()");
    const page = messagePage(options, "agents.listMessages()");
    await authorizeRun(this.#authorize, { operation: "run.state", principal: options.principal, runId });
    return translateRun(runId, () => boundedQuery(this.client, this.#reads, runId, () => readRunMessages(this.workflowHandle(runId), page)));
  }

  /**
   * One read of the run's stream after `fromSeq` (a billed query): its messages (each with
   * its position as `id`), status changes (`streaming`, `awaiting_tool_results`,
   * `completed`, `failed`, `stopped`), an `approval-request` / `approval-decided` pair per
   * deferral, and the answer's deltas while it is written when the run streams. The
   * snapshot's `threadId` is the run's id. Authorized as `run.state`; AI1010 for an unknown run.
   */
  async streamUpdates(options: RunTarget & StreamUpdatesOptions): Promise<StreamSnapshot> {
    const runId = runIdOf(options, "agents.streamUpdates()");
    const fromSeq = fromSeqOf(options.fromSeq, "agents.streamUpdates()");
    await authorizeRun(this.#authorize, { operation: "run.state", principal: options.principal, runId });
    return this.#runStreams.readStream(runId, fromSeq, this.client);
  }

  /**
   * Follows the run's stream from `fromSeq` (see `streamUpdates` for what it holds): each
   * batch of new entries as one snapshot, in seq order, until `until` says so or `signal`
   * aborts. Readers of one run in this process share one follower; live entries come from
   * the stream transport (no Temporal action), and the run is read by query only for what
   * the transport did not bring. A reader that fell behind a continue-as-new gets
   * `truncated: true` (re-read `listMessages()`). Authorized once, as `run.state`; AI1010 for
   * an unknown run, before anything is yielded.
   */
  async *followUpdates(options: RunTarget & FollowUpdatesOptions): AsyncGenerator<StreamSnapshot> {
    const { principal, runId, ...follow } = options ?? ({} as Partial<RunTarget>);
    const fromSeq = fromSeqOf(follow.fromSeq, "agents.followUpdates()");
    const intervalMs = pollIntervalMs(follow, "agents.followUpdates()");
    await this.openStream({ runId: runIdOf({ runId }, "agents.followUpdates()"), ...(principal !== undefined ? { principal } : {}) });
    yield* followStream(this.#runStreams, runId, { ...follow, fromSeq, intervalMs });
  }

  /**
   * @internal Authorizes a reader of the run's stream (`run.state`) and checks the run
   * exists (AI1010) with a describe, not a billed query: what the front door's events route does first.
   */
  async openStream(options: RunTarget): Promise<void> {
    const runId = runIdOf(options, "agents.followUpdates()");
    await authorizeRun(this.#authorize, { operation: "run.state", principal: options.principal, runId });
    const described = await translateRun(runId, () => this.workflowHandle(runId).describe());
    if (described.type !== "agentRun") throw new RunNotFoundError({ runId });
  }

  /** @internal Where readers of runs read; the front door's events route shares it. */
  get runStreams(): RunStreamSource {
    return this.#runStreams;
  }

  /**
   * Resumes a deferral with the token its tool handed out. Checks, in order, each
   * refusing with its code and changing nothing: token (RC5041), record exists (RC5046),
   * call binding (RC5055), authorize hook (RC5056), lifecycle (a duplicate gets the first
   * outcome; RC5050 denied), deadline (RC5047), the call is still what `shown` says
   * (RC5058, when given), fits the context window (AI1009), schema
   * (RC5049, token not spent), plain JSON (RC5042). Then the run continues, and this
   * returns its next settled state; if the agent's definition changed while it waited, the
   * deferral is denied as the step starts and this fails with RC5048.
   */
  resume(options: ResumeOptions): Promise<ResumeResult> {
    return resumeDeferral(this.#resumeDeps(), options);
  }

  /**
   * What a resume with this token would meet, without spending it or changing anything:
   * every check before the payload's (token, record, call binding, `authorize` as `resume`
   * with `payload: undefined`, denied, deadline, `shown` when given), then
   * `{ status: "pending", deferral }` (the record the caller may answer, with the
   * `callFingerprint` to resume with as `shown`) or the first outcome when it was answered
   * already. What an approval page shows before its form.
   */
  previewResume(options: Omit<ResumeOptions, "payload">): Promise<ResumePreview> {
    return previewResume(this.#resumeDeps(), options);
  }

  /**
   * @internal `previewResume` as the approval page reads it: a pending record also carries
   * what led to it (`context`), read with the record in the same query, kept only where the
   * hook allows the caller `approval.context`.
   */
  async previewWithContext(options: Omit<ResumeOptions, "payload">): Promise<ResumePreview> {
    const preview = await previewResume(this.#resumeDeps(), options, true);
    if (preview.status !== "pending") return preview;
    const { context, ...record } = preview.deferral as ApprovalRecord;
    return { ...preview, deferral: context ? await withAllowedContext(this.deferrals, record, context, options.principal) : record };
  }

  #resumeDeps() {
    // A resume is authorized as `resume`, with the record it reads: reading it is part of it.
    return {
      client: this.client,
      deferrals: unguarded(this.deferrals),
      secrets: this.#deferral?.secrets,
      authorize: this.#authorize,
      follow: (runId: string) => outcomeOf(this.#settled(runId)),
      waitingRun: (runId: string) => this.#waitingRun(runId),
      subAgentOutcome: async (waiting: string, deferralId: string) =>
        // A run from before this query cannot say: its next settled state is answered instead.
        (await boundedQuery(this.client, this.#reads, waiting, () => this.workflowHandle(waiting).query(subAgentOutcomeQuery, deferralId)).catch(() => null)) ?? undefined,
    };
  }

  /**
   * The run whose next settled state a resume answers with: the run itself, or, for a
   * sub-agent's run, the run that called it (and its caller, up to the first that is no
   * sub-agent). Describes only, which Temporal does not bill.
   */
  async #waitingRun(runId: string): Promise<string> {
    let current = runId;
    for (let depth = 0; depth < MAX_SUB_AGENT_DEPTH; depth++) {
      const parent = (await this.workflowHandle(current).describe().catch(() => undefined))?.parentExecution?.workflowId;
      if (!parent || (await this.workflowHandle(parent).describe().catch(() => undefined))?.type !== "agentRun") return current;
      current = parent;
    }
    return current;
  }

  /** Exposed for advanced use: the raw Temporal handle of a run. */
  workflowHandle(runId: string): RunWorkflowHandle {
    return this.client.workflow.getHandle<typeof agentRun>(runId);
  }
}

/** How many callers up a resume follows a sub-agent's run (a chain deeper than this is followed no further). */
const MAX_SUB_AGENT_DEPTH = 8;

/** The run id of a method's options; AI1001 naming `subject` when it is missing. */
function runIdOf(options: Partial<RunTarget> | undefined, subject: string): string {
  const runId = options?.runId;
  if (typeof runId !== "string" || runId === "") throw new InvalidDefinitionError({ subject, problem: "runId must be a non-empty string" });
  return runId;
}

/** A settled state as a resume's outcome: what the workflow itself answers with. */
async function outcomeOf(settled: Promise<AgentResult | DeferredAck>): Promise<RunOutcome> {
  try {
    const value = await settled;
    return value.status === "completed" ? { status: "completed", result: resultSummary(value) } : value;
  } catch (err) {
    const coded = err as { code?: unknown; fields?: unknown };
    return {
      status: "failed",
      error: {
        ...(typeof coded?.code === "string" ? { code: coded.code } : {}),
        message: err instanceof Error ? err.message : String(err),
        ...(coded?.fields !== undefined ? { fields: coded.fields as never } : {}),
      },
    };
  }
}
