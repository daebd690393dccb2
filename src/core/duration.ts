import { msToNumber, type Duration } from "@temporalio/common/lib/time.js";
import { InvalidDefinitionError } from "./errors/invalid-definition.js";

/**
 * The longest duration the SDK accepts (100 years). Beyond it a deadline no longer fits a
 * date, and would throw in workflow code instead of being refused where it was written.
 */
export const MAX_DURATION_MS = 100 * 365 * 24 * 3600 * 1000;

/**
 * A positive duration (`"72h"`, `"500ms"`, a number of ms) in milliseconds; AI1001 naming
 * `subject` for anything else, so a bad option fails where it is given. Sandbox-safe.
 */
export function durationMs(value: Duration, subject: string, example = "72h"): number {
  return toMs(value, subject, example, false);
}

/** As `durationMs`, with 0 allowed: a wait that may be none (a retry's backoff, a reply's delay). */
export function delayMs(value: Duration, subject: string, example = "250ms"): number {
  return toMs(value, subject, example, true);
}

function toMs(value: Duration, subject: string, example: string, zero: boolean): number {
  let ms = NaN;
  try {
    ms = msToNumber(value);
  } catch {
    // reported below
  }
  if (!Number.isFinite(ms) || ms < 0 || (ms === 0 && !zero) || ms > MAX_DURATION_MS) {
    throw new InvalidDefinitionError({
      subject,
      problem: `${JSON.stringify(value)} is not a ${zero ? "" : "positive "}duration of at most 100 years, like "${example}"${zero ? " or 0" : ""}`,
    });
  }
  return ms;
}
