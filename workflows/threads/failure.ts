import { ActivityFailure, ApplicationFailure } from "@temporalio/workflow";
import { isErrorCode } from "../../src/core/errors/codes.js";
import type { ThreadFailure } from "../../src/core/thread-contracts.js";

/** What `getThread` shows as the failed turn's error: the typed code when there is one. */
export function failureOf(err: unknown): Omit<ThreadFailure, "at"> {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  const message = cause instanceof Error ? cause.message : String(cause);
  if (cause instanceof ApplicationFailure && isErrorCode(cause.type)) return { code: cause.type, message };
  return { message };
}
