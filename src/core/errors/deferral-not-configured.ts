import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DeferralNotConfiguredFields = { where: string };

/** RC5052: A deferral happened where no deferral configuration exists. */
export class DeferralNotConfiguredError extends DurableAgentsError<DeferralNotConfiguredFields> {
  static readonly code = ErrorCode.DeferralNotConfigured;
  readonly code = ErrorCode.DeferralNotConfigured;
  constructor(f: DeferralNotConfiguredFields) {
    super(
      `[RC5052] ${f.where} tried to defer, but no deferral configuration exists. Add deferral: { secret } (32+ bytes, the same on worker and client) to createAgentWorker().`,
      f,
    );
  }
}
