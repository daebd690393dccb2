/**
 * How much a model's output may add to a run or a thread, so that nothing it emits can
 * push a workflow past Temporal's limits: at most 2,000 activities in flight, a history of
 * 50 MB, and one payload of 2 MB for what a thread carries into each continue-as-new.
 * Every rule here is a pure function of workflow state, so workflow code (where the rules
 * are enforced) and workers (where results are cut and answers refused early) agree.
 * docs/limits.md's table lists them.
 */
import { jsonBytes } from "./payload-size.js";

/** `maxToolCalls` when an agent declares none: more than any model batches usefully. */
export const DEFAULT_MAX_TOOL_CALLS = 128;

/** The most `maxToolCalls` may be: every call is an activity, and Temporal allows 2,000 in flight. */
export const MAX_TOOL_CALLS_CEILING = 512;

/**
 * What the scheduling of one step's tool calls may weigh, as the calls' inputs: a workflow
 * task's commands travel in one gRPC message (4 MB), and each call carries the principal.
 */
const STEP_SCHEDULE_BYTES = 2_097_152;

/** What each scheduled call weighs besides its arguments and the principal (ids, names, options). */
const CALL_OVERHEAD_BYTES = 1_024;

/**
 * The most tool calls one answer may hold for an agent declaring `maxToolCalls`, acting for
 * a principal of `principalBytes`: fewer than declared when a large principal would make the
 * step's scheduling too heavy. Never below 1.
 */
export function toolCallLimit(maxToolCalls: number | undefined, principalBytes: number): number {
  const declared = maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  return Math.max(1, Math.min(declared, Math.floor(STEP_SCHEDULE_BYTES / (principalBytes + CALL_OVERHEAD_BYTES))));
}

/**
 * What the results of one step's tool calls may weigh together: each call gets an equal
 * share (never more than its tool's `maxResultBytes`), so a batch of large results cannot
 * outgrow a history or a carry.
 */
export const STEP_RESULT_BYTES = 2_097_152;

/** The least a call's share may be: room for a note telling the model its result was cut. */
export const MIN_RESULT_SHARE = 512;

/**
 * What a thread's transcript, with its queued messages and held results, may weigh: the
 * thread carries all of it into each continue-as-new as one payload (Temporal refuses one
 * over 2 MB). The rest of the carry (stream position, pending calls, principal, the
 * results' floors) fits in the difference.
 */
export const THREAD_TRANSCRIPT_BYTES = 1_310_720;

/**
 * What a run's transcript may weigh. A run whose transcript is over one payload no longer
 * continues as new, so this bounds its history (Temporal ends a workflow at 50 MB).
 */
export const RUN_TRANSCRIPT_BYTES = 8_388_608;

/**
 * The most a thread's continue-as-new input may weigh: under Temporal's 2 MB (2,097,152
 * bytes) with room for a codec's envelope. A carry over it is never attempted.
 */
export const MAX_CARRY_BYTES = 2_000_000;

/**
 * Room kept for the model's next answer: results and messages may not take it, so a
 * transcript filled by them still has room for the model to say what it found.
 */
export const ANSWER_RESERVE_BYTES = 65_536;

/**
 * The result limit of each of `calls` tool calls started together when the transcript has
 * `roomBytes` left: an equal share of half that room (less `ANSWER_RESERVE_BYTES`), and of
 * `STEP_RESULT_BYTES`, at least `MIN_RESULT_SHARE`. Half, so one step never fills the
 * transcript: each later step gets less, and the conversation goes on. The tool's own
 * `maxResultBytes` still applies below it.
 */
export function resultShare(calls: number, roomBytes: number): number {
  const pool = Math.max(0, Math.min(STEP_RESULT_BYTES, Math.floor((roomBytes - ANSWER_RESERVE_BYTES) / 2)));
  return Math.max(MIN_RESULT_SHARE, Math.floor(pool / Math.max(1, calls)));
}

/**
 * The JSON bytes of a transcript, each message measured once: messages are never changed
 * in place, so a weight found stays true. Keyed by the message objects themselves.
 */
export class TranscriptMeter {
  readonly #weights = new WeakMap<object, number>();

  /** JSON bytes of one message (or queued item); 0 for anything that is not an object. */
  weigh(value: unknown): number {
    if (typeof value !== "object" || value === null) return 0;
    let bytes = this.#weights.get(value);
    if (bytes === undefined) {
      bytes = jsonBytes(value);
      this.#weights.set(value, bytes);
    }
    return bytes;
  }

  /** JSON bytes of a list of them, as `jsonBytes(list)` counts it. */
  total(values: readonly unknown[]): number {
    let bytes = 2 + Math.max(0, values.length - 1);
    for (const value of values) bytes += this.weigh(value);
    return bytes;
  }
}
