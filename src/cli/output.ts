// The brand alone: the error classes (and Temporal's failure types) load only with a command that connects.
import { isBranded } from "../core/errors/brand.js";
import type { Globals } from "./flags.js";
import type { CliIo } from "./io.js";
import { oneLine, printable, printableJson } from "../core/printable.js";

/** Where a command writes: a table or lines for people, one JSON document with `--json`. */
export interface Output {
  json: boolean;
  /** The command's result: JSON with `--json`, else the lines `human` renders. */
  result(value: unknown, human: () => string[]): void;
  /** A line as it happens (tails); with `--json`, one JSON object per line. */
  line(value: unknown, human: string): void;
  /** Progress on a terminal only: never with `--json`, never into a pipe. */
  progress(text: string): () => void;
}

export function output({ json, io }: Globals): Output {
  const tty = io.stderrIsTTY && !json;
  return {
    json,
    // Everything printed may hold a model's or a user's text: no control character reaches the terminal raw.
    result(value, human) {
      io.stdout(json ? `${printableJson(JSON.stringify(value, null, 2))}\n` : human().map((l) => `${printable(l)}\n`).join(""));
    },
    line(value, human) {
      io.stdout(json ? `${printableJson(JSON.stringify(value))}\n` : printable(human));
    },
    progress(label) {
      if (!tty) return () => undefined;
      const text = oneLine(label);
      const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
      let i = 0;
      const timer = setInterval(() => io.stderr(`\r${frames[i++ % frames.length]} ${text}`), 100);
      return () => {
        clearInterval(timer);
        io.stderr("\r\x1b[K");
      };
    },
  };
}

/** Rows as aligned columns under a header. */
export function table(header: string[], rows: string[][]): string[] {
  if (rows.length === 0) return ["(none)"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => oneLine(r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(header), ...rows.map((r) => line(r.map(oneLine)))];
}

/** "3m", "2h", "4d": how long ago (or, negative, how far ahead) an instant is. */
export function age(iso: string | undefined, now = Date.now()): string {
  if (!iso) return "-";
  const ms = now - Date.parse(iso);
  if (Number.isNaN(ms)) return "-";
  const abs = Math.abs(ms);
  const text = abs < 60_000 ? `${Math.round(abs / 1000)}s` : abs < 3_600_000 ? `${Math.round(abs / 60_000)}m` : abs < 86_400_000 ? `${Math.round(abs / 3_600_000)}h` : `${Math.round(abs / 86_400_000)}d`;
  return ms >= 0 ? text : `in ${text}`;
}

/**
 * Prints an error with its code and message (JSON with `--json`) and returns the exit code:
 * 1 for a refusal or failure the SDK names, 3 for anything else (connection, bugs).
 */
export function reportError(err: unknown, json: boolean, io: CliIo): number {
  // A typed SDK error, or a followed thread turn that failed (carrying the thread's error code).
  const coded = isBranded(err) || (err instanceof Error && err.name === "ThreadTurnFailed");
  const code = coded ? (err as { code?: string }).code : undefined;
  const message = err instanceof Error ? err.message : String(err);
  if (json) io.stdout(`${printableJson(JSON.stringify({ error: { ...(code ? { code } : {}), message } }))}\n`);
  else io.stderr(`error${code && !message.startsWith(`[${code}]`) ? ` [${oneLine(code)}]` : ""}: ${printable(message)}\n`);
  return coded ? 1 : 3;
}
