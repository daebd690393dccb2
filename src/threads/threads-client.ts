import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  Client,
  isGrpcServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from "@temporalio/client";
import { TerminatedFailure, TimeoutFailure } from "@temporalio/common";
import { defaultPayloadConverter, type UpdateDefinition } from "@temporalio/common";
import { decodeOptionalSinglePayload } from "@temporalio/common/lib/internal-non-workflow/index.js";
import type { temporal } from "@temporalio/proto";
import type { agentThread } from "../../workflows/thread.js";
import {
  AGENT_THREAD_VERSION,
  type StreamSnapshot,
  type ThreadInput,
  type ThreadMessage,
  type ThreadResumeReply,
  type ThreadSendReply,
  type ThreadSnapshot,
  type ThreadStatus,
  type ThreadStopReply,
} from "../core/thread-contracts.js";
import {
  threadDeleteUpdate,
  threadMessagesQuery,
  threadResumeUpdate,
  threadSendUpdate,
  threadSnapshotQuery,
  threadStopUpdate,
  threadStreamQuery,
  threadToolResultUpdate,
} from "../core/wire/thread.js";
import { messageProblem, transcriptProblem } from "../core/thread-transcript.js";
import { unvouchedDefect } from "../core/transcript-trust.js";
import { AgentIdKey } from "../core/search-attributes.js";
import type { AgentDefinition } from "../core/define-agent.js";
import { unwrapFailure } from "../core/errors/from-failure.js";
import { InvalidDefinitionError } from "../core/errors/invalid-definition.js";
import { ThreadAlreadyExistsError } from "../core/errors/thread-already-exists.js";
import { ThreadMessageInvalidError } from "../core/errors/thread-message-invalid.js";
import { ThreadNotFoundError } from "../core/errors/thread-not-found.js";
import { ThreadTerminatedError } from "../core/errors/thread-terminated.js";
import { DeferralNotFoundError } from "../core/errors/deferral-not-found.js";
import { decisionList, type Decisions } from "../core/approval.js";
import { deferralRecordQuery } from "../core/wire/run.js";
import { resolveDeferralConfig, type DeferralConfig } from "../deferral/config.js";
import type { ResumeResult } from "../client/resume.js";
import { approvalIdOf, decideForThread } from "./thread-decide.js";
import { ThreadUnauthorizedError } from "../core/errors/thread-unauthorized.js";
import { ToolResultDuplicateError } from "../core/errors/tool-result-duplicate.js";
import type { JsonValue, Principal } from "../core/json.js";
import { plainJsonProblem } from "../core/json-check.js";
import { assertPayloadFits, jsonBytes, MAX_PRINCIPAL_BYTES, PRINCIPAL_HINT } from "../core/payload-size.js";
import { THREAD_TRANSCRIPT_BYTES } from "../core/transcript-budget.js";
import { TranscriptFullError } from "../core/errors/transcript-full.js";
import { ResumeTokenError } from "../core/errors/resume-token.js";
import { proofOf } from "../core/proof.js";
import { answerTokenProblem } from "../deferral/token.js";
import type { ChatMessage } from "../core/messages.js";
import { askAuthorize, type AuthorizeHook, type ThreadAuthorizeRequest, type ThreadOperation } from "../client/authorize.js";
import { connect, type ClientConnectionOptions } from "../client/connection.js";
import { boundedQuery, type QueryDeadline } from "../client/bounded-query.js";
import { currentDetails, HistoryWatch } from "../client/history-watch.js";
import { hubFor, type StreamReader } from "./stream-hub.js";
import { retryStateOf, type RetryState } from "./retry-state.js";

export interface ThreadsClientOptions extends ClientConnectionOptions {
  /** The agent new threads run unless `createThread` names another. */
  agent?: AgentDefinition | string;
  /**
   * Asked before every call, with the operation (`thread.create`, `thread.send`,
   * `thread.toolResult`, …; see `ThreadOperation`), the thread and the caller's `principal`.
   * Only an exact `true` allows; anything else refuses with AI1021 and nothing is read or
   * changed. `listThreads` shows only the threads it allows (`thread.list`, per row).
   * Without it, everything is allowed.
   */
  authorize?: AuthorizeHook;
  /**
   * The deferral secrets the workers share: `decide` mints an approval request's token with
   * them (it never enters history). Without it `decide` refuses with RC5040.
   */
  deferral?: DeferralConfig;
}

/** Who is calling; what `authorize` is asked about. */
export interface ThreadCaller {
  /** Who the call is made for: what `authorize` is asked about. */
  principal?: Principal;
}

export interface CreateThreadOptions {
  /** The agent the thread runs; defaults to the client's `agent`. */
  agent?: AgentDefinition | string;
  /** The thread's id (its workflow id). Random when absent; an id in use is refused with AI1025. */
  threadId?: string;
  /** First user message. */
  prompt?: string;
  /**
   * A transcript to start from (before `prompt`). Tool results, system messages, and an
   * assistant message ending it with tool calls (which the first turn would run) are
   * refused with AI1027 unless `trustTranscript` is set.
   */
  messages?: ChatMessage[];
  /**
   * Vouches for `messages`: they were built by your server code (a migrated conversation, a
   * template), not taken from an end user, so their tool results, system messages and open
   * tool calls are accepted as the model's and the tools' own. Never set it from request
   * input: it would let a caller forge tool output, instructions, or tool calls the thread
   * then runs. The HTTP front door never sets it.
   */
  trustTranscript?: boolean;
  /** Run a turn at once when there is something to answer. Default true; false leaves the thread idle until sendMessage or resumeThread. */
  autoStart?: boolean;
  /** Who the thread acts for: tools read it as `ctx.principal`. Plain JSON. */
  principal?: Principal;
  /** Stream answers to `streamUpdates` readers. Default true. */
  stream?: boolean;
  /**
   * Continue as new once the current run's history reaches this many events. Temporal
   * suggests it by itself (at a few thousand events or a few MB); set this to roll sooner.
   */
  maxHistoryEvents?: number;
}

