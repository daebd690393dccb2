import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface TranscriptFullFields {
  /** Whose transcript: a run's or a thread's. */
  host: "run" | "thread";
  /** The run's or thread's id. */
  id: string;
  /** What did not fit: "the model's answer", "the message", "the resume payload", … */
  what: string;
  /** Its size, as UTF-8 bytes of its JSON. */
  bytes: number;
  /** What the transcript (with a thread's queue) still had room for. */
  leftBytes: number;
  /** The most the transcript may hold. */
  limitBytes: number;
}

/**
 * AI1018: a run's or thread's transcript has no room left for what came. A thread carries
 * its transcript whole into each continue-as-new, so it holds at most what one Temporal
 * payload can carry; a run's transcript is bounded by what its history can hold. Nothing
 * was changed: a refused message or payload changes nothing, a model answer that does not
 * fit is not kept (the run fails, or the thread's turn fails).
 */
export class TranscriptFullError extends DurableAgentsError<TranscriptFullFields> {
  static readonly code = ErrorCode.TranscriptFull;
  readonly code = ErrorCode.TranscriptFull;
  constructor(f: TranscriptFullFields) {
    const next =
      f.host === "thread"
        ? "Start a new thread from a summary of this one (createThread({ messages })), or send something smaller."
        : "Compact the run's transcript (replaceDeferredThread() while it is deferred), or start a new run from a summary.";
    super(
      `[AI1018] The ${f.host} "${f.id}" has room for ${f.leftBytes} more bytes of transcript (of ${f.limitBytes}); ${f.what} is ${f.bytes} bytes. Nothing was changed. ${next}`,
      f,
    );
  }
}
