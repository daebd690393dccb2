/**
 * A thread's transcript in the AI SDK's `UIMessage` shape, so chat UIs (and `useChat`)
 * render it without glue. Pure: no I/O, no Node or DOM APIs, usable on a server, in a
 * browser and in tests. The types are declared here, structurally compatible with the AI
 * SDK's, so the core package does not depend on `ai`.
 */
import { isSummary, SUMMARY_HEADING } from "./compaction.js";
import type { ThreadMessage, ThreadStatus, ToolProgressUpdate } from "./thread-contracts.js";

/** What a message says about itself beyond the AI SDK's fields. */
export interface ChatUIMessageMetadata {
  /** Stable key for rendering lists: the id of the thread message the UI message starts with. */
  key: string;
  /**
   * `success`: stored in the thread. `streaming`: the answer being written (it may still be
   * replaced or dropped). A turn's answer waiting on tools is `success` with tool parts in
   * `input-available`.
   */
  status: "success" | "streaming";
  /** When its first thread message joined the thread (ISO 8601); absent while streaming. */
  createdAt?: string;
  /** The thread message ids this UI message was built from, in order. */
  messageIds: string[];
  /**
   * Set on the summary a thread's compaction wrote: the messages before it are what it
   * summarised, and the model reads it in their place from then on. Its one text part is the
   * summary without the heading the model reads it under.
   */
  summary?: true;
}

export type ChatUIToolState = "input-streaming" | "input-available" | "output-available" | "output-error";

/** A tool call and, once it has one, its result: the AI SDK's `tool-<name>` part. */
export type ChatUIToolPart = {
  type: `tool-${string}`;
  toolCallId: string;
} & (
  | { state: "input-streaming"; input: unknown }
  | { state: "input-available"; input: unknown }
  | { state: "output-available"; input: unknown; output: unknown }
  | { state: "output-error"; input: unknown; errorText: string }
);

/**
 * The latest `ctx.progress` report of a tool call still running: the AI SDK's data part, as
 * `ThreadChatTransport` gives it to `useChat` (`id` is the call's, so a newer report replaces
 * it). It sits right after its call's `tool-<name>` part and is gone once the call has a result.
 */
export interface ChatUIProgressPart {
  type: "data-tool-progress";
  id: string;
  data: Pick<ToolProgressUpdate, "toolCallId" | "toolName" | "data" | "at">;
}

export type ChatUIPart =
  | { type: "text"; text: string; state?: "streaming" | "done" }
  | { type: "step-start" }
  | ChatUIToolPart
  | ChatUIProgressPart;

/** A message in the AI SDK's `UIMessage` shape. */
export interface ChatUIMessage {
  id: string;
  role: "system" | "user" | "assistant";
  metadata: ChatUIMessageMetadata;
  parts: ChatUIPart[];
}

/** The answer being written, as the stream's deltas have built it so far. */
export interface StreamingDraft {
  /** The id the answer will have once stored. */
  messageId: string;
  text: string;
  /** Tool calls being written, in the order they started; `arguments` is the raw JSON text so far. */
  toolCalls: Array<{ toolCallId: string; toolName?: string; arguments: string }>;
}

export interface ToUIMessagesOptions {
  /** The answer being written, shown after the stored messages (see `StreamingDraft`). */
  draft?: StreamingDraft;
  /** Leave system messages out. Default true, as `listMessages` does. */
  excludeSystemMessages?: boolean;
  /**
   * The latest progress report of each call still running (a fold's `progress`): each becomes
   * a `data-tool-progress` part after its call's part. A report whose call has a result, or is
   * not in the messages, shows nothing.
   */
  progress?: readonly ToolProgressUpdate[];
}

/** How the SDK and `addToolError` store a failed tool call's result (see the thread workflow). */
const ERROR_PREFIX = "Error: ";

/**
 * Maps stored thread messages (oldest first) onto UI messages. Consecutive assistant and
 * tool messages form one assistant UI message, as the AI SDK shows a multi-step answer:
 * each model step opens with a `step-start` part, tool results land on their call's
 * `tool-<name>` part (`output-available`, or `output-error` for a result the thread stored
 * as an error), and a call without a result stays `input-available`. A draft joins the
 * answer it continues, or starts one.
 */
