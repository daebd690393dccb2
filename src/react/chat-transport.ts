/**
 * A `ChatTransport` for the AI SDK's `useChat`, over the front door's thread routes: an app
 * already built on `useChat` drives a durable thread by passing `transport`. The chat id is
 * the thread id. Only types come from `ai`, so it stays an optional peer.
 */
import type { ChatTransport, UIMessage, UIMessageChunk } from "ai";
import type { StreamUpdate, ThreadMessage, ThreadStatus } from "../core/thread-contracts.js";
import { isThreadRunning, toUIMessages } from "../core/ui-messages.js";
import type { ThreadView } from "../client/threads/thread-types.js";
import { approvalResponses, approvalUiId, rejectionOf, withApprovalStates, type ApprovalChatUIMessage } from "./approval-parts.js";
import { ChatError, FATAL_CODES } from "./chat-error.js";
import { AgentHttpClient, everyMessage, type AgentHttpClientOptions, type StreamEvent } from "./agent-http-client.js";

export interface ThreadChatTransportOptions extends AgentHttpClientOptions {
  /** The agent a thread is created for when the chat id names no thread yet (the front door's default agent when omitted). */
  agent?: string;
}

const RETRY_MS = [250, 500, 1000, 2000, 4000];
const ENDED = new Set(["completed", "failed", "stopped"]);
const DONE_STATES = new Set(["output-available", "output-error", "output-denied"]);

/**
 * - `sendMessages` posts the last user message to `POST /threads/:id/messages` (its UI id
 *   as the `messageId`, so a retried send is sent once; a chat id with no thread yet
 *   creates it), then streams the turn from the event stream: text and tool-input deltas,
 *   each step's tool calls and results, and `finish` (completed), `error` (failed, with the
 *   thread's last error) or `abort` (stopped). `regenerate-message` resumes the thread.
 * - A gated tool's calls end the turn's stream with a `tool-approval-request` each (their
 *   `approval.id` names the thread's request and the call) and `finish`, as the AI SDK's
 *   own approvals do. When `useChat` sends again with the answer's approval responses
 *   (`addToolApprovalResponse`, then `sendAutomaticallyWhen` or `sendMessage()`), the
 *   transport decides each request in one call (`POST /threads/:id/approvals/:approvalId`,
 *   a rejection with its reason) and streams the rest of the turn into the same message:
 *   the approved calls' results, a rejected call as `output-denied`, and what the model says next.
 * - `reconnectToStream` continues a turn in progress (after a reload): the deltas of the
 *   answer being written, then everything new; `null` when no turn runs or the turn waits
 *   for a decision (`loadMessages` shows the request).
 * - `useChat`'s `stop()` aborts the request, and that stops the thread (`POST …/stop`).
 *
 * A retried model call (`reset` with reason `retry`) cannot take back text `useChat` already
 * holds: the new attempt's text streams into a fresh text part and the stored answer is
 * what `listMessages` shows afterwards.
 */
export class ThreadChatTransport<M extends UIMessage = UIMessage> implements ChatTransport<M> {
  /** The front door's client the transport reads and acts through. */
  readonly http: AgentHttpClient;

  constructor(private readonly options: ThreadChatTransportOptions = {}) {
    this.http = new AgentHttpClient(options);
  }

  /**
   * The thread's messages for `useChat({ messages })`, a pending request's calls in
   * `approval-requested` and rejected calls in `output-denied`, so a reloaded chat shows what
   * it showed before. A chat id that names no thread yet has none.
   */
  async loadMessages(chatId: string, signal?: AbortSignal): Promise<ApprovalChatUIMessage[]> {
    let thread: ThreadView;
    try {
      thread = await this.http.threads.state({ threadId: chatId, ...(signal ? { signal } : {}) });
    } catch (err) {
      if (err instanceof ChatError && err.code === "AI1020") return [];
      throw err;
    }
    const stored = await storedMessages(this.http, chatId, signal);
    return withApprovalStates(toUIMessages(stored), thread.approvals ?? []);
  }

