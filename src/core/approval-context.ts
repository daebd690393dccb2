import type { DeferralRecord } from "./deferral-record.js";
import type { ChatMessage, ToolCall } from "./messages.js";

/** Characters kept of each message an approver is shown; a longer one is cut and marked `truncated`. */
export const MAX_CONTEXT_CHARS = 2_000;

/** Messages kept of the agent's last ones, and of the tool results, before the request. */
export const MAX_CONTEXT_MESSAGES = 3;

/** One message of what led to a request, cut to `MAX_CONTEXT_CHARS`. */
export interface ApprovalRequestContextMessage {
  role: "user" | "assistant" | "tool";
  /** The message's text as the transcript holds it (model and tool output: escape it where you render it). */
  text: string;
  /** A tool result's tool. */
  toolName?: string;
  /** Present (`true`) when `text` was cut to `MAX_CONTEXT_CHARS`. */
  truncated?: true;
}

/**
 * Why the agent asks, as an approver reads it: the user's message that started the work (a
 * run's prompt, the thread's message of that turn), the agent's last messages up to the one
 * that made the calls, and the tool results it had read since that message, each bounded.
 */
export interface ApprovalRequestContext {
  /** The user message the request answers: the last one before it (a run's prompt; in a thread, the turn's message). */
  request?: ApprovalRequestContextMessage;
  /** The agent's last messages with text before the request (the one that made the calls included), oldest first, at most `MAX_CONTEXT_MESSAGES`. */
  messages: ApprovalRequestContextMessage[];
  /** The tool results the agent had read since `request`, oldest first, at most `MAX_CONTEXT_MESSAGES`. */
  toolResults: ApprovalRequestContextMessage[];
}

/** A record read with what led to it (`approvalRecordQuery`); `context` only where the run still holds the request's message. */
export type ApprovalRecord = DeferralRecord & { context?: ApprovalRequestContext };

/**
 * What led to the request whose first call is `toolCallId` (in a thread, made by the answer
 * `answerId`), from the transcript that holds it; undefined when none of its messages made that call (a plain workflow, a thread that
 * rolled over since). Bounded whatever the transcript holds: 7 messages of 2,000 characters.
 */
export function approvalContextOf(messages: readonly ChatMessage[], toolCallId: string, answerId?: string): ApprovalRequestContext | undefined {
  let at = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    // In a thread, the answer that made the calls (a model may reuse a call id in a later answer).
    const answer = answerId === undefined || (m as { id?: unknown }).id === undefined || (m as { id?: unknown }).id === answerId;
    if (m.role === "assistant" && answer && m.tool_calls?.some((c) => c.id === toolCallId)) {
      at = i;
      break;
    }
  }
  if (at < 0) return undefined;
  let start = -1;
  for (let i = at - 1; i >= 0; i--) {
    if (messages[i]!.role === "user") {
      start = i;
      break;
    }
  }
  const said: ApprovalRequestContextMessage[] = [];
  for (let i = at; i >= 0 && said.length < MAX_CONTEXT_MESSAGES; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && typeof m.content === "string" && m.content.trim() !== "") said.unshift(cut("assistant", m.content));
  }
  const results: ApprovalRequestContextMessage[] = [];
  for (let i = at - 1; i > start && results.length < MAX_CONTEXT_MESSAGES; i--) {
    const m = messages[i]!;
    if (m.role === "tool") {
      const name = toolNameOf(messages, i, m.tool_call_id);
      results.unshift({ ...cut("tool", m.content), ...(name ? { toolName: name } : {}) });
    }
  }
  const asked = start >= 0 ? messages[start]! : undefined;
  return { ...(asked && typeof asked.content === "string" ? { request: cut("user", asked.content) } : {}), messages: said, toolResults: results };
}

function toolNameOf(messages: readonly ChatMessage[], before: number, id: string): string | undefined {
  for (let i = before - 1; i >= 0; i--) {
    const m = messages[i]!;
    const call: ToolCall | undefined = m.role === "assistant" ? m.tool_calls?.find((c) => c.id === id) : undefined;
    if (call) return call.function.name;
  }
  return undefined;
}

function cut(role: ApprovalRequestContextMessage["role"], content: unknown): ApprovalRequestContextMessage {
  const text = typeof content === "string" ? content : JSON.stringify(content) ?? "";
  if (text.length <= MAX_CONTEXT_CHARS) return { role, text };
  // Never half a surrogate pair: a cut emoji would be invalid UTF-16 on the page.
  const end = /[\uD800-\uDBFF]/.test(text[MAX_CONTEXT_CHARS - 1]!) ? MAX_CONTEXT_CHARS - 1 : MAX_CONTEXT_CHARS;
  return { role, text: text.slice(0, end), truncated: true };
}
