import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DeferralSecretFields = { reason: string };

/** RC5040: The deferral secret is missing or shorter than 32 bytes. */
export class DeferralSecretError extends DurableAgentsError<DeferralSecretFields> {
  static readonly code = ErrorCode.DeferralSecretInvalid;
  readonly code = ErrorCode.DeferralSecretInvalid;
  constructor(f: DeferralSecretFields) {
    super(
      `[RC5040] The deferral secret is unusable: ${f.reason}. Set deferral: { secret } on both createAgentWorker and AgentClient to the same random value of at least 32 bytes (e.g. 'openssl rand -base64 48').`,
      f,
    );
  }
}
