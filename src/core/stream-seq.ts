/**
 * How a thread's stream numbers an answer's deltas when the model activity publishes them
 * out of band: the thread reserves a block of seqs for each model call, and each attempt of
 * the call numbers its deltas inside its own span of the block, so a retry's deltas come
 * after the failed attempt's and before the message that ends the answer.
 */
export const STREAM_ATTEMPT_SPAN = 2 ** 16;
/** Attempts whose deltas have a span; later attempts stream nothing (the message still arrives). */
export const STREAM_ATTEMPT_SPANS = 16;
export const STREAM_BLOCK = STREAM_ATTEMPT_SPAN * STREAM_ATTEMPT_SPANS;

/** The first seq attempt `attempt` (1-based) may use, or undefined past the last span. */
export function attemptSeqBase(base: number, attempt: number): number | undefined {
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > STREAM_ATTEMPT_SPANS) return undefined;
  return base + (attempt - 1) * STREAM_ATTEMPT_SPAN;
}
