import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DeferralCancelledFields = { deferralId: string };

/** RC5054: Cancellation raced the deferral. */
export class DeferralCancelledError extends DurableAgentsError<DeferralCancelledFields> {
  static readonly code = ErrorCode.DeferralCancelled;
  readonly code = ErrorCode.DeferralCancelled;
  constructor(f: DeferralCancelledFields) {
    super(
      `[RC5054] The run was cancelled while deferral "${f.deferralId}" was being made or waited; the deferral is refused and its links are dead.`,
      f,
    );
  }
}
