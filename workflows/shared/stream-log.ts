import { deltaEntries, numberedFlushEntries } from "../../src/core/model-deltas.js";
import { attemptSeqBase, STREAM_ATTEMPT_SPAN, STREAM_BLOCK } from "../../src/core/stream-seq.js";
import type { StreamBatch, StreamFlush, StreamSnapshot, StreamUpdate, StreamUpdateBody, ThreadCarry, ThreadMessage, ThreadStatus } from "../../src/core/thread-contracts.js";

/** Entries kept for readers; older ones are dropped and a reader that far behind is told so. */
const CAPACITY = 500;

/**
 * The thread's update stream, in workflow state: readers poll it by query (no history),
 * and resume from the last `seq` they saw. Deltas of an answer are folded away once the
 * whole message is appended, so memory holds one answer's deltas at most.
 */
export class StreamLog {
  #seq: number;
  #droppedThrough: number;
  #entries: StreamUpdate[];
  /** Seqs up to this are reserved for deltas sent out of band: the next entry comes after. */
  #floor: number;
  /**
   * The answer being written, which activity attempt is writing it, the block reserved for
   * its deltas, and the last seq the activity numbered in it.
   */
  #current: CurrentAnswer | undefined;
  /** Hears every entry as it is appended, with the seq of the durable entry before it. */
  onEntry: ((batch: StreamBatch) => void) | undefined;

