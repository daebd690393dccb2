import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ThreadMessageInvalidFields = { threadId?: string; problem: string };

/** AI1027: a message given to a thread is malformed or would break the call/result pairing. */
export class ThreadMessageInvalidError extends DurableAgentsError<ThreadMessageInvalidFields> {
  static readonly code = ErrorCode.ThreadMessageInvalid;
  readonly code = ErrorCode.ThreadMessageInvalid;
  constructor(f: ThreadMessageInvalidFields) {
    super(
      `[AI1027] Message refused${f.threadId ? ` by thread "${f.threadId}"` : ""}: ${f.problem}. Nothing changed.`,
      f,
    );
  }
}
