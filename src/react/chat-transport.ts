/**
 * A `ChatTransport` for the AI SDK's `useChat`, over the front door's thread routes: an app
 * already built on `useChat` drives a durable thread by passing `transport`. The chat id is
 * the thread id. Only types come from `ai`, so it stays an optional peer.
 */
import type { ChatTransport, UIMessage, UIMessageChunk } from "ai";
import type { StreamUpdate } from "../core/thread-contracts.js";
import { isThreadRunning } from "../core/ui-messages.js";
import { ChatError, FATAL_CODES } from "./chat-error.js";
import { threadsHttpClient, type ThreadsHttpClient, type ThreadsHttpOptions } from "./threads-http.js";

export interface ThreadChatTransportOptions extends ThreadsHttpOptions {
  /** The agent a thread is created for when the chat id names no thread yet (the front door's default agent when omitted). */
  agent?: string;
}

const RETRY_MS = [250, 500, 1000, 2000, 4000];
const ENDED = new Set(["completed", "failed", "stopped"]);

/**
 * - `sendMessages` posts the last user message to `POST /threads/:id/messages` (its UI id
 *   as the `messageId`, so a retried send is sent once; a chat id with no thread yet
 *   creates it), then streams the turn from the event stream: text and tool-input deltas,
 *   each step's tool calls and results, and `finish` (completed), `error` (failed, with the
 *   thread's last error) or `abort` (stopped). `regenerate-message` resumes the thread.
 * - `reconnectToStream` continues a turn in progress (after a reload): the deltas of the
 *   answer being written, then everything new; `null` when no turn runs.
 * - `useChat`'s `stop()` aborts the request, and that stops the thread (`POST …/stop`).
 *
 * A retried model call (`reset` with reason `retry`) cannot take back text `useChat` already
 * holds: the new attempt's text streams into a fresh text part and the stored answer is
 * what `listMessages` shows afterwards.
 */
export class ThreadChatTransport<M extends UIMessage = UIMessage> implements ChatTransport<M> {
  readonly http: ThreadsHttpClient;

  constructor(private readonly options: ThreadChatTransportOptions = {}) {
    this.http = threadsHttpClient(options);
  }

  sendMessages: ChatTransport<M>["sendMessages"] = async ({ chatId, messages, trigger, abortSignal }) => {
    const since = await this.#lastSeq(chatId);
    let userId: string | undefined;
    if (trigger === "regenerate-message") {
      await this.http.resumeThread(chatId);
    } else {
      const last = messages.at(-1);
      if (!last || last.role !== "user") throw new ChatError({ code: "AI1040", message: "[AI1040] useChat sent no user message last; nothing was sent." });
      const prompt = last.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      userId = last.id;
      await this.http.sendMessage(chatId, prompt, last.id);
    }
    return this.#stream(chatId, { fromSeq: since, waitFor: userId, signal: abortSignal, stopOnAbort: true });
  };

  reconnectToStream: ChatTransport<M>["reconnectToStream"] = async ({ chatId, abortSignal }) => {
    const thread = await this.http.getThread(chatId, abortSignal);
    if (!isThreadRunning(thread.status)) return null;
    const draftId = (thread as { modelCall?: { messageId?: string } }).modelCall?.messageId;
    // From the window's start, but only the draft's deltas up to now: earlier steps are in the messages useChat loaded.
    return this.#stream(chatId, { fromSeq: 0, replayAfter: thread.lastSeq, ...(draftId ? { draftId } : {}), signal: abortSignal, stopOnAbort: false });
  };

