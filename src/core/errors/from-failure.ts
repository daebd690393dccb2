import { ApplicationFailure, TemporalFailure } from "@temporalio/common";
import type { DurableAgentsError } from "./base.js";
import { isErrorCode, type ErrorCode } from "./codes.js";
import * as deferrals from "./deferrals.js";
import * as http from "./http.js";
import * as limits from "./limits.js";
import * as runs from "./runs.js";
import * as schedules from "./schedules.js";
import * as setup from "./setup.js";
import * as threads from "./threads.js";

const areas = [setup, deferrals, runs, threads, schedules, limits, http];
type Exported<T> = T extends unknown ? T[keyof T] : never;
type ErrorClass = Extract<Exported<(typeof areas)[number]>, { readonly code: ErrorCode }>;
type Rebuild = new (fields: never) => DurableAgentsError;

// A code of the table whose class no area exports fails to compile here, naming the code.
type Unclassed = Exclude<ErrorCode, ErrorClass["code"]>;
const everyCodeHasAClass: [Unclassed] extends [never] ? true : Unclassed = true;
void everyCodeHasAClass;

/** Code → class, so a failure that crossed the wire can be rebuilt as the typed error. */
const errorClasses = new Map<string, Rebuild>(
  areas.flatMap((area) =>
    Object.values(area).flatMap((value) =>
      typeof value === "function" && isErrorCode((value as { code?: unknown }).code) ? [[(value as { code: ErrorCode }).code, value as unknown as Rebuild] as const] : [],
    ),
  ),
);

/**
 * Turns a Temporal failure chain (WorkflowFailedError → ActivityFailure → ApplicationFailure …)
 * back into the typed SDK error that caused it, or returns undefined when none did.
 */
export function fromFailure(err: unknown): DurableAgentsError | undefined {
  for (let cur: unknown = err; cur; cur = (cur as { cause?: unknown }).cause) {
    // An own-key check: a failure typed "constructor" or "__proto__" is not one of ours.
    if (cur instanceof ApplicationFailure && isErrorCode(cur.type)) {
      const Cls = errorClasses.get(cur.type);
      if (Cls) return new Cls((cur.details?.[0] ?? {}) as never);
    }
    if (!(cur instanceof Error) && !(cur instanceof TemporalFailure)) break;
  }
  return undefined;
}

/** The typed SDK error behind `err` when there is one, else `err` unchanged. */
export function unwrapFailure(err: unknown): unknown {
  return fromFailure(err) ?? err;
}
