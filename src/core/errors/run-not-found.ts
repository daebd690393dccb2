import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface RunNotFoundFields {
  runId: string;
}

/** AI1010: no run with that id exists on the server (wrong id, namespace, or retention passed). */
export class RunNotFoundError extends DurableAgentsError<RunNotFoundFields> {
  static readonly code = ErrorCode.RunNotFound;
  readonly code = ErrorCode.RunNotFound;
  constructor(fields: RunNotFoundFields) {
    super(`[AI1010] No run "${fields.runId}" exists in this namespace. Check the id and the namespace.`, fields);
  }
}
