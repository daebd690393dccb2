import { ActivityFailure, ApplicationFailure } from "@temporalio/workflow";
import { isErrorCode } from "../src/core/errors/codes.js";
import { ModelCallFailedError } from "../src/core/errors/runs.js";
import type { ThreadFailure } from "../src/core/thread-contracts.js";

/** What `getThread` shows as the failed turn's error: the typed code when there is one. */
export function failureOf(err: unknown): Omit<ThreadFailure, "at"> {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  const message = cause instanceof Error ? cause.message : String(cause);
  if (cause instanceof ApplicationFailure && isErrorCode(cause.type)) return { code: cause.type, message };
  // A retryable failure (429, 5xx, network, a timeout) that outlasted a legacy thread's model
  // call attempts; threads from version 1 on get AI1003 from the agent-step layer itself.
  if (err instanceof ActivityFailure && err.activityType === "threadCallModel") {
    const failed = new ModelCallFailedError({ detail: `${message} (after its retries)` });
    return { code: failed.code, message: failed.message };
  }
  return { message };
}
