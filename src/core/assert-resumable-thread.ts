import { ThreadRewriteError } from "./errors/thread-rewrite.js";
import type { ChatMessage } from "./messages.js";

const ROLES = new Set(["system", "user", "assistant", "tool"]);

/**
 * Refuses (AI1008, naming the defect) a thread a deferred run could not continue from:
 * empty; a tool result without its call, or before it; a call without its result (other
 * than the deferred call, whose result is the resume payload); a duplicate call id or
 * result; the deferred call dropped or already answered. Sandbox-safe.
 *
 * Without `deferredToolCallId` (a resumed run whose payload already landed), every call
 * needs its result.
 */
export function assertResumableThread(messages: unknown, deferredToolCallId?: string): asserts messages is ChatMessage[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ThreadRewriteError({ defect: "the thread is empty" });
  }
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  messages.forEach((m, index) => {
    if (typeof m !== "object" || m === null || !ROLES.has((m as ChatMessage).role)) {
      throw new ThreadRewriteError({ defect: `message ${index} is not a chat message with a known role`, index });
    }
    const msg = m as ChatMessage;
    if (msg.role === "assistant") {
      for (const call of msg.tool_calls ?? []) {
        if (calls.has(call.id)) {
          throw new ThreadRewriteError({ defect: `tool call id "${call.id}" appears twice`, index, toolCallId: call.id });
        }
        calls.set(call.id, index);
      }
    }
  });
  // A second pass tells "result before its call" apart from "result without a call".
  const seen = new Set<string>();
  messages.forEach((m, index) => {
    const msg = m as ChatMessage;
    if (msg.role === "assistant") for (const call of msg.tool_calls ?? []) seen.add(call.id);
    if (msg.role !== "tool") return;
    const id = msg.tool_call_id;
    if (!calls.has(id)) {
      throw new ThreadRewriteError({ defect: `the tool result for "${id}" has no tool call`, index, toolCallId: id });
    }
    if (!seen.has(id)) {
      throw new ThreadRewriteError({ defect: `the tool result for "${id}" comes before its call`, index, toolCallId: id });
    }
    if (answered.has(id)) {
      throw new ThreadRewriteError({ defect: `tool call "${id}" has two results`, index, toolCallId: id });
    }
    answered.add(id);
  });
  if (deferredToolCallId !== undefined) {
    if (!calls.has(deferredToolCallId)) {
      throw new ThreadRewriteError({ defect: `the deferred tool call "${deferredToolCallId}" was dropped`, toolCallId: deferredToolCallId });
    }
    if (answered.has(deferredToolCallId)) {
      throw new ThreadRewriteError({
        defect: `the deferred tool call "${deferredToolCallId}" already has a result; its result is the resume payload`,
        toolCallId: deferredToolCallId,
      });
    }
  }
  for (const [id, index] of calls) {
    if (id !== deferredToolCallId && !answered.has(id)) {
      throw new ThreadRewriteError({ defect: `tool call "${id}" has no result`, index, toolCallId: id });
    }
  }
}
