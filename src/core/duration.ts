import type { Duration } from "@temporalio/common";
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
  return toMs(value, subject, example, false);
}

/** As `durationMs`, with 0 allowed: a wait that may be none (a retry's backoff, a reply's delay). */
export function delayMs(value: Duration, subject: string, example = "250ms"): number {
  return toMs(value, subject, example, true);
}

function toMs(value: Duration, subject: string, example: string, zero: boolean): number {
  const ms = typeof value === "number" ? value : typeof value === "string" ? parseDuration(value) : NaN;
  if (!Number.isFinite(ms) || ms < 0 || (ms === 0 && !zero) || ms > MAX_DURATION_MS) {
    throw new InvalidDefinitionError({
      subject,
      problem: `${JSON.stringify(value)} is not a ${zero ? "" : "positive "}duration of at most 100 years, like "${example}"${zero ? " or 0" : ""}`,
    });
  }
  return ms;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_557_600_000 };
const DURATION = /^(-?(?:\d+)?\.?\d+) *(?:(milliseconds?|msecs?|ms)|(seconds?|secs?|s)|(minutes?|mins?|m)|(hours?|hrs?|h)|(days?|d)|(weeks?|w)|(years?|yrs?|y))?$/i;
const UNITS = ["ms", "s", "m", "h", "d", "w", "y"] as const;

/**
 * A duration string in milliseconds, NaN when it is not one: the spelling Temporal's
 * `Duration` takes (`"72h"`, `"1.5 days"`, `"500"`: the `ms` package's, a year 365.25 days),
 * parsed here because Temporal publishes no parser (`test/unit/duration.test.ts` holds the
 * two to the same answers).
 */
export function parseDuration(text: string): number {
  if (text.length === 0 || text.length > 100) return NaN;
  const match = DURATION.exec(text);
  if (!match) return NaN;
  const unit = UNITS[match.slice(2).findIndex((m) => m !== undefined)] ?? "ms";
  return parseFloat(match[1]!) * UNIT_MS[unit]!;
}

/** A protobuf timestamp or duration (`{ seconds, nanos }`, seconds a number or a Long) in milliseconds. */
export function timestampMs(ts: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null | undefined): number | undefined {
  if (ts === undefined || ts === null) return undefined;
  const seconds = ts.seconds === undefined || ts.seconds === null ? 0 : typeof ts.seconds === "number" ? ts.seconds : ts.seconds.toNumber();
  return seconds * 1000 + Math.floor((ts.nanos ?? 0) / 1_000_000);
}
