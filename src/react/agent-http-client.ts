/**
 * The HTTP front door (`durable-agents/http`) as a browser calls it: its run, thread and
 * approval routes, with the verbs and option names of `AgentClient`, `agents.threads` and
 * `agents.approvals`. Only those routes: no second protocol. Every answer is checked before
 * it is used; what cannot be read becomes a `ChatError` (AI1060), an error answer the front
 * door's `{ error: { code, message } }` as a `ChatError` with that code. The caller is whoever
 * the front door authenticates (headers, cookies): no option names a principal.
 */
import type { Duration } from "@temporalio/common";
import { durationMs } from "../core/duration.js";
import type { RunMessagePage, RunState } from "../core/run-state.js";
import type { StreamUpdate, ThreadResumeReply, ThreadSendReply, ThreadStatus, ThreadStopReply } from "../core/thread-contracts.js";
import { asStreamUpdate, isThreadMessage, isThreadStatus } from "../core/stream-fold.js";
import type { ApprovalDetail, ApprovalSummary, ListApprovalsOptions } from "../client/approval-inbox.js";
import type { ResumeResult } from "../client/resume.js";
import type { CancelOptions } from "../client/agent-client.js";
import type { DecideOptions, ListMessagesOptions, StreamUpdatesOptions } from "../client/shared-options.js";
import type {
  AddToolErrorOptions,
  AddToolResultOptions,
  ListThreadMessagesOptions,
  ListThreadsOptions,
  MessagePage,
  ResumeThreadOptions,
  SendMessageOptions,
  ThreadSummary,
  ThreadView,
  ToolResultReply,
} from "../client/threads/thread-types.js";
import { ChatError } from "./chat-error.js";
import { readSse } from "./sse.js";

/** Where the front door is and how to reach it. */
export interface AgentHttpClientOptions {
  /**
   * The front door's URL including its `basePath` (e.g. `"/agents"` or
   * `"https://api.example.com/agents"`). Default: the page's origin, no base path.
   */
  baseUrl?: string;
  /** The `fetch` to call (a wrapper that adds auth, a test double). Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Headers sent with every request (e.g. `authorization`); a function is asked per request. */
  headers?: HeadersInit | (() => HeadersInit);
}

/** What every call may take: a signal that aborts its request. */
export interface HttpCallOptions {
  signal?: AbortSignal;
}

/** `start` (`POST /runs`): the agent, the prompt, and the run's options the front door takes. */
export interface HttpStartOptions {
  /** The agent's id. */
  agent: string;
  prompt: string;
  /** The run's id: starting it again attaches to the run that has it. Random when absent. */
  runId?: string;
  /** Cancels the run (AI1005) if it has not finished this long after it started, e.g. `"7d"`. */
  timeout?: Duration;
  /** Stream each answer's deltas to the run's `events` readers. */
  stream?: boolean;
}

/** `events` of a run or a thread: where to start, when to stop, and when to give up on a silent connection. */
export interface HttpEventsOptions extends StreamUpdatesOptions {
  /** Ends the stream (quietly). */
  signal: AbortSignal;
  /**
   * Ends the stream when nothing (not even a keep-alive) arrived this long: a tab that slept
   * with its connection half-open. The caller reconnects from its last seq. Default `"45s"`
   * (the front door's keep-alive comes every 15 s).
   */
  staleAfter?: Duration;
}

/** What `approvals.list` asks for: the filters of `agents.approvals.list`. */
export type HttpListApprovalsOptions = Omit<ListApprovalsOptions, "principal"> & HttpCallOptions;

/** One entry of an event stream, or a control event. */
export type StreamEvent =
  | { kind: "update"; update: StreamUpdate }
  | { kind: "truncated"; lastSeq: number }
  | { kind: "error"; error: ChatError };

