/**
 * What a transcript may hold without someone vouching for it (`trustTranscript: true`).
 * Tool calls, tool results and system messages speak as the model, the tools and the
 * operator: a caller who did not build the transcript may keep the ones it already had,
 * never add or alter one. User and assistant text is the caller's to write. One rule for a
 * thread's seeded transcript (it had nothing before) and a deferred run's rewrite (it had
 * the run's transcript); sandbox-safe, so the workflow applies it where the state lives.
 */
import { ThreadRewriteError } from "./errors/deferrals.js";
import type { ChatMessage, ToolCall } from "./messages.js";
import { findToolCall, type TranscriptDefect } from "./thread-transcript.js";

const VOUCH = "only with trustTranscript: true, from server code that built it (never from end-user input)";

/**
 * The first thing in `messages` that `known` (the transcript it replaces, or nothing) did
 * not have and only a vouched-for transcript may add: a system message, a tool call the
 * model did not make as written (id, name and arguments), or a tool result other than the
 * one its call really had. Structure (pairing, order, ids) is `transcriptDefect`'s to check.
 */
export function unvouchedDefect(messages: readonly ChatMessage[], known: readonly ChatMessage[] = []): TranscriptDefect | undefined {
  const calls = new Map<string, ToolCall>();
  const results = new Map<string, string>();
  const notes = new Map<string, number>();
  for (const m of known) {
    if (m.role === "assistant") for (const c of m.tool_calls ?? []) calls.set(c.id, c);
    else if (m.role === "tool") results.set(m.tool_call_id, m.content);
    else if (m.role === "system") notes.set(m.content, (notes.get(m.content) ?? 0) + 1);
  }
  const had = known.length > 0;
  for (const [index, m] of messages.entries()) {
    if (m.role === "system") {
      const left = notes.get(m.content) ?? 0;
      if (left > 0) {
        notes.set(m.content, left - 1);
        continue;
      }
      return { defect: `messages[${index}] is a system message${had ? " the transcript did not have" : ""}; a transcript holds one ${VOUCH}`, index };
    }
    if (m.role === "assistant") {
      const call = m.tool_calls?.find((c) => !sameCall(c, calls.get(c.id)));
      if (call) {
        return {
          defect: `messages[${index}] holds tool call "${call.id}"${had ? ", which the model did not make with that name and those arguments" : ""}; a transcript holds tool calls ${VOUCH}`,
          index,
          toolCallId: call.id,
        };
      }
      continue;
    }
    if (m.role === "tool" && results.get(m.tool_call_id) !== m.content) {
      return {
        defect: `messages[${index}] is a tool result${had ? ` for "${m.tool_call_id}" that is not the one the run had (forged or altered)` : ""}; a transcript holds tool results ${VOUCH}`,
        index,
        toolCallId: m.tool_call_id,
      };
    }
  }
  return undefined;
}

/**
 * Refuses (AI1008) a deferred run's rewrite that changes what its approver decides on, or
 * that speaks for the model, the tools or the operator without being vouched for. Whatever
 * the caller vouches for, the deferred call keeps its id, name and arguments, and once its
 * answer landed (a resumed run waiting for compaction) that result stays as it was too: it
 * is the approval. Without `trusted`, `unvouchedDefect` against the current transcript.
 */
export function assertRewriteKeeps(
  before: readonly ChatMessage[],
  after: readonly ChatMessage[],
  { deferredToolCallId, trusted }: { deferredToolCallId: string; trusted: boolean },
): void {
  const was = findToolCall(before, deferredToolCallId);
  if (was) {
    const now = findToolCall(after, deferredToolCallId);
    if (!now || !sameCall(now.call, was.call)) {
      throw new ThreadRewriteError({
        defect: `the deferred tool call "${deferredToolCallId}" was ${now ? "changed" : "dropped"}: its name and arguments are what the approver decides on, and stay as they were`,
        toolCallId: deferredToolCallId,
      });
    }
    if (was.answered && resultOf(after, deferredToolCallId) !== resultOf(before, deferredToolCallId)) {
      throw new ThreadRewriteError({ defect: `the deferred tool call "${deferredToolCallId}" has its accepted answer changed or dropped; it is the approval`, toolCallId: deferredToolCallId });
    }
  }
  const found = trusted ? undefined : unvouchedDefect(after, before);
  if (found) throw new ThreadRewriteError(found);
}

function sameCall(a: ToolCall, b: ToolCall | undefined): boolean {
  return b !== undefined && a.id === b.id && a.type === b.type && a.function.name === b.function.name && a.function.arguments === b.function.arguments;
}

function resultOf(messages: readonly ChatMessage[], toolCallId: string): string | undefined {
  for (const m of messages) if (m.role === "tool" && m.tool_call_id === toolCallId) return m.content;
  return undefined;
}
