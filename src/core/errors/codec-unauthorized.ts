import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface CodecUnauthorizedFields {
  /** `encode` or `decode`. */
  operation: string;
}

/** AI1044: the codec server's `authorize` hook did not return exactly `true`; nothing was encoded or decoded. */
export class CodecUnauthorizedError extends DurableAgentsError<CodecUnauthorizedFields> {
  static readonly code = ErrorCode.CodecUnauthorized;
  readonly code = ErrorCode.CodecUnauthorized;
  constructor(fields: CodecUnauthorizedFields) {
    super(`[AI1044] Not authorized to ${fields.operation} payloads. Nothing was ${fields.operation}d.`, fields);
  }
}
