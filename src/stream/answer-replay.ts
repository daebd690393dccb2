import type { StreamBatch } from "./transport.js";

/** Batches one answer may keep for late readers: a minute of deltas at the default 50 ms interval. */
const MAX_BATCHES_PER_THREAD = 1_200;
/** Threads whose answers are kept at once; past it the least recently written is forgotten. */
const MAX_THREADS = 1_000;

/** True when a batch holds only deltas (an answer being written), not an entry the thread keeps. */
export function onlyDeltas(batch: StreamBatch): boolean {
  return batch.entries.every((e) => e.type === "text-delta" || e.type === "tool-input-delta");
}

/**
 * The deltas of the answer each thread is writing now, kept where they are published so that
 * a reader who subscribes mid-answer gets the beginning it missed. Deltas are not in the
 * thread's log (only its durable entries are), so without this a reader who arrives after the
 * first batch would show the answer without its start until the whole message lands. A batch
 * with a durable entry (the answer's message, a status, a reset) ends what is kept for the
 * thread. Bounded: an answer longer than MAX_BATCHES_PER_THREAD stops being kept (late readers
 * then see it from where they joined), and past MAX_THREADS the oldest thread is forgotten.
 */
export class AnswerReplay<T> {
  readonly #threads = new Map<string, T[] | "full">();

  /** Records what was published for `threadId`: `item` stands for `batch` (the batch itself, or its encoded line). */
  note(threadId: string, batch: StreamBatch, item: T): void {
    const kept = this.#threads.get(threadId);
    if (!onlyDeltas(batch)) {
      this.#threads.delete(threadId);
      return;
    }
    if (kept === "full") return;
    // Re-inserted, so that the Map's order is the order threads were last written.
    this.#threads.delete(threadId);
    if (kept && kept.length >= MAX_BATCHES_PER_THREAD) {
      this.#threads.set(threadId, "full");
      return;
    }
    const items = kept ?? [];
    items.push(item);
    this.#threads.set(threadId, items);
    if (this.#threads.size > MAX_THREADS) this.#threads.delete(this.#threads.keys().next().value!);
  }

  /** What a reader subscribing to `threadId` now gets first. */
  of(threadId: string): readonly T[] {
    const kept = this.#threads.get(threadId);
    return kept === undefined || kept === "full" ? [] : [...kept];
  }

  /** Threads with an answer kept (what a test reads to see nothing outlives its answer). */
  get size(): number {
    return this.#threads.size;
  }
}
