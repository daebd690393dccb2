import type { ChatMessage } from "../core/messages.js";

/**
 * What a terminal acts on instead of showing: C0 controls (ESC starts the sequences that
 * clear the screen, move the cursor or retitle the window; CR overwrites a line), DEL, C1
 * controls (U+009B is CSI, ESC [ in one character, on terminals that honour C1), and the
 * bidirectional overrides and isolates that reorder what is shown.
 */
const CONTROLS = "\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069";
const MULTI_LINE = new RegExp(`[${CONTROLS}]`, "g");
const ONE_LINE = new RegExp(`[${CONTROLS}\\t\\n]`, "g");
// JSON.stringify already escapes C0; these it leaves as they are.
const JSON_UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * Text from a model, a tool, a user or a payload, made safe to print: every control
 * character shown as its `\uXXXX` escape, line breaks and tabs kept (a CR-LF line end
 * reads as a line break).
 */
export function printable(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(MULTI_LINE, escaped);
}

/** `printable` for a field that is one line by nature (an id, a name, a reason): line breaks and tabs escaped too, so none can forge a line. */
export function oneLine(text: string): string {
  return text.replace(ONE_LINE, escaped);
}

/** JSON as printed with `--json`: the controls JSON leaves raw (DEL, C1, bidi) escaped too. Still JSON, the same values. */
export function printableJson(json: string): string {
  return json.replace(JSON_UNSAFE, escaped);
}

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
