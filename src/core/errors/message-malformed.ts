import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface MessageMalformedFields {
  /** The update or query, e.g. `durable-agents.cancel`. */
  request: string;
  problem: string;
}

/**
 * AI1012: an update or query argument of the wrong shape. The clients never send one; a raw
 * Temporal client can, and the workflow refuses it (an update in its validator, so it leaves
 * no history) instead of failing its workflow task on it. A run's or thread's start input
 * of a version the worker does not know fails that workflow with it, before it does anything.
 */
export class MessageMalformedError extends DurableAgentsError<MessageMalformedFields> {
  static readonly code = ErrorCode.MessageMalformed;
  readonly code = ErrorCode.MessageMalformed;
  constructor(fields: MessageMalformedFields) {
    super(`[AI1012] Malformed ${fields.request} request: ${fields.problem}`, fields);
  }
}
