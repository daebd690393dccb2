import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface PayloadTooLargeFields {
  /** What was too large: "the run's prompt", "the resume payload", "the model's answer", … */
  what: string;
  /** Its size as UTF-8 bytes of its JSON, or at least this much when measuring stopped early. */
  bytes: number;
  /** The limit it went over (`MAX_PAYLOAD_BYTES` unless said otherwise). */
  limitBytes: number;
  /** What to do instead, when there is more to say than "send less". */
  hint?: string;
}

/**
 * AI1016: something is too large to travel as one Temporal payload. Temporal refuses a
 * payload over 2 MB by terminating the workflow that carries it, so the SDK refuses first,
 * below that limit, and nothing is sent or changed.
 */
export class PayloadTooLargeError extends DurableAgentsError<PayloadTooLargeFields> {
  static readonly code = ErrorCode.PayloadTooLarge;
  readonly code = ErrorCode.PayloadTooLarge;
  constructor(f: PayloadTooLargeFields) {
    super(
      `[AI1016] ${f.what} is ${f.bytes} bytes of JSON, over the ${f.limitBytes}-byte limit of one durable-agents payload ` +
        `(Temporal refuses payloads over 2 MB). Nothing was sent or changed. ${f.hint ?? "Send less: keep large data elsewhere (a blob store, a database) and pass a reference."}`,
      f,
    );
  }
}