/** `getThread`: the thread's state, with retry state of what is running. */
export interface ThreadView extends Omit<ThreadSnapshot, "toolCalls" | "modelCall" | "deleted"> {
  toolCalls: Array<ThreadSnapshot["toolCalls"][number] & { retry?: RetryState }>;
  /** The model call in flight; `retry` is set while it waits to be retried (429, 5xx, network). */
  modelCall?: { messageId: string; attempt: number; retry?: RetryState };
}

export interface ThreadSummary {
  threadId: string;
  agentId?: string;
  createdAt: string;
}

type ThreadWorkflowHandle = WorkflowHandle<typeof agentThread>;

/** The options of a `ThreadHandle` method: the `ThreadsClient` method's, less what the handle binds. */
type Bound<Options> = Omit<Options, "threadId" | "principal">;

/**
 * One thread's operations, bound to its id and to the principal they are made for
 * (`threads.handle(threadId, { principal })`). Each is the `ThreadsClient` method of the
 * same name, authorized the same way on every call.
 */
export interface ThreadHandle {
  readonly threadId: string;
  /** See `ThreadsClient.sendMessage`. */
  sendMessage(options: Bound<SendMessageOptions>): Promise<ThreadSendReply>;
  /** See `ThreadsClient.addMessage`. */
  addMessage(options: Bound<AddMessageOptions>): Promise<ThreadSendReply>;
  /** See `ThreadsClient.resumeThread`. */
  resumeThread(options?: Bound<ResumeThreadOptions>): Promise<ThreadResumeReply>;
  /** See `ThreadsClient.stopThread`. */
  stopThread(): Promise<ThreadStopReply>;
  /** See `ThreadsClient.getThread`. */
  getThread(): Promise<ThreadView>;
  /** See `ThreadsClient.listMessages`. */
  listMessages(options?: Bound<ListMessagesOptions>): Promise<MessagePage>;
  /** See `ThreadsClient.streamUpdates`. */
  streamUpdates(options?: Bound<StreamUpdatesOptions>): Promise<StreamSnapshot>;
  /** See `ThreadsClient.followUpdates`. */
  followUpdates(options?: Bound<FollowUpdatesOptions>): AsyncGenerator<StreamSnapshot>;
  /** See `ThreadsClient.waitUntilSettled`. */
  waitUntilSettled(options?: Bound<WaitUntilSettledOptions>): Promise<ThreadView>;
  /** See `ThreadsClient.deleteThread`. */
  deleteThread(): Promise<{ deleted: true }>;
  /** See `ThreadsClient.addToolResult`. */
  addToolResult(options: Bound<AddToolResultOptions>): Promise<ToolResultReply>;
  /** See `ThreadsClient.addToolError`. */
  addToolError(options: Bound<AddToolErrorOptions>): Promise<ToolResultReply>;
}

/** `sendMessage`: the message and, to send it at most once, its id. */
export type SendMessageOptions = { threadId: string; prompt: string; messageId?: string } & ThreadCaller;
/**
 * `addMessage`: a message that does not start a turn. A `system` message needs
 * `trustTranscript: true`: set it only from server code that wrote the message itself,
 * never from end-user input (the HTTP front door never sets it).
 */
export type AddMessageOptions = { threadId: string; message: ChatMessage; messageId?: string; trustTranscript?: boolean } & ThreadCaller;
/** `resumeThread`: an optional prompt to continue with. */
export type ResumeThreadOptions = { threadId: string; prompt?: string } & ThreadCaller;
/** `listMessages`: the page to read. */
export type ListMessagesOptions = {
  threadId: string;
  cursor?: string;
  limit?: number;
  /**
   * Leave system messages out of the page (default true: chat UIs show the conversation,
   * not its instructions). Pages count stored messages, so a page may then hold fewer
   * than `limit`; `total` counts every stored message.
   */
  excludeSystemMessages?: boolean;
} & ThreadCaller;
/** `streamUpdates`: the last seq already seen. */
export type StreamUpdatesOptions = { threadId: string; fromSeq?: number } & ThreadCaller;
/** `followUpdates`: where to start, how often to poll, and when to stop. */
export type FollowUpdatesOptions = {
  threadId: string;
  fromSeq?: number;
  pollIntervalMs?: number;
  signal?: AbortSignal;
  until?: (batch: StreamSnapshot) => boolean;
} & ThreadCaller;
/** `waitUntilSettled`: a signal to give up waiting. */
export type WaitUntilSettledOptions = { threadId: string; signal?: AbortSignal } & ThreadCaller;
/** `decide`: the request and one decision per call it lists (by call id, or a list); `shown` is its `callFingerprint` as the approver saw it. */
export type DecideThreadOptions = { threadId: string; approvalId: string; decisions: Decisions; shown?: string } & ThreadCaller;
/**
 * Who answers an async call proves it was asked: `answerToken` is the token the callback got
 * (`ctx.answerToken`, sent in its link). Required (the key, so no caller forgets it); it may
 * be `undefined` only for calls registered before answer tokens existed, which take answers
 * without one.
 */
