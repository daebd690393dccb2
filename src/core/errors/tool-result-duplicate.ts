import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ToolResultDuplicateFields = { threadId: string; toolCallId: string };

/** AI1028: the async tool call already has its result. The threads client answers `{ status: "duplicate" }` instead of throwing. */
export class ToolResultDuplicateError extends DurableAgentsError<ToolResultDuplicateFields> {
  static readonly code = ErrorCode.ToolResultDuplicate;
  readonly code = ErrorCode.ToolResultDuplicate;
  constructor(f: ToolResultDuplicateFields) {
    super(
      `[AI1028] Async tool call "${f.toolCallId}" of thread "${f.threadId}" already has its result; this one was ignored and nothing changed.`,
      f,
    );
  }
}
