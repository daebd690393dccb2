import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ThreadRewriteFields = { defect: string; index?: number; toolCallId?: string };

/**
 * AI1008: A thread rewrite broke call/result pairing, order, ids, emptied the thread,
 * dropped or changed the deferred call, or (not vouched for) held tool calls, tool results
 * or system messages the run did not have.
 */
export class ThreadRewriteError extends DurableAgentsError<ThreadRewriteFields> {
  static readonly code = ErrorCode.ThreadRewriteInvalid;
  readonly code = ErrorCode.ThreadRewriteInvalid;
  constructor(f: ThreadRewriteFields) {
    super(
      `[AI1008] Thread rewrite refused: ${f.defect}. Nothing was written; fix the rewrite so every tool call keeps its result and the deferred call stays as it was.`,
      f,
    );
  }
}
