/**
 * What a reader's screen acts on instead of showing: C0 controls (ESC starts the sequences
 * that clear a terminal, move its cursor or retitle its window; CR overwrites a line), DEL,
 * C1 controls (U+009B is CSI, ESC [ in one character, on terminals that honour C1), and the
 * bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which
 * reorder what a terminal or a browser shows: `IBAN DE89 <U+202E>9870` reads backwards.
 * The CLI prints text through these, and the approval and inbox pages show it through them,
 * so text from a model, a tool or a user is seen as it is.
 */
const CONTROLS = "\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069";
const MULTI_LINE = new RegExp(`[${CONTROLS}]`, "g");
const ONE_LINE = new RegExp(`[${CONTROLS}\\t\\n]`, "g");
// JSON.stringify already escapes C0; these it leaves as they are.
const JSON_UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * Text from a model, a tool, a user or a payload, made safe to show: every control or
 * direction-changing character shown as its `\uXXXX` escape, line breaks and tabs kept (a
 * CR-LF line end reads as a line break).
 */
export function printable(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(MULTI_LINE, escaped);
}

/** `printable` for a field that is one line by nature (an id, a name, a reason): line breaks and tabs escaped too, so none can forge a line. */
export function oneLine(text: string): string {
  return text.replace(ONE_LINE, escaped);
}

/** JSON text made safe to show: the characters JSON leaves raw (DEL, C1, direction controls) escaped too. Still JSON, the same values. */
export function printableJson(json: string): string {
  return json.replace(JSON_UNSAFE, escaped);
}
