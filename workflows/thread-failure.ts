import { ActivityFailure, ApplicationFailure } from "@temporalio/workflow";
import type { ThreadFailure } from "../src/core/thread-contracts.js";

/** What `getThread` shows as the failed turn's error: the typed code when there is one. */
export function failureOf(err: unknown): Omit<ThreadFailure, "at"> {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type && /^(AI|RC)\d{4}$/.test(cause.type)) {
    return { code: cause.type, message: cause.message };
  }
  // A retryable failure (429, 5xx, network, a timeout) that outlasted the model call's attempts.
  if (err instanceof ActivityFailure && err.activityType === "threadCallModel") {
    return { code: "AI1003", message: `[AI1003] The model call failed after its retries: ${cause instanceof Error ? cause.message : String(cause)}` };
  }
  return { message: cause instanceof Error ? cause.message : String(cause) };
}