/** The front door's thread routes (`/threads`), as `agents.threads` names them. */
export interface ThreadsHttpClient {
  /** `POST /threads`. */
  createThread(options?: { threadId?: string; prompt?: string; agent?: string; autoStart?: boolean; stream?: boolean } & HttpCallOptions): Promise<{ threadId: string; messageId?: string }>;
  /** `GET /threads`: the threads the caller may see, newest first. */
  listThreads(options?: Omit<ListThreadsOptions, "principal"> & HttpCallOptions): Promise<{ threads: ThreadSummary[]; cursor?: string }>;
  /** `GET /threads/:id`. */
  state(options: { threadId: string } & HttpCallOptions): Promise<ThreadView>;
  /** `GET /threads/:id/messages`: one page, oldest first. */
  listMessages(options: { threadId: string } & ListThreadMessagesOptions & HttpCallOptions): Promise<MessagePage>;
  /** `POST /threads/:id/messages`. */
  sendMessage(options: { threadId: string } & SendMessageOptions & HttpCallOptions): Promise<ThreadSendReply>;
  /** `POST /threads/:id/stop`. */
  stopThread(options: { threadId: string } & HttpCallOptions): Promise<ThreadStopReply>;
  /** `POST /threads/:id/resume`. */
  resumeThread(options: { threadId: string } & ResumeThreadOptions & HttpCallOptions): Promise<ThreadResumeReply>;
  /** `DELETE /threads/:id`. */
  deleteThread(options: { threadId: string } & HttpCallOptions): Promise<{ deleted: true }>;
  /** `POST /threads/:id/tool-calls/:toolCallId/result`. */
  addToolResult(options: { threadId: string } & AddToolResultOptions & HttpCallOptions): Promise<ToolResultReply>;
  /** `POST /threads/:id/tool-calls/:toolCallId/error`. */
  addToolError(options: { threadId: string } & AddToolErrorOptions & HttpCallOptions): Promise<ToolResultReply>;
  /** `POST /threads/:id/approvals/:approvalId`: decides the thread's request, one decision per call it lists. The thread answers at once; the stream shows the rest. */
  decide(options: { threadId: string } & DecideOptions & HttpCallOptions): Promise<ResumeResult>;
  /**
   * `GET /threads/:id/events` from `fromSeq` (sent as `Last-Event-ID`) until the server
   * closes, `signal` aborts, or `staleAfter` passes without a byte: the caller reconnects
   * from its last seq. An event it cannot read is yielded as an AI1060 error and ends this
   * connection, so the caller reconnects from the last entry it applied and nothing is skipped.
   */
  events(options: { threadId: string } & HttpEventsOptions): AsyncGenerator<StreamEvent>;
}

/** The front door's inbox routes (`/approvals`), as `agents.approvals` names them. */
export interface ApprovalsHttpClient {
  /** `GET /approvals`: a page of the requests of runs and threads the caller may see. */
  list(options?: HttpListApprovalsOptions): Promise<{ approvals: ApprovalSummary[]; cursor?: string }>;
  /** `GET /approvals/:id`: the request, who the run acts for (`actsFor`) and, when `authorize` allows `approval.context`, why the agent asks (`context`). */
  get(options: { approvalId: string } & HttpCallOptions): Promise<ApprovalDetail>;
  /** `POST /approvals/:id`: decides a request by its id; `shown` (its `callFingerprint`) refuses the decision if the calls changed since (RC5058). */
  decide(options: DecideOptions & HttpCallOptions): Promise<ResumeResult>;
}

/**
 * A client of the front door for browser code: its run routes (`/runs`) as `AgentClient`
 * names them, `threads` and `approvals` as `agents.threads` and `agents.approvals` do. Cheap
 * to create; holds no connection.
 */
export class AgentHttpClient {
  /** The thread routes. */
  readonly threads: ThreadsHttpClient;
  /** The approvals inbox routes. */
  readonly approvals: ApprovalsHttpClient;
  readonly #base: string;
  readonly #options: AgentHttpClientOptions;

  constructor(options: AgentHttpClientOptions = {}) {
    this.#options = options;
    this.#base = (options.baseUrl ?? "").replace(/\/+$/, "");
    this.threads = this.#threadsClient();
    this.approvals = this.#approvalsClient();
  }

  /** `POST /runs`: starts a run, or attaches to the one `runId` names. */
  start(options: HttpStartOptions & HttpCallOptions): Promise<{ runId: string }> {
    const { signal, ...body } = options;
    return this.#call("POST", `${this.#base}/runs`, body, hasRunId, signal);
  }

  /** `GET /runs/:id`: the run's live state. */
  state(options: { runId: string } & HttpCallOptions): Promise<RunState> {
    return this.#call("GET", this.#runPath(options.runId), undefined, isRunView, options.signal);
  }

  /** `GET /runs/:id/messages`: one page of the run's transcript, oldest first. */
  listMessages(options: { runId: string } & ListMessagesOptions & HttpCallOptions): Promise<RunMessagePage> {
    return this.#call("GET", this.#runPath(options.runId, `/messages?${pageQuery(options)}`), undefined, isRunMessagePage, options.signal);
  }

