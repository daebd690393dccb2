import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ResumeTokenFields = {
  reason: string;
  /** `"answer"`: an async tool's answer token (addToolResult / addToolError), not a resume token. */
  token?: "answer";
  /** The call cannot take answers yet (its callback is still running): the same request may succeed shortly. */
  retryLater?: true;
};

/** RC5041: The resume token (or an async tool's answer token) is malformed, forged, or not the one handed out. */
export class ResumeTokenError extends DurableAgentsError<ResumeTokenFields> {
  static readonly code = ErrorCode.ResumeTokenInvalid;
  readonly code = ErrorCode.ResumeTokenInvalid;
  constructor(f: ResumeTokenFields) {
    super(
      f.token === "answer"
        ? `[RC5041] The answer token is not accepted: ${f.reason}. Pass the token the async tool's callback received (ctx.answerToken) as answerToken.`
        : `[RC5041] The resume token is not valid: ${f.reason}. Use the token exactly as the tool handler received it (ctx.deferral.token); tokens minted with another secret are refused.`,
      f,
    );
  }
}
