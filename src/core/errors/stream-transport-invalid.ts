import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface StreamTransportInvalidFields {
  /** The transport's factory, e.g. `redisStreamTransport`. */
  transport: string;
  /** What is wrong with its options, and what to pass instead. */
  problem: string;
}

/**
 * AI1080: a stream transport was given options it cannot use. Thrown by the factory, before
 * any connection is opened, so nothing needs closing.
 */
export class StreamTransportInvalidError extends DurableAgentsError<StreamTransportInvalidFields> {
  static readonly code = ErrorCode.StreamTransportInvalid;
  readonly code = ErrorCode.StreamTransportInvalid;
  constructor(f: StreamTransportInvalidFields) {
    super(`[AI1080] ${f.transport}: ${f.problem}`, f);
  }
}
