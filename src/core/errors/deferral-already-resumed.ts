import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DeferralAlreadyResumedFields = { deferralId: string };

/** RC5057: `deferrals.deny()` came after a resume claimed the deferral; the approval stands. */
export class DeferralAlreadyResumedError extends DurableAgentsError<DeferralAlreadyResumedFields> {
  static readonly code = ErrorCode.DeferralAlreadyResumed;
  readonly code = ErrorCode.DeferralAlreadyResumed;
  constructor(f: DeferralAlreadyResumedFields) {
    super(
      `[RC5057] Deferral "${f.deferralId}" was already resumed, so it can no longer be denied; its answer stands. Cancel the run (agents.cancel) to stop it instead.`,
      f,
    );
  }
}
