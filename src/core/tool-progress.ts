import type { JsonValue } from "./json.js";
import { plainJsonProblem } from "./json-check.js";
import { jsonBytes } from "./payload-size.js";
import { InvalidDefinitionError } from "./errors/setup.js";
import { PayloadTooLargeError } from "./errors/limits.js";

/** The most one `ctx.progress(data)` may weigh, as UTF-8 bytes of its JSON: 16 KiB. */
export const MAX_PROGRESS_BYTES = 16 * 1024;

/**
 * The least time between two progress entries of one tool call, in ms. The first is sent at
 * once; what the handler reports meanwhile replaces what waits, so readers get the latest.
 */
export const PROGRESS_INTERVAL_MS = 250;

/**
 * `data` as a progress entry carries it: AI1001 when it is not plain JSON (a function, a
 * cycle, a BigInt, a Date …), AI1016 when it weighs more than `MAX_PROGRESS_BYTES`.
 */
export function checkedProgress(data: unknown, toolName: string): JsonValue {
  const bytes = jsonBytes(data, MAX_PROGRESS_BYTES);
  // A cycle measures Infinity: the plain-JSON check below names it.
  if (bytes > MAX_PROGRESS_BYTES && Number.isFinite(bytes)) {
    throw new PayloadTooLargeError({
      what: `ctx.progress() data of tool "${toolName}"`,
      bytes,
      limitBytes: MAX_PROGRESS_BYTES,
      hint: "Progress is a preview: report a summary (a count, a percentage, the current step), and return the full data as the tool's result.",
    });
  }
  const problem = data === undefined ? { path: "$", problem: "undefined is not JSON" } : plainJsonProblem(data);
  if (problem) throw new InvalidDefinitionError({ subject: `ctx.progress() data of tool "${toolName}"`, problem: `${problem.path}: ${problem.problem}; pass plain JSON (objects, arrays, strings, finite numbers, booleans, null)` });
  return data as JsonValue;
}
