import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ResumePayloadFields = { deferralId: string; issues: string[] };

/** RC5049: The resume payload fails the deferral's schema; the token is not spent. */
export class ResumePayloadError extends DurableAgentsError<ResumePayloadFields> {
  static readonly code = ErrorCode.ResumePayloadInvalid;
  readonly code = ErrorCode.ResumePayloadInvalid;
  constructor(f: ResumePayloadFields) {
    super(
      `[RC5049] The resume payload does not match deferral "${f.deferralId}"'s schema: ${f.issues.join("; ")}. Fix the payload and resume again: the token is still valid.`,
      f,
    );
  }
}
