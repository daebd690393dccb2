import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ThreadUnauthorizedFields = { threadId: string; operation: string; returned: string };

/** AI1021: the threads client's authorize hook did not return exactly `true`; nothing was read or changed. */
export class ThreadUnauthorizedError extends DurableAgentsError<ThreadUnauthorizedFields> {
  static readonly code = ErrorCode.ThreadUnauthorized;
  readonly code = ErrorCode.ThreadUnauthorized;
  constructor(f: ThreadUnauthorizedFields) {
    super(
      `[AI1021] ${f.operation} on thread "${f.threadId}" refused: the authorize hook returned ${f.returned}, not true. Nothing was read or changed.`,
      f,
    );
  }
}