  sendMessages: ChatTransport<M>["sendMessages"] = async ({ chatId, messages, trigger, messageId, abortSignal }) => {
    if (trigger === "submit-message") {
      const target = (messageId !== undefined ? messages.find((m) => m.id === messageId) : undefined) ?? messages.at(-1);
      if (target?.role === "assistant") return this.#decideAndFollow(chatId, target, abortSignal);
    }
    const since = await this.#lastSeq(chatId);
    let userId: string | undefined;
    if (trigger === "regenerate-message") {
      await this.http.threads.resumeThread({ threadId: chatId });
    } else {
      const last = messages.at(-1);
      if (!last || last.role !== "user") throw new ChatError({ code: "AI1040", message: "[AI1040] useChat sent no user message last; nothing was sent." });
      const prompt = last.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      userId = last.id;
      await this.http.threads.sendMessage({ threadId: chatId, prompt, messageId: last.id });
    }
    return chunkStream(this.#io(chatId), { fromSeq: since, waitFor: userId, signal: abortSignal, stopOnAbort: true });
  };

  reconnectToStream: ChatTransport<M>["reconnectToStream"] = async ({ chatId, abortSignal }) => {
    const thread = await this.http.threads.state({ threadId: chatId, ...(abortSignal ? { signal: abortSignal } : {}) });
    // A turn held for a decision streams nothing until someone decides.
    if (!isThreadRunning(thread.status) || (thread.approvals ?? []).length > 0) return null;
    const draftId = (thread as { modelCall?: { messageId?: string } }).modelCall?.messageId;
    // From the window's start, but only the draft's deltas up to now: earlier steps are in the messages useChat loaded.
    return chunkStream(this.#io(chatId), { fromSeq: 0, replayAfter: thread.lastSeq, ...(draftId ? { draftId } : {}), signal: abortSignal, stopOnAbort: false });
  };

  /**
   * `useChat` sends the answer back after `addToolApprovalResponse`: the responses become one
   * decision per request, and the turn's stream continues into that answer from where the
   * thread was before deciding. A thread no turn runs on (stopped, or already past the calls)
   * is not followed: what it stored is shown and the stream ends.
   */
  async #decideAndFollow(chatId: string, message: UIMessage, signal: AbortSignal | undefined): Promise<ReadableStream<UIMessageChunk>> {
    const responses = approvalResponses(message);
    if (responses.size === 0) throw new ChatError({ code: "AI1040", message: "[AI1040] useChat sent an answer without approval responses last; nothing was sent." });
    const before = await this.http.threads.state({ threadId: chatId, ...(signal ? { signal } : {}) });
    // Sent even when the thread lists the request no more: decided already reads `duplicate`, withdrawn is refused (RC5050), and the thread says which.
    for (const [approvalId, decisions] of responses) await this.http.threads.decide({ threadId: chatId, approvalId, decisions });
    return chunkStream(this.#io(chatId), { fromSeq: before.lastSeq, signal, stopOnAbort: true, seed: seedOf(message), ...(isThreadRunning(before.status) ? {} : { endAt: before.status }) });
  }

  /** What a stream of the thread reads and does through the front door. */
  #io(threadId: string): ChatStreamIo {
    const threads = this.http.threads;
    return {
      noun: "thread",
      events: (fromSeq, signal) => threads.events({ threadId, fromSeq, signal }),
      stop: () => threads.stopThread({ threadId }),
      lastError: () => threads.state({ threadId }).then((t) => t.lastError),
      stored: () => storedMessages(this.http, threadId),
    };
  }

  async #lastSeq(threadId: string): Promise<number> {
    try {
      return (await this.http.threads.state({ threadId })).lastSeq;
    } catch (err) {
      if (!(err instanceof ChatError) || err.code !== "AI1020") throw err;
      await this.http.threads.createThread({ threadId, ...(this.options.agent ? { agent: this.options.agent } : {}) });
      return 0;
    }
  }
}

/** Every stored message of a thread, system messages left out (as a chat shows it). */
function storedMessages(http: AgentHttpClient, threadId: string, signal?: AbortSignal): Promise<ThreadMessage[]> {
  return everyMessage((page) => http.threads.listMessages({ ...page, threadId, excludeSystemMessages: true, ...(signal ? { signal } : {}) }));
}

