import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DeferralNotFoundFields = {
  deferralId: string;
  /**
   * The token is genuine and its run is still recording the deferral (the tool call that
   * made it has not reported back: its worker may have died and the call wait for its
   * retry). Nothing changed: the same request may succeed shortly.
   */
  retryLater?: true;
};

/** RC5046: No deferral with that id. */
export class DeferralNotFoundError extends DurableAgentsError<DeferralNotFoundFields> {
  static readonly code = ErrorCode.DeferralNotFound;
  readonly code = ErrorCode.DeferralNotFound;
  constructor(f: DeferralNotFoundFields) {
    super(
      f.retryLater
        ? `[RC5046] Deferral "${f.deferralId}" is not recorded yet: the tool call that made it is still running (or waits for its retry after its worker died). Nothing changed; send the same request again shortly.`
        : `[RC5046] No deferral "${f.deferralId}" exists. Check the id; a run past its namespace retention is gone.`,
      f,
    );
  }
}
