import { WorkflowFailedError, WorkflowNotFoundError } from "@temporalio/client";
import { TerminatedFailure, TimeoutFailure } from "@temporalio/common";
import { unwrapFailure } from "../core/errors/from-failure.js";
import { RunNotFoundError, RunTerminatedError } from "../core/errors/runs.js";

// What the client says when a termination came without a reason.
const DEFAULT_TERMINATION = "Workflow execution terminated";

/**
 * What a failed read of a run means to its caller: AI1010 for an unknown run, the run's
 * own typed error when it failed, AI1014 when Temporal terminated it or it timed out
 * (neither leaves a typed failure of ours behind), anything else unchanged.
 */
export function runFailure(runId: string, err: unknown): unknown {
  if (err instanceof WorkflowNotFoundError) return new RunNotFoundError({ runId });
  if (!(err instanceof WorkflowFailedError)) return err;
  if (err.cause instanceof TerminatedFailure) {
    const reason = err.cause.message;
    return new RunTerminatedError({ runId, closedAs: "terminated", ...(reason && reason !== DEFAULT_TERMINATION ? { reason } : {}) });
  }
  if (err.cause instanceof TimeoutFailure) return new RunTerminatedError({ runId, closedAs: "timed-out" });
  return unwrapFailure(err);
}

/** Runs a read of run `runId`, its failure told as `runFailure` tells it. */
export async function translateRun<T>(runId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw runFailure(runId, err);
  }
}
