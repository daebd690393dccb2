/**
 * One thread as a page sees it, kept current over the event stream: the state behind
 * `useThreadMessages` and `useAgentChat` (an external store for `useSyncExternalStore`),
 * usable without React too.
 */
import { responseDecisions, uniformDecisions, type RespondOptions } from "../core/approval.js";
import { emptyFold, foldStreamUpdates, withStoredMessages, withStoredTranscript, type ThreadFold } from "../core/stream-fold.js";
import type { PendingApproval, StreamUpdate, ThreadMessage, ThreadResumeReply, ThreadSendReply, ThreadStatus, ThreadStopReply } from "../core/thread-contracts.js";
import { toUIMessages } from "../core/ui-messages.js";
import type { ThreadView, ToolResultReply } from "../client/threads/thread-types.js";
import type { ResumeResult } from "../client/resume.js";
import { withApprovalStates, type ApprovalChatUIMessage } from "./approval-parts.js";
import { asChatError, type ChatError, FATAL_CODES } from "./chat-error.js";
import type { Duration } from "@temporalio/common";
import type { AddToolErrorOptions, AddToolResultOptions, ResumeThreadOptions, SendMessageOptions } from "../client/threads/thread-types.js";
import type { DecideOptions } from "../client/shared-options.js";
import { AgentHttpClient, everyMessage, type AgentHttpClientOptions } from "./agent-http-client.js";

export interface ThreadStoreOptions extends AgentHttpClientOptions {
  threadId: string;
  /** Leave system messages out (default true, as `listMessages` does). */
  excludeSystemMessages?: boolean;
  /** Reconnect when the stream sent nothing (not even a keep-alive) this long. Default `"45s"` (the front door's keep-alive comes every 15 s). */
  staleAfter?: Duration;
}

/** What a `ThreadStore` holds: the thread as the page shows it. */
export interface ThreadStoreState {
  threadId: string;
  /**
   * The conversation in the AI SDK's `UIMessage` shape, the answer being written included;
   * a gated tool's call waiting for a decision is in `approval-requested`, a rejected one in `output-denied`.
   */
  messages: ApprovalChatUIMessage[];
  /** Approval requests the thread waits on (a gated tool's calls), live from the stream: decide with `approve`, `reject` or `decide`. */
  approvals: PendingApproval[];
  /** `GET /threads/:id`, refreshed on every status change (open tool calls, last error, queue); null until loaded. */
  thread: ThreadView | null;
  status: ThreadStatus;
  /** True until the first load is done. */
  isLoading: boolean;
  /** True while the event stream is open. */
  isConnected: boolean;
  /** The last failure (a refused request, an unreadable event); cleared by the next success. */
  error: ChatError | undefined;
  /** The stored messages and draft the UI messages are built from (see `foldStreamUpdates`). */
  fold: ThreadFold;
}

const RETRY_MS = [250, 500, 1000, 2000, 4000];

/**
 * Loads the thread (its state, then every stored message), then follows its events. The
 * first connection asks for the stream's whole recent window (`Last-Event-ID` omitted), so
 * a page opened or reloaded mid-answer gets the deltas written so far; every later
 * connection continues after the last seq applied, and entries at or below it are skipped,
 * so no chunk is applied twice and none is missed. A stop's `reset` drops the partial answer.
 */
