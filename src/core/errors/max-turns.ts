import type { Usage } from "../messages.js";
import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface MaxTurnsFields {
  maxTurns: number;
  turnsUsed: number;
  /** Token spend of the whole run, deferrals included. */
  usage: Usage;
}

/** AI1004: the run reached its `maxTurns` without a final answer. */
export class MaxTurnsError extends DurableAgentsError<MaxTurnsFields> {
  static readonly code = ErrorCode.MaxTurnsExceeded;
  readonly code = ErrorCode.MaxTurnsExceeded;
  constructor(fields: MaxTurnsFields) {
    super(
      `[AI1004] The agent used all ${fields.maxTurns} of its turns without a final answer ` +
        `(${fields.usage.totalTokens} tokens spent). Raise maxTurns on the agent or tighten its prompt.`,
      fields,
    );
  }
}
