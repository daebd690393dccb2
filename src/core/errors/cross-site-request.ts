import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface CrossSiteRequestFields {
  /** The request's `Origin` header, when it sent one. */
  origin?: string;
}

/** AI1043: a state-changing request came from another site (a forged form post); refused before anything ran. */
export class CrossSiteRequestError extends DurableAgentsError<CrossSiteRequestFields> {
  static readonly code = ErrorCode.CrossSiteRequest;
  readonly code = ErrorCode.CrossSiteRequest;
  constructor(fields: CrossSiteRequestFields) {
    super(`[AI1043] Cross-site request refused${fields.origin ? ` (Origin ${fields.origin})` : ""}. Nothing was done.`, fields);
  }
}