  constructor(carried?: ThreadCarry["stream"], messages: readonly ThreadMessage[] = []) {
    this.#seq = carried?.seq ?? 0;
    this.#floor = carried?.floor ?? 0;
    this.#droppedThrough = carried?.droppedThrough ?? 0;
    const byId = new Map(messages.map((m) => [m.id, m]));
    this.#entries = (carried?.entries ?? []).flatMap((e): StreamUpdate[] => {
      if (e.type !== "message-ref") return [e];
      const message = byId.get(e.messageId);
      return message ? [{ seq: e.seq, type: "message", message }] : [];
    });
  }

  get lastSeq(): number {
    return this.#seq;
  }

  get streamingMessageId(): string | undefined {
    return this.#current?.messageId;
  }

  push(body: StreamUpdateBody): void {
    const after = this.#lastDurable();
    this.#seq = Math.max(this.#seq, this.#floor) + 1;
    const entry = { ...body, seq: this.#seq } as StreamUpdate;
    this.#keep(entry);
    this.onEntry?.({ after, entries: [entry] });
  }

  /** Appends an entry, dropping the oldest past CAPACITY. */
  #keep(entry: StreamUpdate): void {
    this.#entries.push(entry);
    this.#seq = Math.max(this.#seq, entry.seq);
    if (this.#entries.length > CAPACITY) {
      const dropped = this.#entries.splice(0, this.#entries.length - CAPACITY);
      this.#droppedThrough = dropped.at(-1)!.seq;
    }
  }

  /**
   * A model call starts writing the message `messageId`: returns where its deltas go, a
   * block of seqs after every seq so far (the model activity numbers and publishes them
   * itself), and the durable entry before them.
   */
  begin(messageId: string): { base: number; after: number } {
    const base = Math.max(this.#seq, this.#floor);
    this.#floor = base + STREAM_BLOCK;
    this.#current = { messageId, attempt: 0, base };
    return { base, after: this.#lastDurable() };
  }

  /** Deltas from the model activity. Late ones (a stopped call, an older attempt) are ignored. */
  accept(flush: StreamFlush): void {
    const current = this.#current;
    if (!current || flush.streamId !== current.messageId || flush.attempt < current.attempt) return;
    const numbered = numberedFlushEntries(flush);
    if (numbered) return this.#acceptNumbered(numbered, flush.attempt, current);
    if (flush.attempt > current.attempt) {
      // A retried call streams from the start again: readers drop what the failed attempt wrote.
      if (current.attempt > 0) this.reset("retry");
      current.attempt = flush.attempt;
    }
    for (const entry of deltaEntries(flush.parts, current.messageId)) this.push(entry);
  }

  /**
   * Deltas the activity numbered in the call's block (by signal, so that readers of the
   * history's signals see these very entries). Kept only inside the attempt's span and after
   * what it numbered before: anything else is a stale or forged batch, and is ignored.
   */
  #acceptNumbered(batch: StreamBatch, attempt: number, current: CurrentAnswer): void {
    const start = attemptSeqBase(current.base, attempt);
    const first = batch.entries[0]?.seq;
    const last = batch.entries.at(-1)?.seq;
    if (start === undefined || first === undefined || last === undefined) return;
    if (first <= start || last >= start + STREAM_ATTEMPT_SPAN || (attempt === current.attempt && first <= (current.numbered ?? -1))) return;
    // A retried attempt's first batch begins with its reset entry: readers drop the failed attempt's deltas.
    if (attempt > current.attempt) this.#fold(current.messageId);
    current.attempt = attempt;
    current.numbered = last;
    for (const entry of batch.entries) this.#keep(entry);
    this.onEntry?.(batch);
  }

  /** The answer is complete: its `message` entry stands for the deltas, which are folded away. */
  end(): void {
    const id = this.#current?.messageId;
    this.#current = undefined;
    if (id !== undefined) this.#fold(id);
  }

  /** The answer is abandoned (stop, failure, retry): readers forget its deltas. */
  reset(reason: "retry" | "stopped" | "failed"): void {
    const current = this.#current;
    if (!current) return;
    if (reason !== "retry") this.#current = undefined;
    // Deltas sent out of band never reach this log: readers may hold some all the same.
    this.#fold(current.messageId);
    this.push({ type: "reset", messageId: current.messageId, reason });
  }

  status(status: ThreadStatus, previousStatus: ThreadStatus, at: string): void {
    this.push({ type: "status", status, previousStatus, at });
  }

  since(threadId: string, status: ThreadStatus, fromSeq: number): StreamSnapshot {
    const from = Number.isFinite(fromSeq) ? fromSeq : 0;
    return {
      threadId,
      status,
      updates: this.#entries.filter((e) => e.seq > from),
      lastSeq: this.#seq,
      truncated: from < this.#droppedThrough,
      ...(this.#current ? { streamingMessageId: this.#current.messageId } : {}),
    };
  }

  /** Whether the log holds an `approval-decided` entry for the request: readers have been told it is over. */
  approvalDecided(approvalId: string): boolean {
    return this.#entries.some((e) => e.type === "approval-decided" && e.approvalId === approvalId);
  }

  /** What continue-as-new carries: message entries by reference, so the transcript is not carried twice. */
  carry(): ThreadCarry["stream"] {
    return {
      seq: this.#seq,
      ...(this.#floor > this.#seq ? { floor: this.#floor } : {}),
      droppedThrough: this.#droppedThrough,
      entries: this.#entries.map((e) => (e.type === "message" ? { seq: e.seq, type: "message-ref", messageId: e.message.id } : e)),
    };
  }

  /** The seq of the last entry that is not a delta (what a reader must have seen). */
  #lastDurable(): number {
    for (let i = this.#entries.length - 1; i >= 0; i--) {
      const entry = this.#entries[i]!;
      if (entry.type !== "text-delta" && entry.type !== "tool-input-delta") return entry.seq;
    }
    return this.#droppedThrough;
  }

  /** The seq of the last entry a query would show (deltas signalled in included), for the status line. */
  get lastShownSeq(): number {
    return this.#entries.at(-1)?.seq ?? this.#droppedThrough;
  }

  #fold(messageId: string): void {
    this.#entries = this.#entries.filter((e) => !isDeltaOf(e, messageId));
  }
}

interface CurrentAnswer {
  messageId: string;
  attempt: number;
  /** The first seq of the block reserved for the answer's deltas. */
  base: number;
  /** The last seq the model activity numbered in it. */
  numbered?: number;
}

function isDeltaOf(entry: StreamUpdate, messageId: string): boolean {
  return (entry.type === "text-delta" || entry.type === "tool-input-delta") && entry.messageId === messageId;
}
