import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface CodecMissingFields {
  /** The payload's encoding as Temporal recorded it, e.g. `binary/encrypted`. */
  encoding: string;
  /** What was being read, when known. */
  what?: string;
}

/**
 * AI1046: data this client read is encoded by a payload codec (encrypted, usually) that the
 * client was not given, so it cannot be decoded. Nothing is shown of it.
 */
export class CodecMissingError extends DurableAgentsError<CodecMissingFields> {
  static readonly code = ErrorCode.CodecMissing;
  readonly code = ErrorCode.CodecMissing;
  constructor(f: CodecMissingFields) {
    super(
      `[AI1046] ${f.what ?? "The data"} is encoded as "${f.encoding}" by a payload codec this client does not have. ` +
        `Give the client the same codec as the workers (dataConverter: { payloadCodecs: [...] }), or point the CLI at a codec server with --codec-endpoint.`,
      f,
    );
  }
}
