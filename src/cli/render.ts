import type { ChatMessage } from "../core/messages.js";

/** One transcript message as a line an operator reads: who said it, and what (tool calls as name(args)). */
export function messageLine(m: ChatMessage): string {
  switch (m.role) {
    case "assistant": {
      const calls = (m.tool_calls ?? []).map((c) => `${c.function.name}(${c.function.arguments})`);
      return `assistant: ${[m.content ?? "", ...calls.map((c) => `→ ${c}`)].filter(Boolean).join(" ")}`;
    }
    case "tool":
      return `tool ${m.tool_call_id}: ${m.content}`;
    default:
      return `${m.role}: ${m.content}`;
  }
}

/** Parses a JSON flag value, naming the flag when it is not JSON. */
export function jsonFlag(value: string, flag: string): unknown {
  try {
    return JSON.parse(value);
  } catch (err) {
    throw new FlagError(`${flag} is not JSON: ${(err as Error).message}`);
  }
}

/** A flag the command cannot use: printed like commander's own usage errors, exit code 2. */
export class FlagError extends Error {
  override readonly name = "FlagError";
}
