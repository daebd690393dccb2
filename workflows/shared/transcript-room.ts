import { TranscriptFullError } from "../../src/core/errors/limits.js";
import { ToolCallsOverLimitError } from "../../src/core/errors/limits.js";
import type { Principal } from "../../src/core/json.js";
import { jsonBytes } from "../../src/core/payload-size.js";
import { ANSWER_RESERVE_BYTES, resultShare, toolCallLimit } from "../../src/core/transcript-budget.js";

/**
 * The room a run's or thread's transcript has left under its budget (see
 * src/core/transcript-budget.ts): what a step's results may share, what an answer may
 * weigh, and the refusal of what does not fit. `used` measures what counts now.
 */
export class TranscriptRoom {
  constructor(
    private readonly host: "run" | "thread",
    private readonly id: string,
    readonly limitBytes: number,
    private readonly used: () => number,
  ) {}

  left(): number {
    return Math.max(0, this.limitBytes - this.used());
  }

  /** What a model answer may weigh: the activity refuses a larger one (AI1018) before it is recorded. */
  forAnswer(): { leftBytes: number; limitBytes: number } {
    return { leftBytes: this.left(), limitBytes: this.limitBytes };
  }

  /** The result limit of each of `calls` tool calls started together. */
  share(calls: number): number {
    return resultShare(calls, this.left());
  }

  /**
   * AI1018 (as a failure) when `value` would not fit; `what` names it for the message. What
   * the model must answer after (a message, a result) must also leave it room to answer.
   * `freeing`: the bytes of what `value` replaces.
   */
  refuseUnlessFits(value: unknown, what: string, { answerFollows, freeing = 0 }: { answerFollows: boolean; freeing?: number }): void {
    const left = Math.max(0, this.left() - (answerFollows ? ANSWER_RESERVE_BYTES : 0));
    // What `value` takes the place of (an answer replaced by its edited copy) is given back.
    const bytes = jsonBytes(value, left + freeing) - freeing;
    if (bytes > left) {
      throw new TranscriptFullError({ host: this.host, id: this.id, what, bytes, leftBytes: left, limitBytes: this.limitBytes }).toFailure();
    }
  }
}

/**
 * AI1017 (as a failure) when an answer holds more tool calls than its agent's description
 * allows for this principal. The worker refuses such an answer first; this is the check
 * where the state lives. A description without a limit checks none.
 */
export function refuseTooManyCalls(agentId: string, maxToolCalls: number | undefined, calls: number, principal: Principal | undefined): void {
  if (maxToolCalls === undefined) return;
  const limit = toolCallLimit(maxToolCalls, principal === undefined ? 0 : jsonBytes(principal));
  if (calls > limit) {
    throw new ToolCallsOverLimitError({ agentId, calls, limit, ...(limit < maxToolCalls ? { maxToolCalls } : {}) }).toFailure();
  }
}
