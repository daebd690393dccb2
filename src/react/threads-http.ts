/**
 * The thread and run routes of the HTTP front door (`durable-agents/http`), as a browser
 * calls them. Only those routes: no second protocol. Every answer is checked before it is used;
 * what cannot be read becomes a `ChatError` (AI1060), an error answer the front door's
 * `{ error: { code, message } }` as a `ChatError` with that code.
 */
import type { Decisions } from "../core/approval.js";
import type { DeferralStatus } from "../core/deferral-record.js";
import type { JsonValue } from "../core/json.js";
import type { StreamUpdate, ThreadMessage, ThreadSendReply, ThreadStatus } from "../core/thread-contracts.js";
import { asStreamUpdate, isThreadMessage, isThreadStatus } from "../core/stream-fold.js";
import type { ApprovalSummary } from "../client/approval-inbox.js";
import type { ResumeResult } from "../client/resume.js";
import type { ChatMessage } from "../core/messages.js";
import type { RunState } from "../core/run-state.js";
import type { ThreadView, ToolResultReply } from "../client/threads/thread-types.js";
import { ChatError } from "./chat-error.js";
import { readSse } from "./sse.js";

/** Where the front door is and how to reach it. */
export interface ThreadsHttpOptions {
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

/** What `listApprovals` asks for: the filters of `agents.approvals.list`. */
export interface ListApprovalsQuery {
  agentId?: string;
  /** Default (the front door's): `deferred`, waiting for a decision. */
  status?: DeferralStatus | DeferralStatus[];
  /** Only requests whose `meta.requires` names this. */
  requires?: string;
  cursor?: string;
  limit?: number;
}

/** One entry of the event stream, or a control event. */
export type ThreadEvent =
  | { kind: "update"; update: StreamUpdate }
  | { kind: "truncated"; lastSeq: number }
  | { kind: "error"; error: ChatError };

export type ThreadsHttpClient = ReturnType<typeof threadsHttpClient>;

/** A client for the thread routes. Cheap to create; holds no connection. */
export function threadsHttpClient(options: ThreadsHttpOptions = {}) {
  const base = (options.baseUrl ?? "").replace(/\/+$/, "");
  const doFetch: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headers = () => new Headers(typeof options.headers === "function" ? options.headers() : options.headers);
  const path = (threadId: string, rest = "") => `${base}/threads/${encodeURIComponent(threadId)}${rest}`;
  const runPath = (runId: string, rest = "") => `${base}/runs/${encodeURIComponent(runId)}${rest}`;

  async function call<T>(method: string, url: string, body: unknown, check: (value: unknown) => value is T, signal?: AbortSignal): Promise<T> {
    const h = headers();
    if (body !== undefined) h.set("content-type", "application/json");
    const response = await doFetch(url, { method, headers: h, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), ...(signal ? { signal } : {}) });
    const where = `${method} ${url.slice(base.length) || "/"}`;
    const value: unknown = await response.json().catch(() => undefined);
    if (!response.ok) throw errorOf(value, response.status, where);
    if (!check(value)) throw ChatError.malformed(where, `the ${response.status} answer is not what the route returns`);
    return value;
  }

