import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface ThreadTerminatedFields {
  threadId: string;
  /** How Temporal closed it: `terminated` (an operator, or the server for history or payload size) or `timed-out`. */
  closedAs: "terminated" | "timed-out";
  /** The reason recorded with the termination, when there is one. */
  reason?: string;
}

/**
 * AI1029: Temporal closed the thread's workflow without it being deleted: terminated (by an
 * operator, or by the server) or timed out. It takes no messages and never settles again;
 * its transcript stays readable while Temporal keeps the closed workflow.
 */
export class ThreadTerminatedError extends DurableAgentsError<ThreadTerminatedFields> {
  static readonly code = ErrorCode.ThreadTerminated;
  readonly code = ErrorCode.ThreadTerminated;
  constructor(f: ThreadTerminatedFields) {
    const how = f.closedAs === "timed-out" ? "timed out (its Temporal execution timeout passed)" : `was terminated${f.reason ? ` (reason: ${f.reason})` : ""}`;
    super(`[AI1029] The thread "${f.threadId}" ${how}. It will not answer again; start a new thread (its messages can seed it).`, f);
  }
}
