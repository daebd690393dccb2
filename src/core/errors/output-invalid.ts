import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface OutputInvalidFields {
  agentId: string;
  /** What was wrong with the last answer: not JSON, or the schema's first issues. */
  problem: string;
  /** Answers the model gave in the call, the corrections included. */
  answers: number;
}

/**
 * AI1071: the agent's final answer must match its `output` schema, and the model's did not,
 * even after being told what was wrong `outputRetries` times.
 */
export class OutputInvalidError extends DurableAgentsError<OutputInvalidFields> {
  static readonly code = ErrorCode.OutputInvalid;
  readonly code = ErrorCode.OutputInvalid;
  constructor(fields: OutputInvalidFields) {
    super(
      `[AI1071] Agent "${fields.agentId}" answered ${fields.answers} time(s) without matching its output schema: ${fields.problem}. ` +
        "Loosen the schema, describe the fields in the system prompt, raise outputRetries, or use a model that supports structured output.",
      fields,
    );
  }
}