  return {
    getThread: (threadId: string, signal?: AbortSignal) => call("GET", path(threadId), undefined, isThreadView, signal),
    /** Every stored message, page by page. */
    async listMessages(threadId: string, options: { excludeSystemMessages?: boolean; signal?: AbortSignal } = {}): Promise<ThreadMessage[]> {
      const all: ThreadMessage[] = [];
      let cursor: string | undefined;
      do {
        const query = new URLSearchParams({ limit: "1000", excludeSystemMessages: String(options.excludeSystemMessages ?? true), ...(cursor ? { cursor } : {}) });
        const page = await call("GET", path(threadId, `/messages?${query}`), undefined, isMessagePage, options.signal);
        all.push(...page.messages);
        cursor = page.cursor;
      } while (cursor);
      return all;
    },
    listThreads: (options: { cursor?: string; limit?: number } = {}) => {
      const query = new URLSearchParams({ ...(options.cursor ? { cursor: options.cursor } : {}), ...(options.limit ? { limit: String(options.limit) } : {}) });
      return call("GET", `${base}/threads?${query}`, undefined, isThreadList);
    },
    createThread: (body: { threadId?: string; prompt?: string; agent?: string; autoStart?: boolean } = {}) => call("POST", `${base}/threads`, body, hasThreadId),
    sendMessage: (threadId: string, prompt: string, messageId?: string) =>
      call("POST", path(threadId, "/messages"), { prompt, ...(messageId ? { messageId } : {}) }, isSendReply),
    stopThread: (threadId: string) => call("POST", path(threadId, "/stop"), {}, hasStatus),
    resumeThread: (threadId: string, prompt?: string) => call("POST", path(threadId, "/resume"), prompt !== undefined ? { prompt } : {}, hasStatus),
    addToolResult: (threadId: string, toolCallId: string, result: JsonValue, answerToken: string | undefined) =>
      call("POST", path(threadId, `/tool-calls/${encodeURIComponent(toolCallId)}/result`), { result, ...(answerToken !== undefined ? { answerToken } : {}) }, isToolReply),
    addToolError: (threadId: string, toolCallId: string, error: string, answerToken: string | undefined) =>
      call("POST", path(threadId, `/tool-calls/${encodeURIComponent(toolCallId)}/error`), { error, ...(answerToken !== undefined ? { answerToken } : {}) }, isToolReply),
    /** Decides a thread's approval request, one decision per call it lists (`thread.decide`). The thread answers at once; the stream shows the rest. */
    decide: (threadId: string, approvalId: string, decisions: Decisions, shown?: string) =>
      call("POST", path(threadId, `/approvals/${encodeURIComponent(approvalId)}`), { decisions, ...(shown !== undefined ? { shown } : {}) }, isResumeResult),

    /** A page of the approvals inbox: requests of runs and threads the caller may see. */
    listApprovals: (query: ListApprovalsQuery = {}) => {
      const params = new URLSearchParams();
      if (query.agentId !== undefined) params.set("agentId", query.agentId);
      for (const status of query.status === undefined ? [] : Array.isArray(query.status) ? query.status : [query.status]) params.append("status", status);
      if (query.requires !== undefined) params.set("requires", query.requires);
      if (query.cursor) params.set("cursor", query.cursor);
      if (query.limit !== undefined) params.set("limit", String(query.limit));
      return call("GET", `${base}/approvals?${params}`, undefined, isApprovalPage);
    },
    getApproval: (approvalId: string) => call("GET", `${base}/approvals/${encodeURIComponent(approvalId)}`, undefined, isApprovalSummary),
    /** Decides an inbox request by its id; `shown` (its `callFingerprint`) refuses the decision if the calls changed since (RC5058). */
    decideApproval: (approvalId: string, decisions: Decisions, shown?: string) =>
      call("POST", `${base}/approvals/${encodeURIComponent(approvalId)}`, { decisions, ...(shown !== undefined ? { shown } : {}) }, isResumeResult),

    /**
     * Follows `GET /threads/:id/events` from `fromSeq` (sent as `Last-Event-ID`) until the
     * server closes, `signal` aborts, or `staleAfterMs` pass without a byte (a tab that
     * slept with its connection half-open): the caller reconnects from its last seq. An
     * event it cannot read is yielded as an AI1060 error and ends this connection, so the
     * caller reconnects from the last entry it applied and nothing is skipped.
     */
    events: (threadId: string, fromSeq: number, signal: AbortSignal, staleAfterMs = 45_000) => follow(path(threadId, "/events"), "GET /threads/:id/events", fromSeq, signal, staleAfterMs),

    /** A run's state (`GET /runs/:id`). */
    getRun: (runId: string, signal?: AbortSignal) => call("GET", runPath(runId), undefined, isRunView, signal),
    /** Starts a run (`POST /runs`), or attaches to the one `runId` names. */
    startRun: (body: { agent: string; prompt: string; runId?: string; stream?: boolean }) => call("POST", `${base}/runs`, body, hasRunId),
    cancelRun: (runId: string) => call("POST", runPath(runId, "/cancel"), {}, hasRunId),
    /** Every message of a run's transcript, page by page, each with its position as `id`. */
    async listRunMessages(runId: string, signal?: AbortSignal): Promise<ThreadMessage[]> {
      const all: ThreadMessage[] = [];
      let cursor: string | undefined;
      do {
        const query = new URLSearchParams({ limit: "1000", ...(cursor ? { cursor } : {}) });
        const page = await call("GET", runPath(runId, `/messages?${query}`), undefined, isRunMessagePage, signal);
        for (const message of page.messages) all.push({ ...message, id: String(all.length), createdAt: "" } as ThreadMessage);
        cursor = page.cursor;
      } while (cursor);
      return all;
    },
    /** Follows `GET /runs/:id/events` as `events` follows a thread's. */
    runEvents: (runId: string, fromSeq: number, signal: AbortSignal, staleAfterMs = 45_000) => follow(runPath(runId, "/events"), "GET /runs/:id/events", fromSeq, signal, staleAfterMs),
  };

  async function* follow(url: string, where: string, fromSeq: number, signal: AbortSignal, staleAfterMs: number): AsyncGenerator<ThreadEvent> {
    const ac = new AbortController();
    const abort = () => ac.abort();
    signal.addEventListener("abort", abort, { once: true });
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const alive = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(abort, staleAfterMs);
    };
    try {
      const h = headers();
      h.set("accept", "text/event-stream");
      if (fromSeq > 0) h.set("last-event-id", String(fromSeq));
      alive();
      const response = await doFetch(url, { headers: h, signal: ac.signal });
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

function readEvent(event: { id?: string; event: string; data: string }): ThreadEvent {
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
const isMessagePage = (v: unknown): v is { messages: ThreadMessage[]; cursor?: string } =>
  isObject(v) && Array.isArray(v.messages) && v.messages.every(isThreadMessage) && (v.cursor === undefined || typeof v.cursor === "string");
const isThreadList = (v: unknown): v is { threads: Array<{ threadId: string; agentId?: string; createdAt: string }>; cursor?: string } =>
  isObject(v) && Array.isArray(v.threads) && v.threads.every((t) => isObject(t) && typeof t.threadId === "string");
const RUN_STATUSES = new Set(["running", "deferred", "needs-compaction", "completed", "failed"]);
const isRunView = (v: unknown): v is RunState =>
  isObject(v) && typeof v.status === "string" && RUN_STATUSES.has(v.status) && typeof v.messageCount === "number" && (v.lastSeq === undefined || typeof v.lastSeq === "number");
const isRunMessagePage = (v: unknown): v is { messages: ChatMessage[]; cursor?: string } =>
  isObject(v) && Array.isArray(v.messages) && v.messages.every((m) => isObject(m) && typeof m.role === "string") && (v.cursor === undefined || typeof v.cursor === "string");
const hasRunId = (v: unknown): v is { runId: string } => isObject(v) && typeof v.runId === "string";
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
