import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface RequestMalformedFields {
  /** Where the problem is: `body`, `query`, `param`, `header`, or a field path inside one. */
  where: string;
  problem: string;
}

/** AI1040: the HTTP front door could not read the request (malformed JSON, wrong types, bad ids). Nothing was done. */
export class RequestMalformedError extends DurableAgentsError<RequestMalformedFields> {
  static readonly code = ErrorCode.RequestMalformed;
  readonly code = ErrorCode.RequestMalformed;
  constructor(fields: RequestMalformedFields) {
    super(`[AI1040] Malformed request (${fields.where}): ${fields.problem}. Nothing was done.`, fields);
  }
}
