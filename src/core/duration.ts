import { msToNumber, type Duration } from "@temporalio/common/lib/time.js";
import { InvalidDefinitionError } from "./errors/setup.js";

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
  let ms = NaN;
  try {
    ms = msToNumber(value);
  } catch {
    // reported below
  }
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_DURATION_MS) {
    throw new InvalidDefinitionError({
      subject,
      problem: `${JSON.stringify(value)} is not a positive duration of at most 100 years, like "${example}"`,
    });
  }
  return ms;
}