  async #lastSeq(threadId: string): Promise<number> {
    try {
      return (await this.http.getThread(threadId)).lastSeq;
    } catch (err) {
      if (!(err instanceof ChatError) || err.code !== "AI1020") throw err;
      await this.http.createThread({ threadId, ...(this.options.agent ? { agent: this.options.agent } : {}) });
      return 0;
    }
  }

  #stream(
    threadId: string,
    plan: { fromSeq: number; waitFor?: string; replayAfter?: number; draftId?: string; signal: AbortSignal | undefined; stopOnAbort: boolean },
  ): ReadableStream<UIMessageChunk> {
    const http = this.http;
    const ac = new AbortController();
    let translate: Translator;
    return new ReadableStream<UIMessageChunk>({
      start: (controller) => {
        translate = new Translator((chunk) => controller.enqueue(chunk), plan.waitFor === undefined);
        const onAbort = () => {
          if (plan.stopOnAbort) void http.stopThread(threadId).catch(() => undefined);
          ac.abort();
        };
        if (plan.signal?.aborted) onAbort();
        else plan.signal?.addEventListener("abort", onAbort, { once: true });
        void (async () => {
          let seq = plan.fromSeq;
          let failures = 0;
          try {
            while (!ac.signal.aborted && !translate.done) {
              try {
                for await (const event of http.events(threadId, seq, ac.signal)) {
                  if (event.kind === "truncated") continue;
                  if (event.kind === "error") throw event.error;
                  const update = event.update;
                  if (update.seq <= seq) continue;
                  seq = update.seq;
                  failures = 0;
                  const replaying = plan.replayAfter !== undefined && update.seq <= plan.replayAfter;
                  if (replaying && !isDeltaOf(update, plan.draftId)) continue;
                  if (plan.waitFor !== undefined && !translate.live) {
                    if (update.type === "message" && update.message.id === plan.waitFor) translate.live = true;
                    continue;
                  }
                  if (await translate.apply(update, () => http.getThread(threadId))) break;
                }
              } catch (err) {
                if (ac.signal.aborted) break;
                if (err instanceof ChatError && (FATAL_CODES.has(err.code) || err.code === "AI1060")) throw err;
              }
              if (translate.done || ac.signal.aborted) break;
              await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]));
            }
            if (!translate.done && ac.signal.aborted) controller.enqueue({ type: "abort" });
          } catch (err) {
            controller.enqueue({ type: "error", errorText: err instanceof Error ? err.message : String(err) });
          } finally {
            plan.signal?.removeEventListener("abort", onAbort);
            controller.close();
          }
        })();
      },
      cancel: () => ac.abort(),
    });
  }
}

const isDeltaOf = (update: StreamUpdate, messageId: string | undefined) =>
  messageId !== undefined && (update.type === "text-delta" || update.type === "tool-input-delta") && update.messageId === messageId;

/** Turns stream entries into `UIMessageChunk`s for one assistant message (a turn may have several steps). */
class Translator {
  done = false;
  #started = false;
  #step: string | undefined;
  #text: string | undefined;
  /** What the open text part has shown: the stored message may hold more (its last deltas fold into it). */
  #streamed = "";
  #inputs = new Set<string>();
  #calls = new Map<string, string>();

  constructor(
    private readonly emit: (chunk: UIMessageChunk) => void,
    public live: boolean,
  ) {}

  /** Returns true when the turn ended (the stream is finished). */
  async apply(update: StreamUpdate, thread: () => Promise<{ lastError?: { code?: string; message: string } }>): Promise<boolean> {
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
      case "approval-request":
      case "approval-decided":
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
        } else if (message.role === "tool" && this.#calls.has(message.tool_call_id)) {
          // Results of calls this stream never announced (before a reconnect) have no part in useChat to land on.
          if (message.content.startsWith("Error: ")) this.emit({ type: "tool-output-error", toolCallId: message.tool_call_id, errorText: message.content.slice(7) });
          else this.emit({ type: "tool-output-available", toolCallId: message.tool_call_id, output: parseJson(message.content) });
        }
        return false;
      }
      case "status": {
        if (!ENDED.has(update.status)) return false;
        this.#closeText();
        if (update.status === "completed") this.emit({ type: "finish" });
        else if (update.status === "stopped") this.emit({ type: "abort", reason: "the thread was stopped" });
        else {
          const lastError = await thread().then((t) => t.lastError, () => undefined);
          this.emit({ type: "error", errorText: lastError ? `${lastError.code ? `[${lastError.code}] ` : ""}${lastError.message}` : "the turn failed" });
        }
        this.done = true;
        return true;
      }
    }
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