/** What a chat stream reads and does, through the front door: a thread's routes or a run's. */
export interface ChatStreamIo {
  /** What the chat drives, as its errors name it. */
  noun: "thread" | "run";
  /** The event stream from `fromSeq`. */
  events(fromSeq: number, signal: AbortSignal): AsyncGenerator<StreamEvent>;
  /** What `useChat`'s `stop()` does (stop the thread, cancel the run). */
  stop(): Promise<unknown>;
  /** Why it failed, for the error chunk. */
  lastError(): Promise<{ code?: string; message: string } | undefined>;
  /** Every stored message. */
  stored(): Promise<ThreadMessage[]>;
}

/** The plan of one chat stream: where it starts and what it continues. */
export interface ChunkPlan {
  fromSeq: number;
  waitFor?: string;
  replayAfter?: number;
  draftId?: string;
  signal: AbortSignal | undefined;
  stopOnAbort: boolean;
  /** The answer this stream continues (after approval responses). */
  seed?: Seed;
  /** Nothing runs: end at once, with what is stored. */
  endAt?: ThreadStatus;
}

/** Follows the events from `plan.fromSeq` as `UIMessageChunk`s for one assistant message, reconnecting after a dropped connection. */
export function chunkStream(io: ChatStreamIo, plan: ChunkPlan): ReadableStream<UIMessageChunk> {
  const ac = new AbortController();
  let translate: Translator;
  // Once the reader cancelled (a tab that went away), the stream takes no more chunks.
  let cancelled = false;
  return new ReadableStream<UIMessageChunk>({
    start: (controller) => {
      const enqueue = (chunk: UIMessageChunk) => {
        if (!cancelled) controller.enqueue(chunk);
      };
      translate = new Translator({
        emit: enqueue,
        noun: io.noun,
        lastError: io.lastError,
        stored: io.stored,
        live: plan.waitFor === undefined,
        ...(plan.seed ? { seed: plan.seed } : {}),
      });
      const onAbort = () => {
        if (plan.stopOnAbort) void io.stop().catch(() => undefined);
        ac.abort();
      };
      if (plan.signal?.aborted) onAbort();
      else plan.signal?.addEventListener("abort", onAbort, { once: true });
      void (async () => {
        let seq = plan.fromSeq;
        let failures = 0;
        try {
          if (plan.endAt !== undefined) await translate.end(plan.endAt);
          while (!ac.signal.aborted && !translate.done) {
            try {
              for await (const event of io.events(seq, ac.signal)) {
                if (event.kind === "truncated") continue;
                if (event.kind === "error") throw event.error;
                const update = event.update;
                // Progress has no seq (0): shown while live, it never moves where a reconnect continues.
                if (update.type === "tool-progress") {
                  if (translate.live) await translate.apply(update);
                  continue;
                }
                if (update.seq <= seq) continue;
                seq = update.seq;
                failures = 0;
                const replaying = plan.replayAfter !== undefined && update.seq <= plan.replayAfter;
                if (replaying && !isDeltaOf(update, plan.draftId)) continue;
                if (plan.waitFor !== undefined && !translate.live) {
                  if (update.type === "message" && update.message.id === plan.waitFor) translate.live = true;
                  continue;
                }
                if (await translate.apply(update)) break;
              }
            } catch (err) {
              if (ac.signal.aborted) break;
              if (err instanceof ChatError && (FATAL_CODES.has(err.code) || err.code === "AI1060")) throw err;
            }
            if (translate.done || ac.signal.aborted) break;
            await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]));
          }
          if (!translate.done && ac.signal.aborted) enqueue({ type: "abort" });
        } catch (err) {
          enqueue({ type: "error", errorText: err instanceof Error ? err.message : String(err) });
        } finally {
          plan.signal?.removeEventListener("abort", onAbort);
          if (!cancelled) controller.close();
        }
      })();
    },
    cancel: () => {
      cancelled = true;
      ac.abort();
    },
  });
}

const isDeltaOf = (update: StreamUpdate, messageId: string | undefined) =>
  messageId !== undefined && (update.type === "text-delta" || update.type === "tool-input-delta") && update.messageId === messageId;

/** The answer a stream continues: its id, and its tool calls still without a result. */
export interface Seed {
  messageId: string;
  open: Map<string, { toolName: string; gated: boolean; responded: boolean }>;
}

