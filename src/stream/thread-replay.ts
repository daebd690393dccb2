import type { StreamBatch } from "./transport.js";

/** Batches of one answer's deltas kept for late readers: a minute of deltas at the default 50 ms interval. */
const MAX_DELTA_BATCHES_PER_THREAD = 1_200;
/** Batches of durable entries kept per thread: the thread's own log keeps 500 entries. */
const MAX_DURABLE_BATCHES_PER_THREAD = 500;
/** Bytes kept per thread (as the transport sends them); the oldest durable entries go first. */
const MAX_BYTES_PER_THREAD = 1 << 20;
/** Bytes kept across threads; past it the least recently written thread is forgotten. */
const MAX_BYTES = 64 << 20;
/** Threads kept at once; past it the least recently written is forgotten. */
const MAX_THREADS = 1_000;

/** True when a batch holds only tool progress: a preview outside the thread's log. */
export function onlyProgress(batch: StreamBatch): boolean {
  return batch.entries.length > 0 && batch.entries.every((e) => e.type === "tool-progress");
}

/** True when a batch holds only deltas (an answer being written), not an entry the thread keeps. */
export function onlyDeltas(batch: StreamBatch): boolean {
  return batch.entries.every((e) => e.type === "text-delta" || e.type === "tool-input-delta");
}

interface Kept<T> {
  item: T;
  bytes: number;
}

interface ThreadKept<T> {
  /** The seq of the last durable entry kept (or of the one a gap started the chain after). */
  lastDurable: number;
  durable: Array<Kept<T>>;
  /** The deltas of the answer being written, or "full" once it outgrew what is kept of it. */
  deltas: Array<Kept<T>> | "full";
  /** The latest tool progress since the last durable entry (one batch, at most 16 KiB): what a reader joining mid-call sees first. */
  progress?: Kept<T>;
  bytes: number;
}

/**
 * What a stream transport keeps of each thread, where it is published, for a reader who
 * subscribes: the thread's latest durable entries (messages, statuses, resets) as one chain,
 * each batch following the durable entry before it (its `after`), then the deltas of the
 * answer being written. A reader's poller gets it all first, so one whose readers' seqs the
 * chain reaches back to is caught up without reading the thread's log (a billed query), and
 * one who arrives mid-answer sees the answer from its start (deltas are not in the log).
 *
 * A batch that does not follow the last durable entry kept (this process did not publish
 * everything between: it started after the thread, another worker ran it meanwhile) starts
 * the chain again from that batch; readers behind it read the log, as before. Deltas are kept
 * until an entry the thread keeps ends the answer; a delta of an answer already over (one
 * published late) is not kept. Bounded per thread in batches and bytes (the oldest durable
 * entries go first, and an answer longer than MAX_DELTA_BATCHES_PER_THREAD stops being kept:
 * late readers see it from where they joined), and across threads in bytes and number (the
 * least recently written is forgotten).
 */
export class ThreadReplay<T> {
  readonly #threads = new Map<string, ThreadKept<T>>();
  #bytes = 0;

  /** Records what was published for `threadId`: `item` stands for `batch` (the batch itself, or its encoded line) and weighs `bytes`. */
  note(threadId: string, batch: StreamBatch, item: T, bytes: number): void {
    let kept = this.#threads.get(threadId);
    if (onlyProgress(batch)) {
      // Outside the chain: it follows no entry and none follows it; the latest replaces the one before.
      if (!kept) return;
      if (kept.progress) this.#drop(kept, [kept.progress]);
      kept.progress = { item, bytes };
      kept.bytes += bytes;
      this.#bytes += bytes;
      return;
    }
    // Re-inserted, so that the Map's order is the order threads were last written.
    if (kept) this.#threads.delete(threadId);
    const deltas = onlyDeltas(batch);
    if (!kept || batch.after !== kept.lastDurable) {
      // A late delta of an answer already over changes nothing; anything else past a gap starts the chain again.
      if (kept && deltas && batch.after < kept.lastDurable) {
        this.#threads.set(threadId, kept);
        return;
      }
      if (kept) this.#bytes -= kept.bytes;
      kept = { lastDurable: batch.after, durable: [], deltas: [], bytes: 0 };
    }
    this.#threads.set(threadId, kept);
    if (deltas) {
      if (kept.deltas === "full") return;
      if (kept.deltas.length >= MAX_DELTA_BATCHES_PER_THREAD) {
        this.#drop(kept, kept.deltas);
        kept.deltas = "full";
        return;
      }
      this.#add(kept, kept.deltas, { item, bytes });
    } else {
      // The answer is over (its message, a reset, a status): its deltas fold away, as in the thread's log.
      if (kept.deltas !== "full") this.#drop(kept, kept.deltas);
      // So does a tool's progress: a durable entry (its result, most often) supersedes it.
      if (kept.progress) this.#drop(kept, [kept.progress]);
      kept.progress = undefined;
      kept.deltas = [];
      this.#add(kept, kept.durable, { item, bytes });
      for (const entry of batch.entries) if (entry.type !== "text-delta" && entry.type !== "tool-input-delta") kept.lastDurable = Math.max(kept.lastDurable, entry.seq);
      while (kept.durable.length > MAX_DURABLE_BATCHES_PER_THREAD || (kept.bytes > MAX_BYTES_PER_THREAD && kept.durable.length > 0)) this.#drop(kept, kept.durable.splice(0, 1));
    }
    while (this.#threads.size > MAX_THREADS || (this.#bytes > MAX_BYTES && this.#threads.size > 1)) {
      const [oldest, forgotten] = this.#threads.entries().next().value!;
      this.#threads.delete(oldest);
      this.#bytes -= forgotten.bytes;
    }
  }

  /** What a reader subscribing to `threadId` now gets first: the chain of durable entries, then the answer's deltas so far. */
  of(threadId: string): readonly T[] {
    const kept = this.#threads.get(threadId);
    if (!kept) return [];
    return [...kept.durable, ...(kept.deltas === "full" ? [] : kept.deltas), ...(kept.progress ? [kept.progress] : [])].map((k) => k.item);
  }

  /** Threads with something kept (what a test reads to see what is forgotten). */
  get size(): number {
    return this.#threads.size;
  }

  #add(kept: ThreadKept<T>, into: Array<Kept<T>>, entry: Kept<T>): void {
    into.push(entry);
    kept.bytes += entry.bytes;
    this.#bytes += entry.bytes;
  }

  #drop(kept: ThreadKept<T>, dropped: Array<Kept<T>>): void {
    for (const entry of dropped) {
      kept.bytes -= entry.bytes;
      this.#bytes -= entry.bytes;
    }
    if (dropped === kept.deltas) kept.deltas = [];
  }
}