export class ThreadStore {
  /** The front door's client the store reads and acts through. */
  readonly http: AgentHttpClient;
  readonly threadId: string;
  #state: ThreadStoreState;
  #listeners = new Set<() => void>();
  #ac: AbortController | undefined;
  #wake: (() => void) | undefined;
  #refresh: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: ThreadStoreOptions) {
    this.threadId = options.threadId;
    this.http = new AgentHttpClient(options);
    const fold = emptyFold();
    this.#state = { threadId: options.threadId, messages: [], approvals: [], thread: null, status: fold.status, isLoading: true, isConnected: false, error: undefined, fold };
  }

  getSnapshot = (): ThreadStoreState => this.#state;

  /** Starts following on the first subscriber and stops after the last leaves. */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    if (this.#listeners.size === 1) this.#start();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stop();
    };
  };

  // ---- actions: each goes through the thread's routes, named as a `ThreadHandle`'s; the stream shows their effect ----

  /** Sends a message (a turn, or queued behind the running one); its id is made here unless given, so a retried send is sent once. */
  sendMessage = (options: SendMessageOptions): Promise<ThreadSendReply> =>
    this.#act(() => this.http.threads.sendMessage({ ...options, threadId: this.threadId, messageId: options.messageId ?? newId() }));
  /** Stops the turn: the model request and tools are aborted, the partial answer dropped. */
  stopThread = (): Promise<ThreadStopReply> => this.#act(() => this.http.threads.stopThread({ threadId: this.threadId }));
  /** Continues a stopped or failed turn, or moves on with `prompt`. */
  resumeThread = (options: ResumeThreadOptions = {}): Promise<ThreadResumeReply> => this.#act(() => this.http.threads.resumeThread({ ...options, threadId: this.threadId }));
  /** Answers an async tool call; `answerToken` is the one its callback handed out (see docs/threads.md). */
  addToolResult = (options: AddToolResultOptions): Promise<ToolResultReply> => this.#act(() => this.http.threads.addToolResult({ ...options, threadId: this.threadId }));
  /** Fails an async tool call; the model sees the error. */
  addToolError = (options: AddToolErrorOptions): Promise<ToolResultReply> => this.#act(() => this.http.threads.addToolError({ ...options, threadId: this.threadId }));
  /** Decides an approval request of the thread, one decision per call it lists (by call id, or a list). An edited `input` must fit the tool's schema (RC5049). */
  decide = (options: DecideOptions): Promise<ResumeResult> => this.#act(() => this.http.threads.decide({ ...options, threadId: this.threadId }));
  /** Approves every call of a request still waiting, or those `toolCallIds` names (the others wait); `note` is kept on the record. */
  approve = (options: { approvalId: string; toolCallIds?: string[]; note?: string }): Promise<ResumeResult> =>
    this.decide({ approvalId: options.approvalId, decisions: uniformDecisions(options.toolCallIds ?? this.#callsOf(options.approvalId), true, options) });
  /** Rejects every call of a request still waiting, or those `toolCallIds` names (the others wait): none runs, and the model reads `reason`. */
  reject = (options: { approvalId: string; toolCallIds?: string[]; reason?: string }): Promise<ResumeResult> =>
    this.decide({ approvalId: options.approvalId, decisions: uniformDecisions(options.toolCallIds ?? this.#callsOf(options.approvalId), false, options) });
  /**
   * Answers in the tools' place: each call `results` names gets that result (checked against
   * its tool's `resultSchema`, RC5049) and its tool never runs; the request's other calls are
   * rejected with `reason`.
   */
  respond = (options: RespondOptions): Promise<ResumeResult> => this.decide({ approvalId: options.approvalId, decisions: responseDecisions(this.#callsOf(options.approvalId), options) });

  /** The calls of a request the thread lists as still waiting; none for one it does not list (the thread then says why: decided, withdrawn, unknown). */
  #callsOf(approvalId: string): string[] {
    const request = this.#state.approvals.find((a) => a.approvalId === approvalId);
    return request?.calls.map((c) => c.toolCallId).filter((id) => !request.decided?.includes(id)) ?? [];
  }

  async #act<T>(action: () => Promise<T>): Promise<T> {
    try {
      const result = await action();
      if (this.#state.error) this.#set({ error: undefined });
      return result;
    } catch (err) {
      this.#set({ error: asChatError(err) });
      throw err;
    }
  }

  // ---- following ----

  #start(): void {
    const ac = (this.#ac = new AbortController());
    const wakeUp = () => this.#wake?.();
    // A tab coming back (or the network) should not wait out a backoff.
    if (typeof document !== "undefined") document.addEventListener("visibilitychange", wakeUp);
    if (typeof window !== "undefined") window.addEventListener("online", wakeUp);
    ac.signal.addEventListener("abort", () => {
      if (typeof document !== "undefined") document.removeEventListener("visibilitychange", wakeUp);
      if (typeof window !== "undefined") window.removeEventListener("online", wakeUp);
      wakeUp();
    });
    void this.#follow(ac.signal);
  }

  #stop(): void {
    this.#ac?.abort();
    this.#ac = undefined;
    clearTimeout(this.#refresh);
    this.#set({ isConnected: false });
  }

  async #follow(signal: AbortSignal): Promise<void> {
    let failures = 0;
    let loaded = false;
    while (!signal.aborted) {
      try {
        if (!loaded) {
          await this.#load(signal);
          loaded = true;
        }
        const firstConnection = this.#state.fold.lastSeq === 0;
        let progressed = false;
        const events = this.http.threads.events({ threadId: this.threadId, fromSeq: this.#state.fold.lastSeq, signal, ...(this.options.staleAfter !== undefined ? { staleAfter: this.options.staleAfter } : {}) });
        for await (const event of events) {
          if (!this.#state.isConnected) this.#set({ isConnected: true });
          if (event.kind === "update") {
            this.#apply([event.update]);
            progressed = true;
          } else if (event.kind === "truncated") {
            // The first connection asks for the window on purpose: the messages were just read.
            if (!firstConnection) this.#set({ fold: withStoredMessages(this.#state.fold, await this.#stored(signal)) });
          } else {
            this.#set({ error: event.error });
            if (FATAL_CODES.has(event.error.code)) return this.#set({ isConnected: false });
          }
        }
        if (progressed) failures = 0;
      } catch (err) {
        if (signal.aborted) return;
        const error = asChatError(err);
        this.#set({ error, isConnected: false, isLoading: false });
        if (FATAL_CODES.has(error.code)) return;
      }
      if (signal.aborted) return;
      this.#set({ isConnected: false });
      await this.#pause(RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]!);
    }
  }

  async #load(signal: AbortSignal): Promise<void> {
    const thread = await this.http.threads.state({ threadId: this.threadId, signal });
    const stored = await this.#stored(signal);
    // The requests waiting now: the stream's window may no longer hold the entry that announced one.
    const fold = withStoredMessages({ ...this.#state.fold, status: thread.status, approvals: thread.approvals ?? [] }, stored);
    this.#set({ thread, fold, isLoading: false, error: undefined });
  }

  /** Every stored message, as the store shows them (system messages left out unless asked for). */
  #stored(signal: AbortSignal): Promise<ThreadMessage[]> {
    const excludeSystemMessages = this.options.excludeSystemMessages ?? true;
    return everyMessage((page) => this.http.threads.listMessages({ ...page, threadId: this.threadId, excludeSystemMessages, signal }));
  }

  #apply(updates: StreamUpdate[]): void {
    const fold = foldStreamUpdates(this.#state.fold, updates);
    if (fold === this.#state.fold) return;
    this.#set({ fold, ...(this.#state.error?.code === "AI1060" ? { error: undefined } : {}) });
    // A status change changes what the thread's state shows (open tool calls, lastError): read it again, once per burst.
    if (updates.some((u) => u.type === "status")) this.#scheduleRefresh();
    // A compaction put a summary among the stored messages, which no entry carries: read them again (rare: once per compaction).
    if (updates.some((u) => u.type === "compacted")) this.#reread();
  }

  #reread(): void {
    const signal = this.#ac?.signal;
    if (!signal || signal.aborted) return;
    this.#stored(signal).then(
      (stored) => this.#set({ fold: withStoredTranscript(this.#state.fold, stored) }),
      () => undefined, // a missed read shows the summary at the next load; nothing is lost meanwhile
    );
  }

  #scheduleRefresh(): void {
    clearTimeout(this.#refresh);
    this.#refresh = setTimeout(() => {
      const signal = this.#ac?.signal;
      if (!signal || signal.aborted) return;
      this.http.threads.state({ threadId: this.threadId, signal }).then(
        (thread) => this.#set({ thread }),
        () => undefined, // the stream reports what matters; a missed refresh is retried on the next change
      );
    }, 50);
  }

  async #pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = undefined;
  }

  #set(patch: Partial<ThreadStoreState>): void {
    const next = { ...this.#state, ...patch };
    if (patch.fold) {
      next.status = patch.fold.status;
      next.approvals = patch.fold.approvals ?? [];
      const messages = toUIMessages(patch.fold.messages, {
        ...(patch.fold.draft ? { draft: patch.fold.draft } : {}),
        ...(patch.fold.progress ? { progress: patch.fold.progress } : {}),
        excludeSystemMessages: this.options.excludeSystemMessages ?? true,
      });
      next.messages = withApprovalStates(messages, next.approvals);
    }
    this.#state = next;
    for (const listener of this.#listeners) listener();
  }
}

const newId = (): string => (globalThis.crypto?.randomUUID ? globalThis.crypto.randomUUID() : `m-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`);