  /** `POST /runs/:id/cancel`. */
  cancel(options: { runId: string } & CancelOptions & HttpCallOptions): Promise<{ runId: string; cancelled: true }> {
    return this.#call("POST", this.#runPath(options.runId, "/cancel"), options.reason !== undefined ? { reason: options.reason } : {}, isCancelled, options.signal);
  }

  /** `GET /runs/:id/events`, as `threads.events` follows a thread's. */
  events(options: { runId: string } & HttpEventsOptions): AsyncGenerator<StreamEvent> {
    return this.#follow(this.#runPath(options.runId, "/events"), "GET /runs/:id/events", options);
  }

  #runPath(runId: string, rest = ""): string {
    return `${this.#base}/runs/${encodeURIComponent(runId)}${rest}`;
  }

  #threadsClient(): ThreadsHttpClient {
    const path = (threadId: string, rest = "") => `${this.#base}/threads/${encodeURIComponent(threadId)}${rest}`;
    const call = this.#call.bind(this);
    return {
      createThread: ({ signal, ...body } = {}) => call("POST", `${this.#base}/threads`, body, hasThreadId, signal),
      listThreads: ({ signal, cursor, limit } = {}) => {
        const query = new URLSearchParams({ ...(cursor ? { cursor } : {}), ...(limit !== undefined ? { limit: String(limit) } : {}) });
        return call("GET", `${this.#base}/threads?${query}`, undefined, isThreadList, signal);
      },
      state: ({ threadId, signal }) => call("GET", path(threadId), undefined, isThreadView, signal),
      listMessages: (options) => {
        const query = pageQuery(options);
        if (options.excludeSystemMessages !== undefined) query.set("excludeSystemMessages", String(options.excludeSystemMessages));
        return call("GET", path(options.threadId, `/messages?${query}`), undefined, isMessagePage, options.signal);
      },
      sendMessage: ({ threadId, prompt, messageId, stream, signal }) =>
        call("POST", path(threadId, "/messages"), { prompt, ...(messageId !== undefined ? { messageId } : {}), ...(stream !== undefined ? { stream } : {}) }, isSendReply, signal),
      stopThread: ({ threadId, signal }) => call("POST", path(threadId, "/stop"), {}, hasStatus, signal),
      resumeThread: ({ threadId, prompt, signal }) => call("POST", path(threadId, "/resume"), prompt !== undefined ? { prompt } : {}, hasStatus, signal),
      deleteThread: ({ threadId, signal }) => call("DELETE", path(threadId), undefined, isDeleted, signal),
      addToolResult: ({ threadId, toolCallId, result, answerToken, signal }) =>
        call("POST", path(threadId, `/tool-calls/${encodeURIComponent(toolCallId)}/result`), { result, ...(answerToken !== undefined ? { answerToken } : {}) }, isToolReply, signal),
      addToolError: ({ threadId, toolCallId, error, answerToken, signal }) =>
        call("POST", path(threadId, `/tool-calls/${encodeURIComponent(toolCallId)}/error`), { error, ...(answerToken !== undefined ? { answerToken } : {}) }, isToolReply, signal),
      decide: ({ threadId, approvalId, decisions, shown, signal }) =>
        call("POST", path(threadId, `/approvals/${encodeURIComponent(approvalId)}`), { decisions, ...(shown !== undefined ? { shown } : {}) }, isResumeResult, signal),
      events: (options) => this.#follow(path(options.threadId, "/events"), "GET /threads/:id/events", options),
    };
  }

  #approvalsClient(): ApprovalsHttpClient {
    const call = this.#call.bind(this);
    const path = (approvalId: string) => `${this.#base}/approvals/${encodeURIComponent(approvalId)}`;
    return {
      list: (options = {}) => {
        const params = new URLSearchParams();
        if (options.agentId !== undefined) params.set("agentId", options.agentId);
        for (const status of options.status === undefined ? [] : Array.isArray(options.status) ? options.status : [options.status]) params.append("status", status);
        if (options.requires !== undefined) params.set("requires", options.requires);
        if (options.cursor) params.set("cursor", options.cursor);
        if (options.limit !== undefined) params.set("limit", String(options.limit));
        return call("GET", `${this.#base}/approvals?${params}`, undefined, isApprovalPage, options.signal);
      },
      get: ({ approvalId, signal }) => call("GET", path(approvalId), undefined, isApprovalSummary as (v: unknown) => v is ApprovalDetail, signal),
      decide: ({ approvalId, decisions, shown, signal }) => call("POST", path(approvalId), { decisions, ...(shown !== undefined ? { shown } : {}) }, isResumeResult, signal),
    };
  }

  #headers(): Headers {
    const { headers } = this.#options;
    return new Headers(typeof headers === "function" ? headers() : headers);
  }

  #fetch(input: string, init: RequestInit): Promise<Response> {
    return this.#options.fetch ? this.#options.fetch(input, init) : globalThis.fetch(input, init);
  }

  async #call<T>(method: string, url: string, body: unknown, check: (value: unknown) => value is T, signal?: AbortSignal): Promise<T> {
    const h = this.#headers();
    if (body !== undefined) h.set("content-type", "application/json");
    const response = await this.#fetch(url, { method, headers: h, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), ...(signal ? { signal } : {}) });
    const where = `${method} ${url.slice(this.#base.length) || "/"}`;
    const value: unknown = await response.json().catch(() => undefined);
    if (!response.ok) throw errorOf(value, response.status, where);
    if (!check(value)) throw ChatError.malformed(where, `the ${response.status} answer is not what the route returns`);
    return value;
  }

  async *#follow(url: string, where: string, options: HttpEventsOptions): AsyncGenerator<StreamEvent> {
    const { signal } = options;
    const fromSeq = options.fromSeq ?? 0;
    const staleAfterMs = options.staleAfter === undefined ? 45_000 : durationMs(options.staleAfter, "events staleAfter", "45s");
    const ac = new AbortController();
    const abort = () => ac.abort();
    signal.addEventListener("abort", abort, { once: true });
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const alive = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(abort, staleAfterMs);
    };
    try {
      const h = this.#headers();
      h.set("accept", "text/event-stream");
      if (fromSeq > 0) h.set("last-event-id", String(fromSeq));
      alive();
      const response = await this.#fetch(url, { headers: h, signal: ac.signal });
      if (!response.ok) throw errorOf(await response.json().catch(() => undefined), response.status, where);
      if (!response.headers.get("content-type")?.startsWith("text/event-stream") || !response.body) {
        yield { kind: "error", error: ChatError.malformed(where, "the answer is not an event stream") };
        return;
      }
      for await (const event of readSse(response.body, alive, ac.signal)) {
        const parsed = readEvent(event);
        yield parsed;
        if (parsed.kind === "error") return;
      }
    } catch (err) {
      // Our own abort (the caller left, or the watchdog fired) is a quiet end.
      if (ac.signal.aborted) return;
      throw err;
    } finally {
      clearTimeout(watchdog);
      signal.removeEventListener("abort", abort);
      ac.abort();
    }
  }
}

