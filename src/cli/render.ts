import type { ChatMessage } from "../core/messages.js";
import { oneLine, printable } from "../core/printable.js";

/**
 * One transcript message as a line an operator reads: who said it, and what (tool calls as
 * name(args)). Lines after the first are indented, so a message's text cannot pass for
 * another message.
 */
export function messageLine(m: ChatMessage): string {
  switch (m.role) {
    case "assistant": {
      const calls = (m.tool_calls ?? []).map((c) => `${oneLine(c.function.name)}(${oneLine(c.function.arguments)})`);
      return `assistant: ${[indented(m.content ?? ""), ...calls.map((c) => `→ ${c}`)].filter(Boolean).join(" ")}`;
    }
    case "tool":
      return `tool ${oneLine(m.tool_call_id)}: ${indented(m.content)}`;
    default:
      return `${m.role}: ${indented(m.content)}`;
  }
}

function indented(text: string | null | undefined): string {
  return printable(String(text ?? "")).replace(/\n/g, "\n    ");
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
