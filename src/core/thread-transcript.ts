/**
 * Reading a thread's transcript: what the turn has to do next is derived from it alone,
 * which is what lets a stopped, failed or continued-as-new thread pick up where it was.
 * Sandbox-safe; the client uses the same checks before it sends anything.
 */
import type { ChatMessage, ToolCall } from "./messages.js";
import type { ThreadMessage } from "./thread-contracts.js";

/** The model-facing form of a stored message. */
export function toChat(message: ThreadMessage): ChatMessage {
  switch (message.role) {
    case "assistant":
      return message.tool_calls
        ? { role: "assistant", content: message.content, tool_calls: message.tool_calls }
        : { role: "assistant", content: message.content };
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

/**
 * A short fingerprint of one message (FNV-1a over its fields, not over JSON key order):
 * lets a worker check that its cached transcript ends where the thread's does.
 */
export function fingerprint(message: ChatMessage): string {
  const calls = message.role === "assistant" ? (message.tool_calls ?? []).map((c) => `${c.id}\u0001${c.function.name}\u0001${c.function.arguments}`).join("\u0002") : "";
  const text = `${message.role}\u0000${message.content ?? ""}\u0000${message.role === "tool" ? message.tool_call_id : ""}\u0000${calls}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${hash.toString(36)}.${text.length.toString(36)}`;
}

/** Tool calls of the last assistant message that have no result yet, in the model's order. */
export function openToolCalls(messages: readonly ChatMessage[]): ToolCall[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const answered = new Set(messages.slice(i + 1).flatMap((r) => (r.role === "tool" ? [r.tool_call_id] : [])));
    return (m.tool_calls ?? []).filter((c) => !answered.has(c.id));
  }
  return [];
}

/** True when the transcript ends with something the model has not answered yet. */
export function needsAnswer(messages: readonly ChatMessage[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const role = messages[i]!.role;
    // A system note added after an answer asks for nothing by itself.
    if (role === "system") continue;
    return role === "user" || role === "tool";
  }
  return false;
}

/** The call with this id, wherever it is in the transcript, and whether it has a result. */
export function findToolCall(messages: readonly ChatMessage[], toolCallId: string): { call: ToolCall; answered: boolean } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant" || !m.tool_calls) continue;
    const call = m.tool_calls.find((c) => c.id === toolCallId);
    if (call) {
      const answered = messages.slice(i + 1).some((r) => r.role === "tool" && r.tool_call_id === toolCallId);
      return { call, answered };
    }
  }
  return undefined;
}

/**
 * Why `messages` cannot be a thread's transcript, or undefined: malformed messages, a
 * result without its call, a call id used twice, or a message wedged between calls and
 * their results. Open calls at the very end are fine (the first turn runs them).
 */
export function transcriptProblem(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return "messages must be an array";
  const seen = new Set<string>();
  let open = new Set<string>();
  for (const [i, m] of messages.entries()) {
    const problem = messageProblem(m, true);
    if (problem) return `messages[${i}]: ${problem}`;
    const message = m as ChatMessage;
    if (message.role === "tool") {
      if (!open.has(message.tool_call_id)) return `messages[${i}]: a tool result for "${message.tool_call_id}", which no open tool call has`;
      open.delete(message.tool_call_id);
      continue;
    }
    if (open.size > 0) return `messages[${i}]: a ${message.role} message before the results of tool calls ${[...open].join(", ")}`;
    if (message.role === "assistant" && message.tool_calls) {
      open = new Set();
      for (const call of message.tool_calls) {
        if (seen.has(call.id)) return `messages[${i}]: tool call id "${call.id}" is used twice`;
        seen.add(call.id);
        open.add(call.id);
      }
    }
  }
  return undefined;
}

/**
 * Why one message is malformed, or undefined. `withTools` allows assistant tool calls and
 * tool results (a starting transcript); addMessage allows neither, since results only
 * come from tools and addToolResult.
 */
export function messageProblem(m: unknown, withTools: boolean): string | undefined {
  if (typeof m !== "object" || m === null || Array.isArray(m)) return "not a message object";
  const message = m as Record<string, unknown>;
  switch (message.role) {
    case "user":
    case "system":
      return typeof message.content === "string" ? undefined : "content must be a string";
    case "assistant": {
      if (message.tool_calls !== undefined) {
        if (!withTools) return "an assistant message with tool calls cannot be added; tool calls come from the model";
        if (!Array.isArray(message.tool_calls) || message.tool_calls.length === 0) return "tool_calls must be a non-empty array";
        for (const call of message.tool_calls as unknown[]) {
          const c = call as Partial<ToolCall> | null;
          if (typeof c?.id !== "string" || c.id === "" || c.type !== "function" || typeof c.function?.name !== "string" || typeof c.function.arguments !== "string") {
            return "every tool call needs an id, type \"function\" and function { name, arguments }";
          }
        }
        return message.content === null || typeof message.content === "string" ? undefined : "content must be a string or null";
      }
      return typeof message.content === "string" ? undefined : "content must be a string";
    }
    case "tool":
      if (!withTools) return "tool results cannot be added as messages; use addToolResult";
      if (typeof message.tool_call_id !== "string" || message.tool_call_id === "") return "tool_call_id must be a non-empty string";
      return typeof message.content === "string" ? undefined : "content must be a string";
    default:
      return `role must be user, assistant, system or tool, not ${JSON.stringify(message.role)}`;
  }
}