export function seedOf(message: UIMessage): Seed {
  const open: Seed["open"] = new Map();
  for (const part of message.parts as Array<{ type: string; toolCallId?: string; state?: string; approval?: unknown }>) {
    if (!part.type.startsWith("tool-") || typeof part.toolCallId !== "string" || DONE_STATES.has(part.state ?? "") || part.state === "input-streaming") continue;
    open.set(part.toolCallId, { toolName: part.type.slice("tool-".length), gated: part.approval !== undefined, responded: part.state === "approval-responded" });
  }
  return { messageId: message.id, open };
}

/** Turns stream entries into `UIMessageChunk`s for one assistant message (a turn may have several steps). */
class Translator {
  done = false;
  live: boolean;
  #started = false;
  #step: string | undefined;
  #text: string | undefined;
  /** What the open text part has shown: the stored message may hold more (its last deltas fold into it). */
  #streamed = "";
  #inputs = new Set<string>();
  /** Calls `useChat` has a part for (announced here, or in the answer this stream continues), with their tool's name. */
  #calls = new Map<string, string>();
  /** Calls of gated tools: a rejection stored as their result is `output-denied`. */
  #gated = new Set<string>();
  /** The thread said, in this stream, that calls of the answer wait for a decision. */
  #askedAgain = false;
  #resolved = new Set<string>();

  constructor(
    private readonly deps: {
      emit: (chunk: UIMessageChunk) => void;
      noun: ChatStreamIo["noun"];
      lastError: () => Promise<{ code?: string; message: string } | undefined>;
      stored: () => Promise<ThreadMessage[]>;
      live: boolean;
      seed?: Seed;
    },
  ) {
    this.live = deps.live;
    if (deps.seed) {
      // Continuing an answer useChat holds: its chunks land on that message.
      this.#started = true;
      this.emit({ type: "start", messageId: deps.seed.messageId });
      for (const [id, call] of deps.seed.open) {
        this.#calls.set(id, call.toolName);
        if (call.gated) this.#gated.add(id);
      }
    }
  }

  private emit(chunk: UIMessageChunk): void {
    this.deps.emit(chunk);
  }

