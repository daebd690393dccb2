import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface DeferralChangedFields {
  deferralId: string;
  /** What the decision was made on (a fingerprint of the deferred call), as the request carried it. */
  shown: string;
  /** What the deferral holds now. */
  current: string;
}

/**
 * RC5058: a resume (or decision) was made on a deferred call that has changed since it was
 * shown: the request is refused, the token is not spent, and the record is untouched.
 */
export class DeferralChangedError extends DurableAgentsError<DeferralChangedFields> {
  static readonly code = ErrorCode.DeferralChanged;
  readonly code = ErrorCode.DeferralChanged;
  constructor(f: DeferralChangedFields) {
    super(
      `[RC5058] Deferral "${f.deferralId}" no longer holds the call that was shown when this decision was made. Nothing was changed and the token is still valid: show the request again and decide on what it holds now.`,
      f,
    );
  }
}
