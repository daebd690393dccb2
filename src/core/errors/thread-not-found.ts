import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ThreadNotFoundFields = { threadId: string };

/** AI1020: no thread with that id (never created, deleted, or past retention). */
export class ThreadNotFoundError extends DurableAgentsError<ThreadNotFoundFields> {
  static readonly code = ErrorCode.ThreadNotFound;
  readonly code = ErrorCode.ThreadNotFound;
  constructor(f: ThreadNotFoundFields) {
    super(
      `[AI1020] No thread "${f.threadId}" exists: it was never created or it was deleted. Check the id and the namespace, or create it with createThread().`,
      f,
    );
  }
}