export type AnswerTokenOption = { answerToken: string | undefined };
/** `addToolResult`: the async call answered and its result. */
export type AddToolResultOptions = { threadId: string; toolCallId: string; result: JsonValue } & AnswerTokenOption & ThreadCaller;
/** `addToolError`: the async call answered and its failure. */
export type AddToolErrorOptions = { threadId: string; toolCallId: string; error: string } & AnswerTokenOption & ThreadCaller;
/** A page of the transcript (`listMessages`). */
export interface MessagePage {
  messages: ThreadMessage[];
  total: number;
  /** Pass it for the next page; absent on the last one. */
  cursor?: string;
}
/** What `addToolResult` and `addToolError` answer. */
export interface ToolResultReply {
  status: "accepted" | "duplicate";
  toolCallId: string;
}

/**
 * Long-lived chat threads. Each thread is one workflow with an inbox: messages run the
 * agent loop as turns, messages sent meanwhile queue, a stop interrupts the turn at once,
 * async tools wait for results added later, and readers stream the answer as it is written.
 */
export class ThreadsClient {
  readonly client: Client;
  readonly taskQueue: string;
  readonly #agentId: string | undefined;
  readonly #authorize: AuthorizeHook | undefined;
  readonly #secrets: Buffer[] | undefined;
  readonly #reads: QueryDeadline;

  constructor(options: ThreadsClientOptions) {
    const connected = connect(options, "ThreadsClient");
    ({ client: this.client, taskQueue: this.taskQueue } = connected);
    this.#reads = { timeoutMs: connected.queryTimeoutMs, taskQueue: connected.taskQueue };
    this.#agentId = agentIdOf(options.agent);
    this.#authorize = options.authorize;
    this.#secrets = options.deferral ? resolveDeferralConfig(options.deferral).secrets : undefined;
  }