export function toUIMessages(messages: readonly ThreadMessage[], options: ToUIMessagesOptions = {}): ChatUIMessage[] {
  const excludeSystem = options.excludeSystemMessages ?? true;
  const out: ChatUIMessage[] = [];
  // Tool parts by call id, to attach results; only within the current assistant message.
  let calls = new Map<string, number>();
  let answer: ChatUIMessage | undefined;

  const openAnswer = (id: string, createdAt: string | undefined, status: ChatUIMessageMetadata["status"]): ChatUIMessage => {
    if (answer) return answer;
    answer = { id, role: "assistant", metadata: { key: id, status, ...(createdAt ? { createdAt } : {}), messageIds: [] }, parts: [] };
    calls = new Map();
    out.push(answer);
    return answer;
  };

  for (const message of messages) {
    switch (message.role) {
      case "system":
      case "user":
        answer = undefined;
        if (message.role === "system" && excludeSystem) break;
        out.push({
          id: message.id,
          role: message.role,
          metadata: { key: message.id, status: "success", createdAt: message.createdAt, messageIds: [message.id] },
          parts: [{ type: "text", text: message.content }],
        });
        break;
      case "assistant": {
        if (isSummary(message)) {
          // A summary stands alone: the answer after it is a message of its own.
          answer = undefined;
          out.push({
            id: message.id,
            role: "assistant",
            metadata: { key: message.id, status: "success", createdAt: message.createdAt, messageIds: [message.id], summary: true },
            parts: [{ type: "text", text: message.content!.slice(SUMMARY_HEADING.length), state: "done" }],
          });
          break;
        }
        const target = openAnswer(message.id, message.createdAt, "success");
        target.metadata.messageIds.push(message.id);
        target.parts.push({ type: "step-start" });
        if (message.content) target.parts.push({ type: "text", text: message.content, state: "done" });
        for (const call of message.tool_calls ?? []) {
          calls.set(call.id, target.parts.length);
          target.parts.push({ type: `tool-${call.function.name}`, toolCallId: call.id, state: "input-available", input: parseArguments(call.function.arguments) });
        }
        break;
      }
      case "tool": {
        const index = calls.get(message.tool_call_id);
        const part = index === undefined || !answer ? undefined : answer.parts[index];
        // A result whose call is not in this answer (a hand-built transcript) has nothing to attach to.
        if (!part || !isToolPart(part)) break;
        answer!.metadata.messageIds.push(message.id);
        answer!.parts[index!] = withResult(part, message.content);
        break;
      }
    }
  }

  const draft = options.draft;
  if (draft && (draft.text !== "" || draft.toolCalls.length > 0)) {
    // The draft continues the current turn's answer when there is one (a later step), else starts one.
    const target = openAnswer(draft.messageId, undefined, "streaming");
    target.metadata.status = "streaming";
    target.parts.push({ type: "step-start" });
    if (draft.text) target.parts.push({ type: "text", text: draft.text, state: "streaming" });
    for (const call of draft.toolCalls) {
      target.parts.push({ type: `tool-${call.toolName ?? "unknown"}`, toolCallId: call.toolCallId, state: "input-streaming", input: parsePartial(call.arguments) });
    }
  }
  if (options.progress?.length) withProgress(out, options.progress);
  return out;
}

/** Puts each running call's latest report right after its call's part. */
function withProgress(messages: ChatUIMessage[], progress: readonly ToolProgressUpdate[]): void {
  const latest = new Map(progress.map((p) => [p.toolCallId, p]));
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    message.parts = message.parts.flatMap((part) => {
      const report = isToolPart(part) && part.state === "input-available" ? latest.get(part.toolCallId) : undefined;
      if (!report) return [part];
      const { toolCallId, toolName, data, at } = report;
      return [part, { type: "data-tool-progress" as const, id: toolCallId, data: { toolCallId, toolName, data, at } }];
    });
  }
}

function isToolPart(part: ChatUIPart): part is ChatUIToolPart {
  return part.type.startsWith("tool-");
}

function withResult(part: ChatUIToolPart, content: string): ChatUIToolPart {
  const base = { type: part.type, toolCallId: part.toolCallId, input: part.input };
  if (content.startsWith(ERROR_PREFIX)) return { ...base, state: "output-error", errorText: content.slice(ERROR_PREFIX.length) };
  return { ...base, state: "output-available", output: parseResult(content) };
}

/** A call's arguments as the model wrote them: the parsed object, or the raw text when it is not JSON (the model sees an error for it). */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Tool results are stored as text: JSON when the tool returned a value, else the string it returned. */
function parseResult(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

/** Arguments still being written: parsed when they already are complete JSON, else undefined (as the AI SDK shows partial input it cannot parse). */
function parsePartial(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** True while a thread is working on a turn. */
export function isThreadRunning(status: ThreadStatus): boolean {
  return status === "streaming" || status === "awaiting_tool_results";
}
