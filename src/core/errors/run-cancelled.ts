import type { Usage } from "../messages.js";
import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type RunCancelledFields = { reason: string; turnsUsed: number; usage: Usage };

/** AI1005: The run was cancelled; carries the turns completed and the whole run's token usage. */
export class RunCancelledError extends DurableAgentsError<RunCancelledFields> {
  static readonly code = ErrorCode.RunCancelled;
  readonly code = ErrorCode.RunCancelled;
  constructor(f: RunCancelledFields) {
    super(
      `[AI1005] The run was cancelled (${f.reason}) after ${f.turnsUsed} turns and ${f.usage.totalTokens} tokens.`,
      f,
    );
  }
}
