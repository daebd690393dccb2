import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DeferralDeniedFields = { deferralId: string; reason: string };

/** RC5050: The deferral was denied (definition change, cancellation, …); its tokens read this from then on. */
export class DeferralDeniedError extends DurableAgentsError<DeferralDeniedFields> {
  static readonly code = ErrorCode.DeferralDenied;
  readonly code = ErrorCode.DeferralDenied;
  constructor(f: DeferralDeniedFields) {
    super(
      `[RC5050] Deferral "${f.deferralId}" was denied (${f.reason}) and can no longer be resumed. Start a new run to ask again.`,
      f,
    );
  }
}
