import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface RequestMalformedFields {
  /** The update or query, e.g. `durable-agents.cancel`. */
  request: string;
  problem: string;
}

/**
 * AI1012: an update or query argument of the wrong shape. The clients never send one; a raw
 * Temporal client can, and the workflow refuses it (an update in its validator, so it leaves
 * no history) instead of failing its workflow task on it.
 */
export class RequestMalformedError extends DurableAgentsError<RequestMalformedFields> {
  static readonly code = ErrorCode.RequestMalformed;
  readonly code = ErrorCode.RequestMalformed;
  constructor(fields: RequestMalformedFields) {
    super(`[AI1012] Malformed ${fields.request} request: ${fields.problem}`, fields);
  }
}
