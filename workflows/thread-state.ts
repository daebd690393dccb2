import {
  CancellationScope,
  proxyLocalActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from "@temporalio/workflow";
import { ThreadMessageInvalidError } from "../src/core/errors/thread-message-invalid.js";
import { ThreadNotFoundError } from "../src/core/errors/thread-not-found.js";
import { ThreadNotResumableError } from "../src/core/errors/thread-not-resumable.js";
import { ToolCallNotFoundError } from "../src/core/errors/tool-call-not-found.js";
import { ToolResultDuplicateError } from "../src/core/errors/tool-result-duplicate.js";
import type { Principal } from "../src/core/json.js";
import { plainJsonProblem } from "../src/core/json-check.js";
import { emptyUsage, type ChatMessage, type Usage } from "../src/core/messages.js";
import type {
  AsyncCallState,
  InboxItem,
  ThreadActivities,
  ThreadCarry,
  ThreadFailure,
  ThreadInput,
  ThreadMessage,
  ThreadPrepared,
  ThreadPrepareOutput,
  ThreadResumeReply,
  ThreadResumeRequest,
  ThreadSendReply,
  ThreadSendRequest,
  ThreadSnapshot,
  ThreadStatus,
  ThreadStatusChange,
  ThreadStopReply,
  ThreadToolResultRequest,
} from "../src/core/thread-contracts.js";
import {
  threadDeleteUpdate,
  threadMessagesQuery,
  threadResumeUpdate,
  threadSendUpdate,
  threadSnapshotQuery,
  threadStopUpdate,
  threadStreamQuery,
  threadStreamSignal,
  threadToolResultUpdate,
  threadTranscriptQuery,
} from "../src/core/wire/thread.js";
import { StreamLog } from "./thread-stream-log.js";
import { findToolCall, messageProblem, needsAnswer, openToolCalls, toChat } from "../src/core/thread-transcript.js";

/** Result the model sees for a call the thread gave up on when the user moved on. */
export const MOVED_ON = "Error: this call got no result: the thread moved on to a new message before it finished.";

/** The most messages one listMessages page returns. */
const MAX_PAGE = 1000;

// Hooks run in line with the thread's other local activities: a failing one gives up soon.
const { threadStatusChanged } = proxyLocalActivities<ThreadActivities>({
  startToCloseTimeout: "10s",
  retry: { maximumAttempts: 3, initialInterval: "200ms" },
});

/** A tool call of the current turn that has an activity in flight. */
interface RunningCall {
  activityId: string;
  kind: "sync" | "async";
  maxAttempts: number;
}

/**
 * A thread's state inside its workflow, and every handler that reads or changes it.
 * Handlers only change state synchronously (none waits), so continue-as-new never has
 * to wait for one; the turn itself runs in `thread.ts`.
 */
export class ThreadState {
  readonly threadId: string;
  readonly firstRunId: string;
  readonly agentId: string;
  readonly principal: Principal | undefined;
  readonly streamEnabled: boolean;
  readonly maxHistoryEvents: number | undefined;
  status: ThreadStatus;
  /** Stopped or failed: nothing runs, and the inbox waits, until resume or a new message. */
  halted: boolean;
  readonly messages: ThreadMessage[];
  readonly inbox: InboxItem[];
  readonly asyncCalls: Map<string, AsyncCallState>;
  /**
   * Results that came in before an earlier call of the same batch had its own: they join
   * the transcript in the model's call order, whatever order the tools finish in.
   */
  readonly held: Map<string, string>;
  readonly running = new Map<string, RunningCall>();
  modelCall: { activityId: string; messageId: string } | undefined;
  turnSteps: number;
  modelCalls: number;
  usage: Usage;
  lastError: ThreadFailure | undefined;
  readonly generation: number;
  readonly stream: StreamLog;
  readonly createdAt: string;
  updatedAt: string;
  /** Transcript length the worker already has (through a previous model call, its cache or a query). */
  sentLength: number;
  /** The agent as the worker described it at the start of the current turn. */
  prepared: ThreadPrepared | undefined;
  /** The last description this run got, kept so an unchanged one need not be recorded again. */
  lastPrepared: ThreadPrepared | undefined;
  turnScope: CancellationScope | undefined;
  deleteRequested = false;
  /**
   * Local activities (preparation, status hooks) run one at a time, in order: replay
   * resolves local activities in the order they were scheduled, so two in flight at once
   * could resolve differently on replay than they did live. Continue-as-new and delete
   * wait for the last.
   */
  localChain: Promise<unknown> = Promise.resolve();
  /** Whether the worker has a status hook; unknown until this run's first preparation. */
  #statusHook: boolean | undefined;
  #unannounced: ThreadStatusChange[] = [];

  constructor(input: ThreadInput) {
    const info = workflowInfo();
    this.threadId = info.workflowId;
    this.firstRunId = info.firstExecutionRunId;
    this.agentId = input.agentId;
    this.principal = input.principal;
    this.streamEnabled = input.stream ?? true;
    this.maxHistoryEvents = input.maxHistoryEvents;
    const carried = input.carried;
    const now = new Date(Date.now()).toISOString();
    if (carried) {
      this.status = carried.status;
      this.halted = carried.halted;
      this.messages = carried.messages;
      this.inbox = carried.inbox;
      this.asyncCalls = new Map(carried.asyncCalls.map((c) => [c.toolCallId, c]));
      this.held = new Map((carried.held ?? []).map((r) => [r.toolCallId, r.content]));
      this.turnSteps = carried.turnSteps;
      this.modelCalls = carried.modelCalls;
      this.usage = carried.usage;
      this.lastError = carried.lastError;
      this.generation = carried.generation + 1;
      this.stream = new StreamLog(carried.stream, carried.messages);
      this.createdAt = carried.createdAt;
      this.updatedAt = carried.updatedAt;
      // The worker's cache outlives the run, and a miss reads the transcript by query:
      // the first model call of a new run must not carry the whole thread.
      this.sentLength = carried.messages.length;
    } else {
      this.status = "idle";
      this.halted = false;
      this.messages = (input.messages ?? []).map((m) => ({ ...m, id: uuid4(), createdAt: now }));
      this.sentLength = this.messages.length;
      if (input.prompt) this.messages.push({ role: "user", content: input.prompt.content, id: input.prompt.id, createdAt: now });
      this.inbox = [];
      this.asyncCalls = new Map();
      this.held = new Map();
      this.turnSteps = 0;
      this.modelCalls = 0;
      this.usage = emptyUsage();
      this.lastError = undefined;
      this.generation = 0;
      this.stream = new StreamLog();
      this.createdAt = now;
      this.updatedAt = now;
    }
    this.modelCall = undefined;
    this.prepared = undefined;
    this.lastPrepared = undefined;
    this.turnScope = undefined;
    if (!carried && (input.autoStart ?? true)) {
      // Before the handlers exist: a message sent right after createThread must find the first turn running.
      const work = this.pendingWork();
      if (work) {
        this.beginTurn();
        this.setStatus(work);
      }
    }
    this.#register();
  }

  /** Runs a local activity after those already queued. */
  local<T>(run: () => Promise<T>): Promise<T> {
    const next = this.localChain.then(run);
    this.localChain = next.catch(() => undefined);
    return next;
  }

  // ----- reading ------------------------------------------------------------------------

  /** A turn is in progress (its model call or tools run, or async results are awaited). */
  turnActive(): boolean {
    return this.status === "streaming" || this.status === "awaiting_tool_results";
  }

  /** What the transcript still asks for: tools to run or a message to answer. */
  pendingWork(): "awaiting_tool_results" | "streaming" | undefined {
    if (openToolCalls(this.messages).length > 0) return "awaiting_tool_results";
    return needsAnswer(this.messages) ? "streaming" : undefined;
  }

  canTakeNext(): boolean {
    return !this.turnActive() && !this.halted && this.inbox.length > 0;
  }

  /** Temporal suggests a new run, or the configured event budget is spent. */
  rolloverDue(): boolean {
    const info = workflowInfo();
    // A fresh run always makes progress before it rolls over again.
    if (info.historyLength < 20) return false;
    return info.continueAsNewSuggested || (this.maxHistoryEvents !== undefined && info.historyLength >= this.maxHistoryEvents);
  }

  snapshot(): ThreadSnapshot {
    return {
      threadId: this.threadId,
      agentId: this.agentId,
      status: this.status,
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
      ...(this.principal ? { principal: this.principal } : {}),
      messageCount: this.messages.length,
      queued: this.inbox.map((i) => ({ id: i.id, kind: i.kind, at: i.at })),
      toolCalls: openToolCalls(this.messages).map((call) => {
        const running = this.running.get(call.id);
        const waiting = this.asyncCalls.get(call.id);
        const async = running?.kind === "async" || waiting !== undefined || this.prepared?.tools[call.function.name]?.async === true;
        const maxAttempts = running?.maxAttempts ?? this.prepared?.tools[call.function.name]?.maxAttempts;
        return {
          toolCallId: call.id,
          name: call.function.name,
          kind: async ? "async" : "sync",
          state: this.held.has(call.id) ? "answered" : running ? "running" : waiting?.callbackDone ? "waiting" : "pending",
          ...(running ? { activityId: running.activityId } : {}),
          ...(maxAttempts !== undefined ? { maxAttempts } : {}),
        };
      }),
      ...(this.modelCall ? { modelCall: this.modelCall } : {}),
      ...(this.lastError ? { lastError: this.lastError } : {}),
      usage: this.usage,
      modelCalls: this.modelCalls,
      generation: this.generation,
      lastSeq: this.stream.lastSeq,
      stream: this.streamEnabled,
      deleted: this.deleteRequested,
    };
  }

  carry(): ThreadCarry {
    return {
      status: this.status,
      halted: this.halted,
      messages: this.messages,
      inbox: this.inbox,
      asyncCalls: [...this.asyncCalls.values()],
      held: [...this.held].map(([toolCallId, content]) => ({ toolCallId, content })),
      turnSteps: this.turnSteps,
      modelCalls: this.modelCalls,
      usage: this.usage,
      ...(this.lastError ? { lastError: this.lastError } : {}),
      generation: this.generation,
      stream: this.stream.carry(),
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
    };
  }

  // ----- changing -----------------------------------------------------------------------

  /** Every transition goes through here: the stream, `updatedAt` and the status hook see it. */
  setStatus(next: ThreadStatus): void {
    if (next === this.status) return;
    const previousStatus = this.status;
    const at = this.#now();
    this.status = next;
    this.updatedAt = at;
    this.stream.status(next, previousStatus, at);
    this.#announce({ threadId: this.threadId, agentId: this.agentId, status: next, previousStatus, at });
  }

  /** Records what the worker said about the agent; announces transitions held back until now. */
  prepare(answer: ThreadPrepareOutput): void {
    const prepared = "unchanged" in answer ? this.lastPrepared! : answer;
    this.prepared = prepared;
    this.lastPrepared = prepared;
    this.#statusHook = prepared.statusHook;
    const held = this.#unannounced.splice(0);
    for (const change of held) this.#announce(change);
  }

  append(message: ChatMessage, id: string = uuid4()): ThreadMessage {
    const stored = { ...message, id, createdAt: this.#now() } as ThreadMessage;
    this.messages.push(stored);
    if (stored.role === "assistant" && this.stream.streamingMessageId === id) this.stream.end();
    this.stream.push({ type: "message", message: stored });
    this.updatedAt = stored.createdAt;
    return stored;
  }

  /** Takes the next inbox item into the transcript; a `message` starts a turn. */
  takeNext(): void {
    const item = this.inbox.shift();
    if (!item) return;
    this.closeOpenCalls(MOVED_ON);
    this.append(item.message, item.id);
    if (item.kind === "message") {
      this.beginTurn();
      this.setStatus("streaming");
    }
  }

  /** A turn starts (or restarts): a fresh step budget and a fresh look at the agent. */
  beginTurn(): void {
    this.turnSteps = 0;
    this.prepared = undefined;
    this.lastError = undefined;
  }

  /** Gives every open call a result (its own if it came in) so the transcript stays valid for the model. */
  closeOpenCalls(content: string): void {
    for (const call of openToolCalls(this.messages)) {
      this.append({ role: "tool", tool_call_id: call.id, content: this.held.get(call.id) ?? content });
      this.held.delete(call.id);
      this.asyncCalls.delete(call.id);
    }
  }

  /** True once the call has its result, in the transcript or held for its turn. */
  answered(toolCallId: string): boolean {
    return this.held.has(toolCallId) || findToolCall(this.messages, toolCallId)?.answered === true;
  }

  /** Lands a call's result, in call order; false when it already had one (an async result can beat its callback). */
  answer(toolCallId: string, content: string): boolean {
    if (this.answered(toolCallId) || !openToolCalls(this.messages).some((c) => c.id === toolCallId)) return false;
    this.held.set(toolCallId, content);
    this.asyncCalls.delete(toolCallId);
    for (const call of openToolCalls(this.messages)) {
      const result = this.held.get(call.id);
      if (result === undefined) break;
      this.held.delete(call.id);
      this.append({ role: "tool", tool_call_id: call.id, content: result });
    }
    return true;
  }

  /** The turn failed: the thread halts with the error until resume or a new message. */
  fail(failure: Omit<ThreadFailure, "at">): void {
    this.lastError = { ...failure, at: this.#now() };
    this.halted = true;
    this.stream.reset("failed");
    this.setStatus("failed");
  }

  // ----- handlers -----------------------------------------------------------------------

  #register(): void {
    setHandler(threadSnapshotQuery, () => this.snapshot());
    setHandler(threadMessagesQuery, ({ offset, limit }) => {
      const from = Math.max(0, Math.floor(Number(offset) || 0));
      const size = Math.min(MAX_PAGE, Math.max(1, Math.floor(Number(limit) || 100)));
      return { messages: this.messages.slice(from, from + size), total: this.messages.length };
    });
    setHandler(threadStreamQuery, ({ fromSeq }) => this.stream.since(this.threadId, this.status, Number(fromSeq)));
    setHandler(threadTranscriptQuery, ({ length }) => this.messages.slice(0, length).map(toChat));
    setHandler(threadStreamSignal, (flush) => this.stream.accept(flush));

    setHandler(threadSendUpdate, (request) => this.#send(request), { validator: (request) => this.#validateSend(request) });
    setHandler(threadResumeUpdate, (request) => this.#resume(request), { validator: (request) => this.#validateResume(request) });
    setHandler(threadStopUpdate, () => this.#stop(), { validator: () => this.#assertAlive() });
    setHandler(threadToolResultUpdate, (request) => this.#toolResult(request), {
      validator: (request) => this.#validateToolResult(request),
    });
    setHandler(
      threadDeleteUpdate,
      () => {
        this.deleteRequested = true;
        this.turnScope?.cancel();
        return { deleted: true as const };
      },
      { validator: () => this.#assertAlive() },
    );
  }

  // Validators refuse cheaply: a refused update leaves nothing in history.
  #assertAlive(): void {
    if (this.deleteRequested) throw new ThreadNotFoundError({ threadId: this.threadId }).toFailure();
  }

  #validateSend(request: ThreadSendRequest): void {
    this.#assertAlive();
    const problem =
      typeof request?.id !== "string" || request.id === ""
        ? "the message id must be a non-empty string"
        : request.kind !== "message" && request.kind !== "add"
          ? "kind must be message or add"
          : request.kind === "message" && request.message?.role !== "user"
            ? "sendMessage sends a user message"
            : messageProblem(request.message, false);
    if (problem) throw new ThreadMessageInvalidError({ threadId: this.threadId, problem }).toFailure();
  }

  #send(request: ThreadSendRequest): ThreadSendReply {
    // A retried call (same id) changes nothing and gets the first answer again.
    const queuedIndex = this.inbox.findIndex((i) => i.id === request.id);
    if (queuedIndex >= 0 || this.messages.some((m) => m.id === request.id)) {
      return { messageId: request.id, queued: queuedIndex >= 0, duplicate: true };
    }
    if (request.kind === "message" && this.halted) {
      // A new message after a stop or failure moves on: open calls get a result, the
      // thread runs again (resumeThread is the way to continue the interrupted turn).
      this.closeOpenCalls(MOVED_ON);
      this.halted = false;
    }
    const at = this.#now();
    if (request.kind === "add" && !this.turnActive() && this.inbox.length === 0 && openToolCalls(this.messages).length === 0) {
      this.append(request.message, request.id);
      return { messageId: request.id, queued: false, duplicate: false };
    }
    this.inbox.push({ id: request.id, kind: request.kind, message: request.message, at });
    return { messageId: request.id, queued: this.turnActive() || this.halted || this.inbox.length > 1, duplicate: false };
  }

  #validateResume(request: ThreadResumeRequest): void {
    this.#assertAlive();
    const prompt = request?.prompt;
    if (prompt !== undefined && (typeof prompt?.content !== "string" || typeof prompt.id !== "string" || prompt.id === "")) {
      throw new ThreadMessageInvalidError({ threadId: this.threadId, problem: "the prompt must be a string" }).toFailure();
    }
    if (this.turnActive() || prompt) return;
    if (this.pendingWork() || (this.halted && this.inbox.length > 0)) return;
    throw new ThreadNotResumableError({ threadId: this.threadId, status: this.status }).toFailure();
  }

  #resume(request: ThreadResumeRequest): ThreadResumeReply {
    const previousStatus = this.status;
    const prompt = request.prompt;
    if (this.turnActive()) {
      // Already running: the prompt waits its turn like any message sent now.
      if (prompt && !this.inbox.some((i) => i.id === prompt.id)) {
        this.inbox.push({ id: prompt.id, kind: "message", message: { role: "user", content: prompt.content }, at: this.#now() });
      }
      return { status: this.status, previousStatus };
    }
    if (prompt && !this.messages.some((m) => m.id === prompt.id)) {
      const message: ChatMessage = { role: "user", content: prompt.content };
      // A user message cannot sit between tool calls and their results: it follows the resumed turn.
      if (openToolCalls(this.messages).length > 0) this.inbox.push({ id: prompt.id, kind: "message", message, at: this.#now() });
      else this.append(message, prompt.id);
    }
    this.halted = false;
    const next = this.pendingWork();
    if (next) {
      this.beginTurn();
      this.setStatus(next);
    }
    return { status: this.status, previousStatus };
  }

  #stop(): ThreadStopReply {
    const previousStatus = this.status;
    if (!this.turnActive()) return { status: this.status, previousStatus };
    this.halted = true;
    this.stream.reset("stopped");
    this.setStatus("stopped");
    // Cancels the model request and running tools; the activities see it at their next heartbeat.
    this.turnScope?.cancel();
    return { status: this.status, previousStatus };
  }

  #validateToolResult(request: ThreadToolResultRequest): void {
    this.#assertAlive();
    const toolCallId = String(request?.toolCallId);
    const hasResult = request !== null && typeof request === "object" && "result" in request && request.result !== undefined;
    const hasError = typeof request?.error === "string";
    if (hasResult === hasError) {
      throw new ThreadMessageInvalidError({ threadId: this.threadId, problem: "give exactly one of result and error" }).toFailure();
    }
    if (hasResult) {
      const problem = plainJsonProblem(request.result);
      if (problem) throw new ThreadMessageInvalidError({ threadId: this.threadId, problem: `result is not plain JSON at ${problem.path}: ${problem.problem}` }).toFailure();
    }
    const found = findToolCall(this.messages, toolCallId);
    if (!found) {
      throw new ToolCallNotFoundError({ threadId: this.threadId, toolCallId, reason: "no call with this id" }).toFailure();
    }
    if (this.answered(toolCallId)) throw new ToolResultDuplicateError({ threadId: this.threadId, toolCallId }).toFailure();
    if (!this.asyncCalls.has(toolCallId)) {
      throw new ToolCallNotFoundError({ threadId: this.threadId, toolCallId, reason: `it is a call of the sync tool "${found.call.function.name}", whose handler returns its result` }).toFailure();
    }
  }

  #toolResult(request: ThreadToolResultRequest): { status: "accepted" } {
    const content =
      typeof request.error === "string" ? `Error: ${request.error}` : typeof request.result === "string" ? request.result : JSON.stringify(request.result);
    if (!this.answer(request.toolCallId, content)) {
      throw new ToolResultDuplicateError({ threadId: this.threadId, toolCallId: request.toolCallId }).toFailure();
    }
    return { status: "accepted" };
  }

  #announce(change: ThreadStatusChange): void {
    if (this.#statusHook === undefined) {
      // Nobody knows yet whether the worker has a hook: hold it until the turn's preparation says.
      this.#unannounced.push(change);
      return;
    }
    if (!this.#statusHook) return;
    // In order, at least once, outside any turn scope: a stop must not cancel its own announcement.
    void this.local(() => CancellationScope.nonCancellable(() => threadStatusChanged(change))).catch(() => undefined);
  }

  #now(): string {
    return new Date(Date.now()).toISOString();
  }
}
