import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface ToolCallsOverLimitFields {
  agentId: string;
  /** Tool calls the model's answer held. */
  calls: number;
  /** The most one answer may hold for this agent and principal. */
  limit: number;
  /** The agent's `maxToolCalls`, when the principal's size brought the limit below it. */
  maxToolCalls?: number;
}

/**
 * AI1017: one model answer asked for more tool calls than the agent allows (`maxToolCalls`).
 * Each call is a Temporal activity, and a workflow may have at most 2,000 in flight: past
 * that, every workflow task fails. The answer is not kept; the run fails, or the thread's
 * turn fails with its transcript as it was.
 */
export class ToolCallsOverLimitError extends DurableAgentsError<ToolCallsOverLimitFields> {
  static readonly code = ErrorCode.ToolCallsOverLimit;
  readonly code = ErrorCode.ToolCallsOverLimit;
  constructor(f: ToolCallsOverLimitFields) {
    const why = f.maxToolCalls !== undefined && f.maxToolCalls > f.limit ? ` (${f.maxToolCalls} as declared, fewer for a principal this large: every call carries it)` : "";
    super(
      `[AI1017] The model asked for ${f.calls} tool calls in one answer; agent "${f.agentId}" allows at most ${f.limit}${why}. ` +
        `The answer was not kept and no tool ran. Tell the model to call fewer tools at once, or raise defineAgent({ maxToolCalls }) (at most 512).`,
      f,
    );
  }
}
