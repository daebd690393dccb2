import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface InvalidDefinitionFields {
  /** What was being defined, e.g. `agent "payouts"` or `tool "askApproval"`. */
  subject: string;
  problem: string;
}

/** AI1001: `defineAgent`, `defineTool` or `createAgentWorker` was given something unusable. */
export class InvalidDefinitionError extends DurableAgentsError<InvalidDefinitionFields> {
  static readonly code = ErrorCode.InvalidDefinition;
  readonly code = ErrorCode.InvalidDefinition;
  constructor(fields: InvalidDefinitionFields) {
    super(`[AI1001] Invalid ${fields.subject}: ${fields.problem}`, fields);
  }
}