  /** Returns true when the turn's stream ended (finished, or held for a decision). */
  async apply(update: StreamUpdate): Promise<boolean> {
    switch (update.type) {
      case "text-delta":
        this.#open(update.messageId);
        if (!this.#text) this.emit({ type: "text-start", id: (this.#text = `${update.messageId}:${update.seq}`) });
        this.emit({ type: "text-delta", id: this.#text, delta: update.text });
        this.#streamed += update.text;
        return false;
      case "tool-input-delta":
        this.#open(update.messageId);
        if (!this.#inputs.has(update.toolCallId)) {
          this.#inputs.add(update.toolCallId);
          this.emit({ type: "tool-input-start", toolCallId: update.toolCallId, toolName: update.toolName ?? "unknown" });
        }
        this.emit({ type: "tool-input-delta", toolCallId: update.toolCallId, inputTextDelta: update.argumentsDelta });
        return false;
      case "reset":
        // What was streamed cannot be retracted from useChat; end the part so a retry streams into a new one.
        this.#closeText();
        return false;
      case "approval-request": {
        for (const call of update.calls) {
          // A call useChat has no part for (it joined after the call was announced) cannot show a request: loadMessages does.
          if (!this.#calls.has(call.toolCallId) || this.#resolved.has(call.toolCallId) || this.deps.seed?.open.get(call.toolCallId)?.responded) continue;
          this.#gated.add(call.toolCallId);
          this.emit({ type: "tool-approval-request", approvalId: approvalUiId(update.approvalId, call.toolCallId), toolCallId: call.toolCallId });
        }
        // The turn waits for a person: the response ends here, as the AI SDK's does, and a decision sends again.
        this.#askedAgain = true;
        await this.end("awaiting_tool_results");
        return true;
      }
      case "approval-decided":
        // The calls' results follow as messages.
        return false;
      case "compacted":
        // The model reads a summary now; what useChat shows of the conversation stays as it is.
        return false;
      case "tool-progress":
        // One data part per call (its id), replaced by each report: useChat shows the latest.
        if (!this.#started || this.#resolved.has(update.toolCallId)) return false;
        this.emit({ type: "data-tool-progress", id: update.toolCallId, data: { toolCallId: update.toolCallId, toolName: update.toolName, data: update.data, at: update.at } });
        return false;
      case "message": {
        const message = update.message;
        if (message.role === "assistant") {
          this.#open(message.id);
          const content = message.content ?? "";
          if (this.#text) {
            // Deltas written after the last read were folded into the message: send the rest.
            if (content.startsWith(this.#streamed) && content.length > this.#streamed.length) {
              this.emit({ type: "text-delta", id: this.#text, delta: content.slice(this.#streamed.length) });
            }
          } else if (content) {
            const id = `${message.id}:${update.seq}`;
            this.emit({ type: "text-start", id });
            this.emit({ type: "text-delta", id, delta: content });
            this.emit({ type: "text-end", id });
          }
          this.#closeText();
          for (const call of message.tool_calls ?? []) {
            if (!this.#inputs.has(call.id)) this.emit({ type: "tool-input-start", toolCallId: call.id, toolName: call.function.name });
            this.#calls.set(call.id, call.function.name);
            this.emit({ type: "tool-input-available", toolCallId: call.id, toolName: call.function.name, input: parseJson(call.function.arguments) });
          }
          this.emit({ type: "finish-step" });
          this.#step = undefined;
          this.#inputs.clear();
        } else if (message.role === "tool") {
          this.#result(message.tool_call_id, message.content);
        }
        return false;
      }
      case "status": {
        if (!ENDED.has(update.status)) return false;
        await this.end(update.status);
        return true;
      }
    }
  }

  /**
   * Ends the stream as the thread stands (`awaiting_tool_results`: held for a decision). The
   * results of the continued answer's calls that came before this stream began are read
   * from storage first. A call `useChat` sent a decision for and still without a result
   * ends it with an error: the thread holds the call (a stopped turn), and a plain finish
   * would have `useChat` send the same responses again.
   */
  async end(status: ThreadStatus): Promise<void> {
    this.#closeText();
    const unresolved = () => [...(this.deps.seed?.open ?? [])].filter(([id]) => !this.#resolved.has(id));
    if (unresolved().length > 0) {
      const stored = await this.deps.stored().catch(() => [] as ThreadMessage[]);
      for (const m of stored) if (m.role === "tool") this.#result(m.tool_call_id, m.content);
    }
    const held = unresolved().filter(([, call]) => call.responded);
    if (status === "failed") {
      const lastError = await this.deps.lastError().catch(() => undefined);
      this.emit({ type: "error", errorText: lastError ? `${lastError.code ? `[${lastError.code}] ` : ""}${lastError.message}` : `the ${this.deps.noun === "run" ? "run" : "turn"} failed` });
    } else if (held.length > 0 && !(status === "awaiting_tool_results" && this.#askedAgain)) {
      // (A call decided alone while others of its step wait may hold its result until they have theirs: not an error.)
      this.emit({ type: "error", errorText: `The ${this.deps.noun} is ${status} and has not run the decided calls (${held.map(([, c]) => c.toolName).join(", ")}) yet${this.deps.noun === "thread" ? ": resume it to go on" : ""}.` });
    } else if (status === "stopped") this.emit({ type: "abort", reason: `the ${this.deps.noun} was ${this.deps.noun === "run" ? "cancelled" : "stopped"}` });
    else if (status === "awaiting_tool_results") this.emit({ type: "finish", finishReason: "tool-calls" });
    else this.emit({ type: "finish" });
    this.done = true;
  }

  /** A call's result, once, on the part useChat has for it; results of calls it has no part for have nowhere to land. */
  #result(toolCallId: string, content: string): void {
    const toolName = this.#calls.get(toolCallId);
    if (toolName === undefined || this.#resolved.has(toolCallId)) return;
    this.#resolved.add(toolCallId);
    if (this.#gated.has(toolCallId) && rejectionOf(content, toolName)) this.emit({ type: "tool-output-denied", toolCallId });
    else if (content.startsWith("Error: ")) this.emit({ type: "tool-output-error", toolCallId, errorText: content.slice(7) });
    else this.emit({ type: "tool-output-available", toolCallId, output: parseJson(content) });
  }

  #open(messageId: string): void {
    if (!this.#started) {
      this.#started = true;
      this.emit({ type: "start", messageId });
    }
    if (this.#step !== messageId) {
      this.#step = messageId;
      this.emit({ type: "start-step" });
    }
  }

  #closeText(): void {
    if (this.#text) this.emit({ type: "text-end", id: this.#text });
    this.#text = undefined;
    this.#streamed = "";
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
