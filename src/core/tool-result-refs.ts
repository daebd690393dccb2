import type { ChatMessage } from "./messages.js";
import { messageFingerprint } from "./fingerprint.js";

/**
 * A tool result a model call's input names instead of carrying: its place in the call's
 * delta (whose copy has empty content) and the fingerprint of the whole message.
 */
export interface ToolResultRef {
  index: number;
  fingerprint: string;
}

/**
 * Results shorter than this (in characters) travel inline: a reference and, on a worker that misses it, a
 * query would cost more than the bytes saved.
 */
export const MIN_REFERENCED_RESULT_CHARS = 128;

/**
 * The delta a model call sends when the results of `fromTools` (tool call ids whose results
 * came back from a tool activity, so are already in history once) go by reference.
 */
export function referToolResults(delta: readonly ChatMessage[], fromTools: ReadonlySet<string>): { delta: ChatMessage[]; refs: ToolResultRef[] } {
  const refs: ToolResultRef[] = [];
  const sent = delta.map((message, index) => {
    if (message.role !== "tool" || !fromTools.has(message.tool_call_id) || message.content.length < MIN_REFERENCED_RESULT_CHARS) return message;
    refs.push({ index, fingerprint: messageFingerprint(message) });
    return { ...message, content: "" };
  });
  return { delta: sent, refs };
}

/**
 * The delta with each referenced result filled in by `lookup` (a worker's copy of what its
 * tool calls returned), or undefined when any is missing or is not the one the host took.
 */
export function fillToolResults(
  delta: readonly ChatMessage[],
  refs: readonly ToolResultRef[],
  lookup: (toolCallId: string) => string | undefined,
): ChatMessage[] | undefined {
  const filled = [...delta];
  for (const ref of refs) {
    const message = filled[ref.index];
    if (message?.role !== "tool") return undefined;
    const content = lookup(message.tool_call_id);
    if (content === undefined) return undefined;
    const whole = { ...message, content };
    if (messageFingerprint(whole) !== ref.fingerprint) return undefined;
    filled[ref.index] = whole;
  }
  return filled;
}