/**
 * Every message of a run's or thread's transcript, reading page after page of `list` (a
 * client's `listMessages` with its target bound) at the largest page the routes serve.
 */
export async function everyMessage<M>(list: (page: ListMessagesOptions) => Promise<{ messages: M[]; cursor?: string }>): Promise<M[]> {
  const all: M[] = [];
  let cursor: string | undefined;
  do {
    const page = await list({ limit: 1000, ...(cursor ? { cursor } : {}) });
    all.push(...page.messages);
    cursor = page.cursor;
  } while (cursor);
  return all;
}

/** `cursor` and `limit` as a page's query string. */
function pageQuery(options: ListMessagesOptions): URLSearchParams {
  return new URLSearchParams({ ...(options.cursor !== undefined ? { cursor: options.cursor } : {}), ...(options.limit !== undefined ? { limit: String(options.limit) } : {}) });
}

function readEvent(event: { id?: string; event: string; data: string }): StreamEvent {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    return { kind: "error", error: ChatError.malformed("event stream", `event ${event.id ?? "(no id)"} is not JSON`) };
  }
  if (event.event === "truncated") {
    const lastSeq = (data as { lastSeq?: unknown })?.lastSeq;
    return typeof lastSeq === "number" ? { kind: "truncated", lastSeq } : { kind: "error", error: ChatError.malformed("event stream", "a truncated event without lastSeq") };
  }
  if (event.event === "error") {
    // The stream's own error event carries `{ code, message }` bare (the route's answers wrap it in `error`).
    const { code, message } = (data ?? {}) as { code?: unknown; message?: unknown };
    return { kind: "error", error: typeof code === "string" && typeof message === "string" ? new ChatError({ code, message }) : ChatError.malformed("event stream", "an error event without code and message") };
  }
  const update = asStreamUpdate(data);
  if (!update || (event.id !== undefined && event.id !== String(update.seq))) {
    return { kind: "error", error: ChatError.malformed("event stream", `event ${event.id ?? "(no id)"} is not a stream entry`) };
  }
  return { kind: "update", update };
}

