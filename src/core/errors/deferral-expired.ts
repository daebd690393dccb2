import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DeferralExpiredFields = { deferralId: string; expiresAt: string };

/** RC5047: The deferral's TTL ran out before a resume claimed it. */
export class DeferralExpiredError extends DurableAgentsError<DeferralExpiredFields> {
  static readonly code = ErrorCode.DeferralExpired;
  readonly code = ErrorCode.DeferralExpired;
  constructor(f: DeferralExpiredFields) {
    super(
      `[RC5047] Deferral "${f.deferralId}" expired at ${f.expiresAt}. Its run has moved on; start a new run (or let the agent's onExpired re-ask) to get a fresh approval.`,
      f,
    );
  }
}
