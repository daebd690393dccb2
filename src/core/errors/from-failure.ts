import { ApplicationFailure, TemporalFailure } from "@temporalio/common";
import type { DurableAgentsError } from "./base.js";
import { isErrorCode } from "./codes.js";
import { errorClasses } from "./registry.js";

/**
 * Turns a Temporal failure chain (WorkflowFailedError → ActivityFailure → ApplicationFailure …)
 * back into the typed SDK error that caused it, or returns undefined when none did.
 */
export function fromFailure(err: unknown): DurableAgentsError | undefined {
  for (let cur: unknown = err; cur; cur = (cur as { cause?: unknown }).cause) {
    // An own-key check: a failure typed "constructor" or "__proto__" is not one of ours.
    if (cur instanceof ApplicationFailure && isErrorCode(cur.type)) {
      const Cls = errorClasses[cur.type];
      const fields = (cur.details?.[0] ?? {}) as never;
      return new Cls(fields);
    }
    if (!(cur instanceof Error) && !(cur instanceof TemporalFailure)) break;
  }
  return undefined;
}

/** The typed SDK error behind `err` when there is one, else `err` unchanged. */
export function unwrapFailure(err: unknown): unknown {
  return fromFailure(err) ?? err;
}
