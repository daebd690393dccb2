import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DeferralNotFoundFields = { deferralId: string };

/** RC5046: No deferral with that id. */
export class DeferralNotFoundError extends DurableAgentsError<DeferralNotFoundFields> {
  static readonly code = ErrorCode.DeferralNotFound;
  readonly code = ErrorCode.DeferralNotFound;
  constructor(f: DeferralNotFoundFields) {
    super(
      `[RC5046] No deferral "${f.deferralId}" exists. Check the id; a run past its namespace retention is gone.`,
      f,
    );
  }
}
