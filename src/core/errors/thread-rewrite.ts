import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ThreadRewriteFields = { defect: string; index?: number; toolCallId?: string };

/** AI1008: A thread rewrite broke call/result pairing, order, ids, emptied the thread or dropped the deferred call. */
export class ThreadRewriteError extends DurableAgentsError<ThreadRewriteFields> {
  static readonly code = ErrorCode.ThreadRewriteInvalid;
  readonly code = ErrorCode.ThreadRewriteInvalid;
  constructor(f: ThreadRewriteFields) {
    super(
      `[AI1008] Thread rewrite refused: ${f.defect}. Nothing was written; fix the rewrite so every tool call keeps its result and the deferred call stays.`,
      f,
    );
  }
}
