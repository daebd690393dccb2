import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface CodecFailedFields {
  /** `encode` or `decode`. */
  operation: string;
  /** Which payload of the request (0-based), when one could be singled out. */
  index?: number;
}

/**
 * AI1045: the codec server could not encode or decode a payload (encrypted with a key it
 * does not hold, tampered with, not ours). The message names no key and no bytes: the
 * caller learns only that the request failed.
 */
export class CodecFailedError extends DurableAgentsError<CodecFailedFields> {
  static readonly code = ErrorCode.CodecFailed;
  readonly code = ErrorCode.CodecFailed;
  constructor(fields: CodecFailedFields) {
    super(`[AI1045] The payloads could not be ${fields.operation}d${fields.index !== undefined ? ` (payload ${fields.index})` : ""}. Nothing was ${fields.operation}d.`, fields);
  }
}