  /**
   * Starts a thread. With a prompt (and autoStart) its first turn starts right away.
   * Authorized as `thread.create` (AI1021), after the options are checked and before
   * anything is started.
   */
  async createThread(options: CreateThreadOptions = {}): Promise<{ threadId: string; messageId?: string }> {
    const agentId = agentIdOf(options.agent) ?? this.#agentId;
    if (!agentId) throw new InvalidDefinitionError({ subject: "createThread", problem: "name the agent (createThread({ agent }) or new ThreadsClient({ agent }))" });
    const threadId = options.threadId ?? `thread-${randomUUID()}`;
    if (options.prompt !== undefined && typeof options.prompt !== "string") {
      throw new ThreadMessageInvalidError({ threadId, problem: "prompt must be a string" });
    }
    if (options.messages !== undefined) {
      const problem = transcriptProblem(options.messages) ?? (options.trustTranscript === true ? undefined : unvouchedDefect(options.messages)?.defect);
      if (problem) throw new ThreadMessageInvalidError({ threadId, problem });
    }
    const principalProblem = options.principal === undefined ? undefined : plainJsonProblem(options.principal);
    if (principalProblem) throw new InvalidDefinitionError({ subject: "createThread", problem: `principal is not plain JSON at ${principalProblem.path}` });
    if (options.principal !== undefined) assertPayloadFits(options.principal, "The thread's principal", { limitBytes: MAX_PRINCIPAL_BYTES, hint: PRINCIPAL_HINT });
    await this.#ask({
      operation: "thread.create",
      principal: options.principal,
      threadId,
      agentId,
      seeded: options.messages !== undefined && options.messages.length > 0,
      trustTranscript: options.trustTranscript === true,
    });
    const messageId = options.prompt !== undefined ? newMessageId() : undefined;
    const input: ThreadInput = {
      version: AGENT_THREAD_VERSION,
      agentId,
      ...(options.principal ? { principal: options.principal } : {}),
      ...(options.messages ? { messages: options.messages } : {}),
      ...(messageId !== undefined ? { prompt: { id: messageId, content: options.prompt! } } : {}),
      ...(options.autoStart !== undefined ? { autoStart: options.autoStart } : {}),
      ...(options.stream !== undefined ? { stream: options.stream } : {}),
      ...(options.maxHistoryEvents !== undefined ? { maxHistoryEvents: options.maxHistoryEvents } : {}),
    };
    assertPayloadFits(input, "The new thread's prompt and transcript");
    assertSeedFits(threadId, input);
    try {
      await this.client.workflow.start<typeof agentThread>("agentThread", {
        workflowId: threadId,
        taskQueue: this.taskQueue,
        args: [input],
        typedSearchAttributes: [{ key: AgentIdKey, value: agentId }],
        // Continue-as-new carries the memo: the thread's creation time survives its runs.
        memo: { threadCreatedAt: new Date().toISOString() },
        workflowIdConflictPolicy: "FAIL",
        workflowIdReusePolicy: "REJECT_DUPLICATE",
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new ThreadAlreadyExistsError({ threadId });
      throw err;
    }
    return { threadId, ...(messageId !== undefined ? { messageId } : {}) };
  }

  /**
   * Sends a user message. While a turn runs it waits in the inbox (`queued: true`) and
   * gets its own turn after; on a stopped or failed thread it moves on from the
   * interrupted turn. The same `messageId` twice sends once.
   */
  async sendMessage(options: SendMessageOptions): Promise<ThreadSendReply> {
    await this.#check(options, "thread.send");
    if (typeof options.prompt !== "string") throw new ThreadMessageInvalidError({ threadId: options.threadId, problem: "prompt must be a string" });
    assertPayloadFits(options.prompt, "The message");
    return this.#update(options.threadId, threadSendUpdate, {
      id: options.messageId ?? newMessageId(),
      kind: "message",
      message: { role: "user", content: options.prompt },
    });
  }

  /**
   * Adds a message without running the agent (user, assistant without tool calls, or, with
   * `trustTranscript: true`, system). Queued while a turn runs. Tool results come only
   * through addToolResult.
   */
  async addMessage(options: AddMessageOptions): Promise<ThreadSendReply> {
    await this.#check(options, "thread.addMessage");
    const problem =
      messageProblem(options.message, false) ??
      (options.message.role === "system" && options.trustTranscript !== true
        ? "a system message is added only with trustTranscript: true, from server code that wrote it (never from end-user input)"
        : undefined);
    if (problem) throw new ThreadMessageInvalidError({ threadId: options.threadId, problem });
    assertPayloadFits(options.message, "The message");
    return this.#update(options.threadId, threadSendUpdate, { id: options.messageId ?? newMessageId(), kind: "add", message: options.message });
  }

  /**
   * Continues a stopped or failed thread where it was: tools that were cut off run
   * again, an unanswered message is answered, then the inbox. A prompt joins first (or
   * after the interrupted tools). AI1024 when there is nothing to continue and no prompt.
   */
  async resumeThread(options: ResumeThreadOptions): Promise<ThreadResumeReply> {
    await this.#check(options, "thread.resume");
    if (options.prompt !== undefined && typeof options.prompt !== "string") {
      throw new ThreadMessageInvalidError({ threadId: options.threadId, problem: "prompt must be a string" });
    }
    if (options.prompt !== undefined) assertPayloadFits(options.prompt, "The prompt");
    return this.#update(options.threadId, threadResumeUpdate, {
      ...(options.prompt !== undefined ? { prompt: { id: newMessageId(), content: options.prompt } } : {}),
    });
  }

  /** Stops the running turn: its model request and tools are cancelled at once. A thread with nothing running is left as it is. */
  async stopThread(options: { threadId: string } & ThreadCaller): Promise<ThreadStopReply> {
    await this.#check(options, "thread.stop");
    return this.#update(options.threadId, threadStopUpdate);
  }

  /** The thread's state: status, queue, open tool calls with their retry state, last error, usage. */
  async getThread(options: { threadId: string } & ThreadCaller): Promise<ThreadView> {
    await this.#check(options, "thread.get");
    const handle = this.#handle(options.threadId);
    const [snapshot, description] = await Promise.all([
      this.#query(options.threadId, () => handle.query(threadSnapshotQuery)),
      this.#query(options.threadId, () => handle.describe()),
    ]);
    if (description.status.name === "TERMINATED" || description.status.name === "TIMED_OUT") {
      throw new ThreadTerminatedError({ threadId: options.threadId, closedAs: description.status.name === "TIMED_OUT" ? "timed-out" : "terminated" });
    }
    if (snapshot.deleted || description.status.name !== "RUNNING") throw new ThreadNotFoundError({ threadId: options.threadId });
    const pending = new Map((description.raw.pendingActivities ?? []).map((p) => [p.activityId ?? "", p]));
    const retry = (activityId: string | undefined) => {
      const info = activityId ? pending.get(activityId) : undefined;
      return info ? retryStateOf(info as temporal.api.workflow.v1.IPendingActivityInfo, this.client) : undefined;
    };
    const { deleted: _deleted, modelCall, toolCalls, ...rest } = snapshot;
    const modelInfo = modelCall ? pending.get(modelCall.activityId) : undefined;
    const modelRetry = retry(modelCall?.activityId);
    return {
      ...rest,
      toolCalls: toolCalls.map((call) => {
        const state = retry(call.activityId);
        return state ? { ...call, retry: { ...state, maxAttempts: call.maxAttempts ?? state.maxAttempts } } : call;
      }),
      ...(modelCall
        ? { modelCall: { messageId: modelCall.messageId, attempt: modelInfo?.attempt ?? 1, ...(modelRetry ? { retry: modelRetry } : {}) } }
        : {}),
    };
  }

  /** A page of the transcript, oldest first. Pass the returned `cursor` for the next page; none means the end. */
  async listMessages(options: ListMessagesOptions): Promise<MessagePage> {
    await this.#check(options, "thread.messages");
    const offset = options.cursor === undefined ? 0 : Number(options.cursor);
    if (!Number.isInteger(offset) || offset < 0) throw new InvalidDefinitionError({ subject: "listMessages", problem: `cursor ${JSON.stringify(options.cursor)} is not one listMessages returned` });
    const limit = options.limit ?? 100;
    const page = await this.#query(options.threadId, () => this.#handle(options.threadId).query(threadMessagesQuery, { offset, limit }));
    const next = offset + page.messages.length;
    const messages = options.excludeSystemMessages === false ? page.messages : page.messages.filter((m) => m.role !== "system");
    return { messages, total: page.total, ...(next < page.total ? { cursor: String(next) } : {}) };
  }

  /**
   * Stream entries after `fromSeq` (text and tool-input deltas of the answer being
   * written, messages, status changes). Costs no history: poll it, passing the returned
   * `lastSeq` as the next `fromSeq`, from any process.
   */
  async streamUpdates(options: StreamUpdatesOptions): Promise<StreamSnapshot> {
    await this.#check(options, "thread.stream");
    return this.#stream(options.threadId, options.fromSeq ?? 0);
  }

  /**
   * Follows the stream: yields every batch of new entries until `signal` aborts or
   * `until` returns true for a batch. Authorizes once, then reads through the process's
   * shared poller of the thread (one read per interval and thread, however many follow it,
   * and only after the thread's history moved).
   */
  async *followUpdates(options: FollowUpdatesOptions): AsyncGenerator<StreamSnapshot> {
    await this.#check(options, "thread.stream");
    const batches: StreamSnapshot[] = [];
    let failure: { err: unknown } | undefined;
    let wake: (() => void) | undefined;
    const reader: StreamReader = {
      last: options.fromSeq ?? 0,
      deliver(updates, snapshot, truncated) {
        reader.last = truncated && updates.length === 0 ? snapshot.lastSeq : (updates.at(-1)?.seq ?? reader.last);
        batches.push({ ...snapshot, updates, truncated });
        wake?.();
      },
      fail(err) {
        failure = { err };
        wake?.();
      },
    };
    const stop = () => wake?.();
    options.signal?.addEventListener("abort", stop);
    const leave = hubFor(this, options.pollIntervalMs ?? 100).join(options.threadId, reader);
    try {
      while (!options.signal?.aborted) {
        const batch = batches.shift();
        if (batch) {
          yield batch;
          if (options.until?.(batch)) return;
          continue;
        }
        if (failure) throw failure.err;
        await new Promise<void>((resolve) => {
          wake = resolve;
          if (options.signal?.aborted) resolve();
        });
        wake = undefined;
      }
    } finally {
      leave();
      options.signal?.removeEventListener("abort", stop);
    }
  }

  /**
   * @internal One read of the stream for the shared poller, on `via` (its fail-fast
   * client), bounded and translated as every read of this client is.
   */
  async readStream(threadId: string, fromSeq: number, via: Client): Promise<StreamSnapshot> {
    return this.#query(threadId, () => via.workflow.getHandle<typeof agentThread>(threadId).query(threadStreamQuery, { fromSeq }), via);
  }

  /**
   * Waits until nothing runs: the turn (and every queued message) is done, or the thread
   * stopped or failed. Polls the thread's state (no history).
   */
  async waitUntilSettled(options: WaitUntilSettledOptions): Promise<ThreadView> {
    await this.#check(options, "thread.get");
    const { threadId } = options;
    // A thread closed under the wait (terminated, timed out, deleted) would answer its last
    // state forever: its end, followed by a long poll of its history (a free read), ends the wait.
    const polling = new AbortController();
    const ended = this.#ended(threadId, polling.signal);
    try {
      // Queries are billed actions; describes and the thread's status line are not. The state
      // is queried only when the history moved and the status line says the thread may be
      // at rest (a message queued behind a finished turn is what the query still rules out).
      const watch = new HistoryWatch(this.client, threadId);
      let interval = 20;
      for (;;) {
        const moved = await Promise.race([this.#query(threadId, () => watch.changed()), ended]);
        const line = moved ? await Promise.race([this.#query(threadId, () => currentDetails(this.client, threadId)), ended]) : undefined;
        if (moved && (line === undefined || mayBeSettled(line))) {
          const snapshot = await Promise.race([this.#query(threadId, () => this.#handle(threadId).query(threadSnapshotQuery)), ended]);
          if (snapshot.deleted) throw new ThreadNotFoundError({ threadId });
          const halted = snapshot.status === "stopped" || snapshot.status === "failed";
          // Not at rest after all (a queued message): the turn it starts moves the history again.
          if (!isActive(snapshot.status) && (snapshot.queued.length === 0 || halted)) return await this.getThread(options);
        }
        options.signal?.throwIfAborted();
        await Promise.race([sleep(interval), ended]);
        interval = Math.min(250, interval * 1.5);
      }
    } finally {
      polling.abort();
    }
  }

  /**
   * Rejects once the thread's workflow has closed: AI1029 when Temporal terminated it or it
   * timed out, AI1020 when it ended otherwise (deleted). Never settles while it runs.
   */
  #ended(threadId: string, signal: AbortSignal): Promise<never> {
    const closed = this.client
      .withAbortSignal(signal, () => this.#handle(threadId).result())
      .then(
        () => Promise.reject(new ThreadNotFoundError({ threadId })),
        (err: unknown) => Promise.reject(closedError(threadId, err)),
      );
    const stop = new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    const ended = Promise.race([closed, stop]);
    // Nobody may be listening once the wait is over.
    ended.catch(() => undefined);
    return ended;
  }

  /**
   * Threads on this task queue, newest first, that `authorize` allows (`thread.list`, asked
   * per row: a page may hold fewer than `limit`, even none, and still have a next one).
   * Pass `cursor` for the next page.
   */
  async listThreads(options: { cursor?: string; limit?: number } & ThreadCaller = {}): Promise<{ threads: ThreadSummary[]; cursor?: string }> {
    const namespace = this.client.options.namespace;
    const query = `WorkflowType = "agentThread" AND TaskQueue = "${this.taskQueue.replace(/"/g, '\\"')}" AND ExecutionStatus = "Running"`;
    const response = await this.client.workflowService.listWorkflowExecutions({
      namespace,
      query,
      pageSize: options.limit ?? 50,
      ...(options.cursor ? { nextPageToken: Buffer.from(options.cursor, "base64") } : {}),
    });
    const threads: ThreadSummary[] = [];
    for (const execution of response.executions ?? []) {
      const threadId = execution.execution?.workflowId;
      if (!threadId) continue;
      const agent = execution.searchAttributes?.indexedFields?.[AgentIdKey.name];
      const agents = agent ? defaultPayloadConverter.fromPayload<string | string[]>(agent) : undefined;
      const agentId = Array.isArray(agents) ? agents[0] : agents;
      if (!(await this.#allowed({ operation: "thread.list", principal: options.principal, threadId, ...(agentId ? { agentId } : {}) }))) continue;
      // The memo went through the client's data converter, a payload codec included; search attributes never do.
      const memo = await decodeOptionalSinglePayload<string>(this.client.options.loadedDataConverter, execution.memo?.fields?.threadCreatedAt);
      const createdAt = memo ? String(memo) : new Date(Number(execution.startTime?.seconds ?? 0) * 1000).toISOString();
      threads.push({ threadId, createdAt, ...(agentId ? { agentId } : {}) });
    }
    const token = response.nextPageToken;
    return { threads, ...(token && token.length > 0 ? { cursor: Buffer.from(token).toString("base64") } : {}) };
  }

  /**
   * Deletes the thread: running work is cancelled, the workflow ends, and its history is
   * deleted. AI1020 when there is no such thread. When the server refuses to delete the
   * history (a permission, say), its error is thrown; the thread has ended by then, and
   * calling again deletes its history.
   */
  async deleteThread(options: { threadId: string } & ThreadCaller): Promise<{ deleted: true }> {
    await this.#check(options, "thread.delete");
    const { threadId } = options;
    // Only a thread: an agent run or any other workflow under this id (a finished run's
    // transcript and approval record) is not this client's to delete.
    const type = await this.#handle(threadId)
      .describe()
      .then(
        (d) => d.type,
        (err: unknown) => {
          if (err instanceof WorkflowNotFoundError) return undefined;
          throw err;
        },
      );
    if (type !== "agentThread") throw new ThreadNotFoundError({ threadId });
    // Refused as not found: it never existed, or it ended without its history being deleted
    // (an earlier delete the server refused, a delete racing this one, a terminate).
    const accepted = await this.#update(threadId, threadDeleteUpdate).then(
      () => true,
      (err: unknown) => {
        if (ThreadNotFoundError.isInstance(err)) return false;
        throw err;
      },
    );
    // Deleting a running execution terminates it: let it finish its own way first (status hook, replies).
    try {
      await this.#handle(threadId).result();
    } catch (err) {
      if (!(err instanceof WorkflowFailedError) && !(err instanceof WorkflowNotFoundError)) throw err;
    }
    let removed = true;
    try {
      await this.client.workflowService.deleteWorkflowExecution({ namespace: this.client.options.namespace, workflowExecution: { workflowId: threadId } });
    } catch (err) {
      // Not found: a delete racing this one removed it first. The thread is gone either way, as asked.
      if (!(isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND)) throw err;
      removed = false;
    }
    if (!accepted && !removed) throw new ThreadNotFoundError({ threadId });
    return { deleted: true };
  }

  /**
   * Decides a thread's approval request (its id is `approvals[].approvalId` of `getThread`,
   * or the stream's `approval-request` entry), one decision per call it lists: approved
   * (with `input` to run it edited) or rejected (with a `reason` the model reads). Authorized
   * as `thread.decide` (the hook sees the calls, their meta and the decisions: "only a
   * manager decides a payout" is one line), then checked by the thread like any resume:
   * RC5049 for decisions that do not fit (nothing spent), a second decision reads the
   * first's outcome as `duplicate`. The thread goes on at once (`outcome: accepted`): follow
   * it with `waitUntilSettled` or its stream.
   */
  async decide(options: DecideThreadOptions): Promise<ResumeResult> {
    const threadId = threadIdOf(options, "thread.decide");
    const approvalId = approvalIdOf(options);
    const decisions = decisionList(options.decisions);
    const record = await this.#query(threadId, () => this.#handle(threadId).query(deferralRecordQuery, approvalId));
    if (!record || record.runId !== threadId) throw new DeferralNotFoundError({ deferralId: approvalId });
    await this.#ask({
      operation: "thread.decide",
      principal: options.principal,
      threadId,
      approvalId,
      calls: (record.approval?.calls ?? []).map(({ toolCallId, toolName, arguments: args }) => ({ toolCallId, toolName, arguments: args })),
      meta: record.meta,
      decisions,
    });
    return decideForThread({ client: this.client, secrets: this.#secrets }, threadId, record, decisions, {
      ...(options.principal !== undefined ? { principal: options.principal } : {}),
      ...(options.shown !== undefined ? { shown: options.shown } : {}),
    });
  }

  /**
   * The result of an async tool call, by its tool call id, with the call's `answerToken`
   * (`ctx.answerToken` in the callback). Only the token's proof is sent; the thread refuses
   * (RC5041, changing nothing) an answer without the token or with another one, whoever
   * `authorize` lets in, and one that comes before the callback finished (`retryLater`:
   * send it again shortly). A second result for the same call answers `duplicate` and
   * changes nothing; an id no async call waits on is AI1022.
   */
  async addToolResult(options: AddToolResultOptions): Promise<ToolResultReply> {
    await this.#checkAnswer(options, "thread.toolResult");
    const proof = this.#proof(options);
    const problem = plainJsonProblem(options.result);
    if (problem || options.result === undefined) {
      throw new ThreadMessageInvalidError({ threadId: options.threadId, problem: `the result is not plain JSON${problem ? ` at ${problem.path}: ${problem.problem}` : ""}` });
    }
    assertPayloadFits(options.result, "The tool result");
    return this.#toolResult(options.threadId, options.toolCallId, { result: options.result, ...proof });
  }

  /** The failure of an async tool call; the model reads it as a tool error. Duplicates and unknown ids as for addToolResult. */
  async addToolError(options: AddToolErrorOptions): Promise<ToolResultReply> {
    await this.#checkAnswer(options, "thread.toolError");
    const proof = this.#proof(options);
    if (typeof options.error !== "string") throw new ThreadMessageInvalidError({ threadId: options.threadId, problem: "error must be a string" });
    assertPayloadFits(options.error, "The tool error");
    return this.#toolResult(options.threadId, options.toolCallId, { error: options.error, ...proof });
  }

  /** RC5041 for what cannot be an answer token, before anything is sent; the thread checks possession. */
  #proof(options: Partial<AnswerTokenOption>): { proof?: string } {
    const token = options.answerToken;
    if (token === undefined) return {};
    const problem = answerTokenProblem(token);
    if (problem) throw new ResumeTokenError({ token: "answer", reason: problem });
    return { proof: proofOf(token) };
  }

  /**
   * A handle on an existing thread: its operations bound to `threadId` and, when given, to
   * `principal`, e.g. the signed-in user of a request. Every call is authorized as it is
   * made, as the client's own methods are; the handle itself reads and checks nothing.
   */
  handle(threadId: string, caller: ThreadCaller = {}): ThreadHandle {
    if (typeof threadId !== "string" || threadId === "") {
      throw new InvalidDefinitionError({ subject: "threads.handle", problem: "threadId must be a non-empty string" });
    }
    const bound = { threadId, ...(caller.principal !== undefined ? { principal: caller.principal } : {}) };
    return {
      threadId,
      sendMessage: (options) => this.sendMessage({ ...options, ...bound }),
      addMessage: (options) => this.addMessage({ ...options, ...bound }),
      resumeThread: (options = {}) => this.resumeThread({ ...options, ...bound }),
      stopThread: () => this.stopThread(bound),
      getThread: () => this.getThread(bound),
      listMessages: (options = {}) => this.listMessages({ ...options, ...bound }),
      streamUpdates: (options = {}) => this.streamUpdates({ ...options, ...bound }),
      followUpdates: (options = {}) => this.followUpdates({ ...options, ...bound }),
      waitUntilSettled: (options = {}) => this.waitUntilSettled({ ...options, ...bound }),
      deleteThread: () => this.deleteThread(bound),
      addToolResult: (options) => this.addToolResult({ ...options, ...bound }),
      addToolError: (options) => this.addToolError({ ...options, ...bound }),
    };
  }

  /** The raw Temporal handle of a thread, for advanced use. */
  workflowHandle(threadId: string): ThreadWorkflowHandle {
    return this.#handle(threadId);
  }

  async #toolResult(threadId: string, toolCallId: string, body: { result?: JsonValue; error?: string; proof?: string }): Promise<ToolResultReply> {
    try {
      await this.#update(threadId, threadToolResultUpdate, { toolCallId, ...body });
      return { status: "accepted" as const, toolCallId };
    } catch (err) {
      if (ToolResultDuplicateError.isInstance(err)) return { status: "duplicate" as const, toolCallId };
      throw err;
    }
  }

  #handle(threadId: string): ThreadWorkflowHandle {
    return this.client.workflow.getHandle<typeof agentThread>(threadId);
  }

  async #stream(threadId: string, fromSeq: number): Promise<StreamSnapshot> {
    return this.#query(threadId, () => this.#handle(threadId).query(threadStreamQuery, { fromSeq }));
  }

  async #check(
    options: { threadId?: string } & ThreadCaller,
    operation: Exclude<ThreadOperation, "thread.create" | "thread.list" | "thread.toolResult" | "thread.toolError" | "thread.decide">,
  ): Promise<void> {
    await this.#ask({ operation, principal: options?.principal, threadId: threadIdOf(options, operation) });
  }

  /** Tool answers: the hook also sees the call and its tool's name, read from the thread when there is a hook to tell. */
  async #checkAnswer(options: { threadId?: string; toolCallId?: string } & ThreadCaller, operation: "thread.toolResult" | "thread.toolError"): Promise<void> {
    const threadId = threadIdOf(options, operation);
    if (!this.#authorize) return;
    const toolCallId = options.toolCallId;
    if (typeof toolCallId !== "string" || toolCallId === "") {
      throw new InvalidDefinitionError({ subject: operation, problem: "toolCallId must be a non-empty string" });
    }
    await this.#ask({ operation, principal: options.principal, threadId, toolCallId, toolName: await this.#toolNameOf(threadId, toolCallId) });
  }

  /**
   * The tool of an open call, for the hook. Whatever goes wrong (no such thread, no such
   * call) reads as unknown: the hook decides first, and the answer itself then meets the
   * thread's own refusal, so a refused caller learns nothing about the thread.
   */
  async #toolNameOf(threadId: string, toolCallId: string): Promise<string | undefined> {
    try {
      const snapshot = await this.#handle(threadId).query(threadSnapshotQuery);
      return snapshot.toolCalls.find((call) => call.toolCallId === toolCallId)?.name;
    } catch {
      return undefined;
    }
  }

  /** AI1021 unless the hook returns exactly `true`; no hook allows everything. */
  async #ask(request: ThreadAuthorizeRequest): Promise<void> {
    if (!this.#authorize) return;
    const hook = this.#authorize;
    const verdict = await askAuthorize(() => hook(request));
    if (!verdict.allowed) throw new ThreadUnauthorizedError({ threadId: request.threadId, operation: request.operation, returned: verdict.returned });
  }

  async #allowed(request: ThreadAuthorizeRequest): Promise<boolean> {
    const hook = this.#authorize;
    return !hook || (await askAuthorize(() => hook(request))).allowed;
  }

  /** A read of the thread; `via` is the client whose connection `call` uses. */
  async #query<T>(threadId: string, call: () => Promise<T>, via: Client = this.client): Promise<T> {
    try {
      return await boundedQuery(via, this.#reads, threadId, call);
    } catch (err) {
      throw translate(threadId, err);
    }
  }

  async #update<Ret, Args extends unknown[]>(threadId: string, definition: UpdateDefinition<Ret, Args>, ...args: Args): Promise<Ret> {
    const handle = this.#handle(threadId);
    for (let attempt = 1; ; attempt++) {
      try {
        // The definitions are typed where they are declared; the generic overloads cannot see it here.
        return (await handle.executeUpdate(definition as unknown as UpdateDefinition<Ret, [unknown]>, { args: args as unknown as [unknown] })) as Ret;
      } catch (err) {
        // An update that lands while the thread continues as new is not admitted; the new run takes it.
        // The same when the server dropped the update because the workflow task it rode in
        // failed (e.g. the workflow completed a command as new events arrived): nothing was
        // applied, and every thread update is safe to send again.
        if (attempt < 5 && (isContinuedAsNew(err) || isWorkflowTaskRace(err))) {
          await sleep(50 * attempt);
          continue;
        }
        throw translate(threadId, err);
      }
    }
  }
}