/** The front door's `{ error: { code, message } }`, or AI1060 when the body is not that. */
function errorOf(body: unknown, status: number | undefined, where: string): ChatError {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (typeof error?.code === "string" && typeof error.message === "string") return new ChatError({ code: error.code, message: error.message, ...(status ? { status } : {}) });
  const fallback = ChatError.malformed(where, `a ${status ?? ""} error without the front door's error body`.replace("  ", " "));
  return status ? new ChatError({ code: fallback.code, message: fallback.message, status }) : fallback;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isPendingApproval = (v: unknown): boolean =>
  isObject(v) &&
  typeof v.approvalId === "string" &&
  typeof v.expiresAt === "string" &&
  Array.isArray(v.calls) &&
  v.calls.every((c) => isObject(c) && typeof c.toolCallId === "string" && typeof c.toolName === "string" && typeof c.arguments === "string");
// `approvals` may be missing from a front door older than approvals: readers take it as none.
const isThreadView = (v: unknown): v is ThreadView =>
  isObject(v) &&
  typeof v.threadId === "string" &&
  isThreadStatus(v.status) &&
  typeof v.lastSeq === "number" &&
  Array.isArray(v.toolCalls) &&
  (v.approvals === undefined || (Array.isArray(v.approvals) && v.approvals.every(isPendingApproval)));
const isMessagePage = (v: unknown): v is MessagePage =>
  isObject(v) && Array.isArray(v.messages) && v.messages.every(isThreadMessage) && typeof v.total === "number" && (v.cursor === undefined || typeof v.cursor === "string");
const isThreadList = (v: unknown): v is { threads: ThreadSummary[]; cursor?: string } =>
  isObject(v) && Array.isArray(v.threads) && v.threads.every((t) => isObject(t) && typeof t.threadId === "string");
const RUN_STATUSES = new Set(["running", "deferred", "needs-compaction", "completed", "failed"]);
const isRunView = (v: unknown): v is RunState =>
  isObject(v) && typeof v.status === "string" && RUN_STATUSES.has(v.status) && typeof v.messageCount === "number" && (v.lastSeq === undefined || typeof v.lastSeq === "number");
const isRunMessagePage = (v: unknown): v is RunMessagePage =>
  isObject(v) && Array.isArray(v.messages) && v.messages.every((m) => isObject(m) && typeof m.role === "string") && typeof v.total === "number" && (v.cursor === undefined || typeof v.cursor === "string");
const hasRunId = (v: unknown): v is { runId: string } => isObject(v) && typeof v.runId === "string";
const isCancelled = (v: unknown): v is { runId: string; cancelled: true } => hasRunId(v) && (v as { cancelled?: unknown }).cancelled === true;
const isDeleted = (v: unknown): v is { deleted: true } => isObject(v) && v.deleted === true;
const hasThreadId = (v: unknown): v is { threadId: string; messageId?: string } => isObject(v) && typeof v.threadId === "string";
const isSendReply = (v: unknown): v is ThreadSendReply => isObject(v) && typeof v.messageId === "string";
const hasStatus = (v: unknown): v is { status: ThreadStatus; previousStatus: ThreadStatus } => isObject(v) && isThreadStatus(v.status);
const isResumeResult = (v: unknown): v is ResumeResult => isObject(v) && (v.status === "resumed" || v.status === "duplicate");
const isApprovalSummary = (v: unknown): v is ApprovalSummary =>
  isObject(v) &&
  typeof v.approvalId === "string" &&
  (v.kind === "approval" || v.kind === "deferral") &&
  typeof v.runId === "string" &&
  typeof v.status === "string" &&
  typeof v.expiresAt === "string" &&
  isObject(v.meta) &&
  Array.isArray(v.calls) &&
  v.calls.every((c) => isObject(c) && typeof c.toolCallId === "string" && typeof c.toolName === "string" && typeof c.arguments === "string");
const isApprovalPage = (v: unknown): v is { approvals: ApprovalSummary[]; cursor?: string } =>
  isObject(v) && Array.isArray(v.approvals) && v.approvals.every(isApprovalSummary) && (v.cursor === undefined || typeof v.cursor === "string");
const isToolReply = (v: unknown): v is ToolResultReply => isObject(v) && (v.status === "accepted" || v.status === "duplicate");
