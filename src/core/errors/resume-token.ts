import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ResumeTokenFields = { reason: string };

/** RC5041: The resume token is malformed or forged. */
export class ResumeTokenError extends DurableAgentsError<ResumeTokenFields> {
  static readonly code = ErrorCode.ResumeTokenInvalid;
  readonly code = ErrorCode.ResumeTokenInvalid;
  constructor(f: ResumeTokenFields) {
    super(
      `[RC5041] The resume token is not valid: ${f.reason}. Use the token exactly as the tool handler received it (ctx.deferral.token); tokens minted with another secret are refused.`,
      f,
    );
  }
}
