import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ResumeUnauthorizedFields = { deferralId: string; returned: string };

/** RC5056: The resume's authorize hook did not return exactly `true`. */
export class ResumeUnauthorizedError extends DurableAgentsError<ResumeUnauthorizedFields> {
  static readonly code = ErrorCode.ResumeUnauthorized;
  readonly code = ErrorCode.ResumeUnauthorized;
  constructor(f: ResumeUnauthorizedFields) {
    super(
      `[RC5056] Resume of deferral "${f.deferralId}" refused: the authorize hook returned ${f.returned}, not true. Nothing changed.`,
      f,
    );
  }
}
