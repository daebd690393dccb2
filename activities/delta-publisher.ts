import type { Client } from "@temporalio/client";
import type { AgentModelCallInput } from "../src/core/contracts.js";
import type { ModelDelta } from "../src/core/model.js";
import { deltaEntries, mergeDeltas } from "../src/core/model-deltas.js";
import { attemptSeqBase, STREAM_ATTEMPT_SPAN } from "../src/core/stream-seq.js";
import type { StreamFlush, StreamUpdate } from "../src/core/thread-contracts.js";
import { threadStreamSignal } from "../src/core/wire/thread.js";
import type { StreamSettings } from "./settings.js";
import { DeltaFlusher } from "./thread-stream-flusher.js";


/**
 * How long the model call, once it has its answer, waits for a batch still being published.
 * A transport's publish that never settles (a custom transport's bug, a stalled connection)
 * would otherwise hold the call's result until its heartbeat timeout, and the call would be
 * retried: the answer late, and the model paid twice. A batch that lands after the answer's
 * message is harmless: its seqs are below the message's, and readers drop entries older than
 * what they have.
 */
const PUBLISH_WAIT_MS = 1_000;

/** A model call's deltas on their way to readers. */
export interface AnswerStream {
  push(delta: ModelDelta): void;
  /**
   * The answer starts over (a fallback model answers after the first one failed mid-answer).
   * On a transport, readers drop what was streamed and the new answer streams; by signal the
   * rest of the answer arrives whole, as its message, which replaces what readers hold.
   */
  restart(): void;
  close(): Promise<void>;
}

/**
 * Where a model call's deltas go while the answer is written. On a stream transport,
 * straight to readers, numbered inside the block of seqs the thread reserved for
 * this call: no signal, no history, no query. By signal (`transport: "workflow"`, or a
 * thread older than reserved blocks), into the thread, which numbers them.
 */
export function deltaFlusher(input: AgentModelCallInput, stream: StreamSettings, client: Client, call: { runId: string | undefined; attempt: number }): AnswerStream | undefined {
  const messageId = input.streamId;
  if (messageId === undefined) return undefined;
  if (stream.transport === "workflow" || input.streamSeq === undefined) {
    const handle = client.workflow.getHandle(input.workflowId, call.runId);
    const numbering = signalNumbering(input.streamSeq, call.attempt);
    const flusher = new DeltaFlusher(
      (parts) => {
        const numbered = numbering?.(parts);
        // Past the attempt's span the rest of the answer arrives whole, as its message.
        if (numbered === null) return Promise.resolve();
        return handle.signal(threadStreamSignal, { streamId: messageId, attempt: call.attempt, parts, ...numbered });
      },
      stream.intervalMs,
      stream.maxBatches,
    );
    return {
      push: (delta) => flusher.push(delta),
      // The thread resets a draft only for a newer attempt: an answer started over inside one
      // attempt stops streaming once readers hold part of the first one.
      restart: () => void (flusher.batches > 0 ? flusher.close() : flusher.discard()),
      close: () => flusher.close(),
    };
  }
  const first = attemptSeqBase(input.streamSeq.base, call.attempt);
  // Past the attempts a block has room for, the answer arrives whole, as its message.
  if (first === undefined) return undefined;
  const { transport } = stream;
  const { after } = input.streamSeq;
  const published = call.runId === undefined ? {} : { runId: call.runId };
  const last = first + STREAM_ATTEMPT_SPAN - 1;
  let seq = first;
  // A retried call streams from the start again: readers first drop what the failed attempt wrote.
  let resetFirst = call.attempt > 1;
  const flusher = new DeltaFlusher(
    async (parts) => {
      const entries: StreamUpdate[] = [];
      if (resetFirst) {
        entries.push({ seq: ++seq, type: "reset", messageId, reason: "retry" });
        resetFirst = false;
      }
      for (const body of deltaEntries(parts, messageId)) {
        if (seq >= last) break;
        entries.push({ ...body, seq: ++seq } as StreamUpdate);
      }
      if (entries.length > 0) await transport.publish(input.workflowId, { after, entries }, published);
    },
    stream.intervalMs,
    STREAM_ATTEMPT_SPAN,
    false,
    PUBLISH_WAIT_MS,
  );
  return {
    push: (delta) => flusher.push(delta),
    restart: () => {
      flusher.discard();
      // Readers drop the draft at once, while the next model thinks; a batch still in
      // flight carries lower seqs, so a reader that gets it late drops it too.
      if (flusher.batches === 0 || seq >= last) return;
      resetFirst = false;
      void transport.publish(input.workflowId, { after, entries: [{ seq: ++seq, type: "reset", messageId, reason: "retry" }] }, published).catch(() => undefined);
    },
    close: () => flusher.close(),
  };
}

/**
 * By signal, on a thread that reserved a block of seqs for the call: each batch says the seq
 * of its first entry (and the durable entry the call follows), so a reader of the history's
 * signals numbers the entries as the thread's log does (`numberedFlushEntries`) and needs no
 * query to see them. Returns what each batch adds to its signal, or null once the attempt's
 * span is full; undefined when the thread numbers the deltas itself.
 */
function signalNumbering(streamSeq: AgentModelCallInput["streamSeq"], attempt: number): ((parts: ModelDelta[]) => Pick<StreamFlush, "first" | "after" | "reset"> | null) | undefined {
  const first = streamSeq === undefined ? undefined : attemptSeqBase(streamSeq.base, attempt);
  if (streamSeq === undefined || first === undefined) return undefined;
  // As on a transport: the span's first seq is the block's start (the last seq before it), so entries come after it.
  const end = first + STREAM_ATTEMPT_SPAN;
  let next = first + 1;
  let resetFirst = attempt > 1;
  return (parts) => {
    // One entry per merged part, as numberedFlushEntries makes them.
    const count = mergeDeltas(parts).length + (resetFirst ? 1 : 0);
    if (next + count > end) return null;
    const numbered = { first: next, after: streamSeq.after, ...(resetFirst ? { reset: true as const } : {}) };
    next += count;
    resetFirst = false;
    return numbered;
  };
}
