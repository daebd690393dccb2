import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ThreadAlreadyExistsFields = { threadId: string };

/** AI1025: `createThread` with a thread id that is already taken. */
export class ThreadAlreadyExistsError extends DurableAgentsError<ThreadAlreadyExistsFields> {
  static readonly code = ErrorCode.ThreadAlreadyExists;
  readonly code = ErrorCode.ThreadAlreadyExists;
  constructor(f: ThreadAlreadyExistsFields) {
    super(
      `[AI1025] A thread with id "${f.threadId}" already exists. Send messages to it with sendMessage(), or pick another id.`,
      f,
    );
  }
}
