import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ThreadNotResumableFields = { threadId: string; status: string };

/** AI1024: `resumeThread` without a prompt on a thread that has nothing to continue. */
export class ThreadNotResumableError extends DurableAgentsError<ThreadNotResumableFields> {
  static readonly code = ErrorCode.ThreadNotResumable;
  readonly code = ErrorCode.ThreadNotResumable;
  constructor(f: ThreadNotResumableFields) {
    super(
      `[AI1024] Thread "${f.threadId}" is ${f.status} and has nothing to resume: no interrupted turn and no queued message. Pass a prompt, or use sendMessage().`,
      f,
    );
  }
}
