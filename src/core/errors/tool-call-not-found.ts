import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ToolCallNotFoundFields = { threadId: string; toolCallId: string; reason: string };

/** AI1022: a tool result or error names a call that no async tool of the thread is waiting on. */
export class ToolCallNotFoundError extends DurableAgentsError<ToolCallNotFoundFields> {
  static readonly code = ErrorCode.ToolCallNotFound;
  readonly code = ErrorCode.ToolCallNotFound;
  constructor(f: ToolCallNotFoundFields) {
    super(
      `[AI1022] Thread "${f.threadId}" has no async tool call "${f.toolCallId}" waiting for a result (${f.reason}). Nothing changed. Use the toolCallId the async tool's callback received.`,
      f,
    );
  }
}
