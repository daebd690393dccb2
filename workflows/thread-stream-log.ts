import { mergeDeltas } from "../src/core/model-deltas.js";
import type { StreamFlush, StreamSnapshot, StreamUpdate, StreamUpdateBody, ThreadCarry, ThreadMessage, ThreadStatus } from "../src/core/thread-contracts.js";

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
  /** The answer being written, and which activity attempt is writing it. */
  #current: { messageId: string; attempt: number } | undefined;

  constructor(carried?: ThreadCarry["stream"], messages: readonly ThreadMessage[] = []) {
    this.#seq = carried?.seq ?? 0;
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
    this.#entries.push({ ...body, seq: ++this.#seq } as StreamUpdate);
    if (this.#entries.length > CAPACITY) {
      const dropped = this.#entries.splice(0, this.#entries.length - CAPACITY);
      this.#droppedThrough = dropped.at(-1)!.seq;
    }
  }

  /** A model call starts writing the message `messageId`. */
  begin(messageId: string): void {
    this.#current = { messageId, attempt: 0 };
  }

  /** Deltas from the model activity. Late ones (a stopped call, an older attempt) are ignored. */
  accept(flush: StreamFlush): void {
    const current = this.#current;
    if (!current || flush.streamId !== current.messageId || flush.attempt < current.attempt) return;
    if (flush.attempt > current.attempt) {
      // A retried call streams from the start again: readers drop what the failed attempt wrote.
      if (current.attempt > 0) this.reset("retry");
      current.attempt = flush.attempt;
    }
    for (const part of mergeDeltas(flush.parts)) {
      if (part.kind === "text") this.push({ type: "text-delta", messageId: current.messageId, text: part.text });
      else {
        this.push({
          type: "tool-input-delta",
          messageId: current.messageId,
          toolCallId: part.toolCallId,
          ...(part.name ? { toolName: part.name } : {}),
          argumentsDelta: part.argumentsDelta,
        });
      }
    }
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
    if (!this.#entries.some((e) => isDeltaOf(e, current.messageId))) return;
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

  /** What continue-as-new carries: message entries by reference, so the transcript is not carried twice. */
  carry(): ThreadCarry["stream"] {
    return {
      seq: this.#seq,
      droppedThrough: this.#droppedThrough,
      entries: this.#entries.map((e) => (e.type === "message" ? { seq: e.seq, type: "message-ref", messageId: e.message.id } : e)),
    };
  }

  #fold(messageId: string): void {
    this.#entries = this.#entries.filter((e) => !isDeltaOf(e, messageId));
  }
}

function isDeltaOf(entry: StreamUpdate, messageId: string): boolean {
  return (entry.type === "text-delta" || entry.type === "tool-input-delta") && entry.messageId === messageId;
}
