import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface RouteNotFoundFields {
  method: string;
  path: string;
}

/** AI1042: the HTTP front door has no route with that method and path. */
export class RouteNotFoundError extends DurableAgentsError<RouteNotFoundFields> {
  static readonly code = ErrorCode.RouteNotFound;
  readonly code = ErrorCode.RouteNotFound;
  constructor(fields: RouteNotFoundFields) {
    super(`[AI1042] No route ${fields.method} ${fields.path}.`, fields);
  }
}
