import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface RequestTooLargeFields {
  /** The limit in bytes the body went over. */
  limitBytes: number;
}

/** AI1041: an HTTP request body went over the front door's size limit. Nothing was read or done. */
export class RequestTooLargeError extends DurableAgentsError<RequestTooLargeFields> {
  static readonly code = ErrorCode.RequestTooLarge;
  readonly code = ErrorCode.RequestTooLarge;
  constructor(fields: RequestTooLargeFields) {
    super(`[AI1041] The request body is larger than ${fields.limitBytes} bytes. Nothing was done.`, fields);
  }
}