function threadIdOf(options: { threadId?: string } | undefined, operation: ThreadOperation): string {
  const threadId = options?.threadId;
  if (typeof threadId !== "string" || threadId === "") {
    throw new InvalidDefinitionError({ subject: operation, problem: "threadId must be a non-empty string" });
  }
  return threadId;
}

function translate(threadId: string, err: unknown): unknown {
  if (err instanceof WorkflowNotFoundError) return new ThreadNotFoundError({ threadId });
  if (err instanceof WorkflowUpdateFailedError) return unwrapFailure(err);
  if (isClosed(err)) return new ThreadNotFoundError({ threadId });
  return err;
}

/** What a closed thread's result rejected with, as the wait reports it. */
function closedError(threadId: string, err: unknown): Error {
  if (err instanceof WorkflowFailedError && err.cause instanceof TerminatedFailure) {
    return new ThreadTerminatedError({ threadId, closedAs: "terminated", ...(err.cause.message ? { reason: err.cause.message } : {}) });
  }
  if (err instanceof WorkflowFailedError && err.cause instanceof TimeoutFailure) return new ThreadTerminatedError({ threadId, closedAs: "timed-out" });
  if (err instanceof WorkflowNotFoundError || err instanceof WorkflowFailedError) return new ThreadNotFoundError({ threadId });
  return err instanceof Error ? err : new Error(String(err));
}

