import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface RunTerminatedFields {
  runId: string;
  /** How Temporal closed it: `terminated` (an operator, or the server for history or payload size) or `timed-out`. */
  closedAs: "terminated" | "timed-out";
  /** The reason recorded with the termination, when there is one. */
  reason?: string;
}

/**
 * AI1014: Temporal closed the run before it finished: terminated (by an operator, or by the
 * server when its history or a payload grew past the limits) or timed out. It has no
 * result and cannot be resumed.
 */
export class RunTerminatedError extends DurableAgentsError<RunTerminatedFields> {
  static readonly code = ErrorCode.RunTerminated;
  readonly code = ErrorCode.RunTerminated;
  constructor(f: RunTerminatedFields) {
    const how =
      f.closedAs === "timed-out"
        ? "timed out (its Temporal execution timeout passed)"
        : `was terminated by Temporal${f.reason ? ` (reason: ${f.reason})` : ""}: by an operator, or by the server when its history or a payload grew past the limits`;
    super(`[AI1014] The run "${f.runId}" ${how}. It will not finish and cannot be resumed; start a new run.`, f);
  }
}
