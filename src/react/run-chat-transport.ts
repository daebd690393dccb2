/**
 * A `ChatTransport` for the AI SDK's `useChat` over the front door's run routes: a chat is
 * one run (the chat id is the run id), for apps that show an agent run as it is written
 * rather than hold a conversation (that is `ThreadChatTransport`). Only types come from
 * `ai`, so it stays an optional peer.
 */
import type { ChatTransport, UIMessage } from "ai";
import type { PendingApproval, ThreadMessage } from "../core/thread-contracts.js";
import { toUIMessages } from "../core/ui-messages.js";
import { approvalResponses, withApprovalStates, type ApprovalChatUIMessage } from "./approval-parts.js";
import { chunkStream, seedOf, type ChatStreamIo } from "./chat-transport.js";
import { ChatError } from "./chat-error.js";
import { AgentHttpClient, everyMessage, type AgentHttpClientOptions } from "./agent-http-client.js";

export interface RunChatTransportOptions extends AgentHttpClientOptions {
  /** The agent a chat's run is started for (its id, as `POST /runs` takes it). */
  agent: string;
}

/**
 * - `sendMessages` starts the run for the chat's user message (`POST /runs` with the chat
 *   id as `runId` and `stream: true`, so a retried send attaches instead of starting twice),
 *   then streams it from `GET /runs/:id/events`: text and tool-input deltas, each step's
 *   tool calls and results, and `finish` (completed), `error` (failed, with the run's typed
 *   error) or `abort` (cancelled). A run answers one prompt: a second user message in the
 *   same chat is refused (AI1040) and nothing is started; regenerating is refused too.
 * - A gated tool's calls end the stream with a `tool-approval-request` each, as the AI SDK's
 *   own approvals do; sent back with the responses, the transport decides the request
 *   (`POST /approvals/:approvalId`, asked as `resume`) and streams the rest of the run into
 *   the same message.
 * - `reconnectToStream` continues a run in progress after a reload: the answer being
 *   written, then everything new; `null` once the run settled (`loadMessages` shows it).
 * - `useChat`'s `stop()` aborts the request, and that cancels the run (`POST /runs/:id/cancel`).
 */
export class RunChatTransport<M extends UIMessage = UIMessage> implements ChatTransport<M> {
  /** The front door's client the transport reads and acts through. */
  readonly http: AgentHttpClient;

  constructor(private readonly options: RunChatTransportOptions) {
    if (typeof options?.agent !== "string" || options.agent === "") {
      throw new ChatError({ code: "AI1001", message: "[AI1001] RunChatTransport needs `agent`: the id of the agent a chat's run is started for." });
    }
    this.http = new AgentHttpClient(options);
  }

  /** The run's messages for `useChat({ messages })`, a pending request's calls in `approval-requested`. A chat id that names no run yet has none. */
  async loadMessages(chatId: string, signal?: AbortSignal): Promise<ApprovalChatUIMessage[]> {
    const run = await this.#run(chatId, signal);
    if (!run) return [];
    const stored = await this.#stored(chatId, signal);
    return withApprovalStates(toUIMessages(stored), await this.#pending(run.status === "deferred" ? run.deferralId : undefined));
  }

  sendMessages: ChatTransport<M>["sendMessages"] = async ({ chatId, messages, trigger, messageId, abortSignal }) => {
    const target = (messageId !== undefined ? messages.find((m) => m.id === messageId) : undefined) ?? messages.at(-1);
    if (trigger === "submit-message" && target?.role === "assistant") {
      const responses = approvalResponses(target);
      if (responses.size === 0) throw new ChatError({ code: "AI1040", message: "[AI1040] useChat sent an answer without approval responses last; nothing was sent." });
      const before = await this.http.state({ runId: chatId, ...(abortSignal ? { signal: abortSignal } : {}) });
      for (const [approvalId, decisions] of responses) await this.http.approvals.decide({ approvalId, decisions });
      return chunkStream(this.#io(chatId), { fromSeq: before.lastSeq ?? 0, signal: abortSignal, stopOnAbort: true, seed: seedOf(target) });
    }
    if (trigger === "regenerate-message") throw new ChatError({ code: "AI1040", message: "[AI1040] A run answers its prompt once: start a new chat to ask again. Nothing was sent." });
    const last = messages.at(-1);
    if (!last || last.role !== "user") throw new ChatError({ code: "AI1040", message: "[AI1040] useChat sent no user message last; nothing was sent." });
    if (await this.#run(chatId, abortSignal)) {
      throw new ChatError({ code: "AI1040", message: `[AI1040] Chat "${chatId}" is a run that has its prompt already: a run answers one prompt. Start a new chat, or hold a conversation with ThreadChatTransport. Nothing was sent.` });
    }
    const prompt = last.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
    await this.http.start({ agent: this.options.agent, prompt, runId: chatId, stream: true });
    return chunkStream(this.#io(chatId), { fromSeq: 0, signal: abortSignal, stopOnAbort: true });
  };

  reconnectToStream: ChatTransport<M>["reconnectToStream"] = async ({ chatId, abortSignal }) => {
    const run = await this.#run(chatId, abortSignal);
    if (run?.status !== "running") return null;
    // From the start, but only the draft's deltas up to now: the rest is in the messages useChat loaded.
    return chunkStream(this.#io(chatId), {
      fromSeq: 0,
      replayAfter: run.lastSeq ?? 0,
      ...(run.streamingMessageId ? { draftId: run.streamingMessageId } : {}),
      signal: abortSignal,
      stopOnAbort: false,
    });
  };

  /** The run the chat id names, or undefined when there is none yet (AI1010). */
  async #run(runId: string, signal: AbortSignal | undefined) {
    try {
      return await this.http.state({ runId, ...(signal ? { signal } : {}) });
    } catch (err) {
      if (err instanceof ChatError && err.code === "AI1010") return undefined;
      throw err;
    }
  }

  /** The request a parked run waits on, as the inbox shows it (none when it is a plain deferral or already decided). */
  async #pending(approvalId: string | undefined): Promise<PendingApproval[]> {
    if (!approvalId) return [];
    const request = await this.http.approvals.get({ approvalId }).catch(() => undefined);
    if (!request || request.status !== "deferred" || request.kind !== "approval") return [];
    return [{ approvalId: request.approvalId, calls: request.calls.map(({ toolCallId, toolName, arguments: args }) => ({ toolCallId, toolName, arguments: args })), expiresAt: request.expiresAt }];
  }

  #io(runId: string): ChatStreamIo {
    const http = this.http;
    return {
      noun: "run",
      events: (fromSeq, signal) => http.events({ runId, fromSeq, signal }),
      stop: () => http.cancel({ runId }),
      lastError: () => http.state({ runId }).then((run) => run.error),
      stored: () => this.#stored(runId),
    };
  }

  /** Every message of the run's transcript, each with its position as `id` (what a chat keys messages by). */
  async #stored(runId: string, signal?: AbortSignal): Promise<ThreadMessage[]> {
    const messages = await everyMessage((page) => this.http.listMessages({ ...page, runId, ...(signal ? { signal } : {}) }));
    return messages.map((message, i) => ({ ...message, id: String(i), createdAt: "" }) as ThreadMessage);
  }
}