function isClosed(err: unknown): boolean {
  return err instanceof Error && /workflow execution already completed|workflow execution is already completed/i.test(err.message);
}

function isWorkflowTaskRace(err: unknown): boolean {
  const cause = (err as { cause?: unknown })?.cause;
  return [err, cause].some((e) => e instanceof Error && /unexpected workflow task failure/i.test(e.message));
}

function isContinuedAsNew(err: unknown): boolean {
  return err instanceof Error && /continued as new|continue.?as.?new/i.test(err.message);
}

function isActive(status: ThreadStatus): boolean {
  return status === "streaming" || status === "awaiting_tool_results";
}

function agentIdOf(agent: AgentDefinition | string | undefined): string | undefined {
  if (agent === undefined) return undefined;
  const id = typeof agent === "string" ? agent : agent?.id;
  if (typeof id !== "string" || id === "") throw new InvalidDefinitionError({ subject: "thread", problem: "pass an agent from defineAgent() or its id" });
  return id;
}

const newMessageId = () => `msg-${randomUUID()}`;

// gRPC's status code, as Temporal's service errors carry it.
const GRPC_NOT_FOUND = 5;

/**
 * AI1018 for a seed (and first prompt) over what a thread's transcript may hold, weighed as
 * the thread will store it: each message gains an id and a timestamp.
 */
function assertSeedFits(threadId: string, input: ThreadInput): void {
  const count = (input.messages?.length ?? 0) + (input.prompt ? 1 : 0);
  const bytes = jsonBytes(input.messages ?? []) + (input.prompt ? jsonBytes(input.prompt.content) + 32 : 0) + count * STORED_MESSAGE_OVERHEAD;
  if (bytes > THREAD_TRANSCRIPT_BYTES) {
    throw new TranscriptFullError({ host: "thread", id: threadId, what: "the seeded transcript and prompt", bytes, leftBytes: THREAD_TRANSCRIPT_BYTES, limitBytes: THREAD_TRANSCRIPT_BYTES });
  }
}

/** What a thread adds to each message it stores: `,"id":"<uuid>","createdAt":"<ISO time>"`. */
const STORED_MESSAGE_OVERHEAD = 84;

/**
 * Whether a thread whose status line (the workflow's current details, see the thread's
 * status text in workflows/) reads `line` may be at rest: idle, completed, failed or
 * stopped. Anything else (a turn or a tool running, a call awaiting its answer or an
 * approval) is not; a line this does not know is checked with a query.
 */
function mayBeSettled(line: string): boolean {
  return !/^(running|awaiting)\b/.test(line);
}
