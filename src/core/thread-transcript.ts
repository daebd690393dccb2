/**
 * Reading a thread's transcript: what the turn has to do next is derived from it alone,
 * which is what lets a stopped, failed or continued-as-new thread pick up where it was.
 * Sandbox-safe; the client uses the same checks before it sends anything.
 */
import { ThreadRewriteError } from "./errors/deferrals.js";
import type { AssistantMessage, ChatMessage, ToolCall } from "./messages.js";
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

/**
 * Which use of `toolCallId` the latest call with that id is: how many of the transcript's
 * answers made a call with it. The model chooses ids, and may reuse one in a later turn.
 */
export function callOccurrence(messages: readonly ChatMessage[], toolCallId: string): number {
  let count = 0;
  for (const m of messages) if (m.role === "assistant" && m.tool_calls?.some((c) => c.id === toolCallId)) count += 1;
  return count;
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

/** What is wrong with a transcript: the first defect met, where, and which call it concerns. */
export interface TranscriptDefect {
  defect: string;
  index?: number;
  toolCallId?: string;
}

/** Which tool calls may end a transcript without their results. */
export interface OpenCallRules {
  /**
   * `"any"`: calls of the last batch may all be open (a thread's starting transcript: its
   * first turn runs them). Otherwise only the ids listed (a deferred run's deferred call).
   */
  openAtEnd: "any" | readonly string[];
  /** A call that must be present and still open at the end: a deferred call, whose result is the resume payload. */
  mustBeOpen?: string | readonly string[];
}

/**
 * The one transcript check, for runs and threads: every message well-formed; each tool
 * result follows its call's batch (results of a batch come right after it, any order, one
 * each); call ids unique; calls without results only where `rules` allow.
 */
export function transcriptDefect(messages: unknown, rules: OpenCallRules): TranscriptDefect | undefined {
  if (!Array.isArray(messages) || messages.length === 0) return { defect: "the transcript is empty" };
  const calls = new Set<string>();
  const answered = new Set<string>();
  let open: string[] = [];
  const laterCall = (id: string, from: number) =>
    messages.slice(from).some((m) => (m as ChatMessage)?.role === "assistant" && (m as AssistantMessage).tool_calls?.some((c) => c?.id === id));
  for (const [index, m] of messages.entries()) {
    const problem = messageProblem(m, true);
    if (problem) return { defect: `message ${index} is malformed: ${problem}`, index };
    const message = m as ChatMessage;
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (answered.has(id)) return { defect: `tool call "${id}" has two results`, index, toolCallId: id };
      if (!open.includes(id)) {
        if (calls.has(id)) return { defect: `the tool result for "${id}" does not follow its call's batch`, index, toolCallId: id };
        const defect = laterCall(id, index) ? `the tool result for "${id}" comes before its call` : `the tool result for "${id}" has no tool call`;
        return { defect, index, toolCallId: id };
      }
      open = open.filter((c) => c !== id);
      answered.add(id);
      continue;
    }
    if (open.length > 0) return { defect: `tool call "${open[0]}" has no result`, index, toolCallId: open[0]! };
    if (message.role === "assistant" && message.tool_calls) {
      for (const call of message.tool_calls) {
        if (calls.has(call.id)) return { defect: `tool call id "${call.id}" appears twice`, index, toolCallId: call.id };
        calls.add(call.id);
      }
      open = message.tool_calls.map((c) => c.id);
    }
  }
  for (const must of rules.mustBeOpen === undefined ? [] : [rules.mustBeOpen].flat()) {
    if (answered.has(must)) return { defect: `the deferred tool call "${must}" already has a result; its result is the resume payload`, toolCallId: must };
    if (!open.includes(must)) return { defect: `the deferred tool call "${must}" was dropped`, toolCallId: must };
  }
  const stray = rules.openAtEnd === "any" ? undefined : open.find((id) => !rules.openAtEnd.includes(id));
  return stray === undefined ? undefined : { defect: `tool call "${stray}" has no result`, toolCallId: stray };
}

/** Why `messages` cannot start a thread, or undefined. Open calls at the very end are fine (the first turn runs them). */
export function transcriptProblem(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return "messages must be an array";
  if (messages.length === 0) return undefined;
  const found = transcriptDefect(messages, { openAtEnd: "any" });
  return found && (found.index !== undefined ? `messages[${found.index}]: ${found.defect}` : found.defect);
}

/**
 * Refuses (AI1008, naming the defect) a transcript a deferred run could not continue from:
 * empty; malformed; a tool result without its call, before it, or away from its batch; a
 * call without its result (other than the deferred call, whose result is the resume
 * payload); a duplicate call id or result; the deferred call dropped or already answered.
 *
 * Without `deferredToolCallId` (a resumed run whose payload already landed), every call
 * needs its result.
 */
export function assertResumableThread(messages: unknown, deferredToolCallId?: string | readonly string[]): asserts messages is ChatMessage[] {
  const deferred = deferredToolCallId === undefined ? [] : [deferredToolCallId].flat();
  const found = transcriptDefect(messages, deferred.length === 0 ? { openAtEnd: [] } : { openAtEnd: deferred, mustBeOpen: deferred });
  if (found) throw new ThreadRewriteError(found);
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
      // A model may answer with no text at all; content is null then.
      return message.content === null || typeof message.content === "string" ? undefined : "content must be a string or null";
    }
    case "tool":
      if (!withTools) return "tool results cannot be added as messages; use addToolResult";
      if (typeof message.tool_call_id !== "string" || message.tool_call_id === "") return "tool_call_id must be a non-empty string";
      return typeof message.content === "string" ? undefined : "content must be a string";
    default:
      return `role must be user, assistant, system or tool, not ${JSON.stringify(message.role)}`;
  }
}
