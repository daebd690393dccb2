import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@temporalio/client";
import { numberedFlushEntries } from "../../core/model-deltas.js";
import { streamFlushProblem } from "../../core/request-shapes.js";
import type { StreamBatch, StreamFlush } from "../../core/thread-contracts.js";
import { threadStreamSignal } from "../../core/wire/thread.js";
import { decodePayloadAt } from "../data-converter.js";
import { longPollHistory } from "../history-poll.js";

/** How long to wait before looking again after a read failed or the thread's run closed. */
const RETRY_MS = 1_000;
/** The pause after a read that brought no event. */
const EMPTY_PAUSE_MS = 100;

/**
 * Follows a thread's history for the delta batches its model calls signal (deltas by
 * signal, the worker's default stream), and hands each on as the batch the thread's log
 * holds for it: the model activity numbers a batch's entries itself, and
 * `numberedFlushEntries` turns the signal into the same entries. Reading history is not
 * billed, so a process following the thread this way needs no query per batch, however
 * many batches an answer takes; the poller still queries for the durable entries (messages,
 * statuses) its readers lack. Signals from before the tail started, and signals an older
 * worker sent without numbers, are left to the query.
 */
export function tailSignalledBatches(client: Client, threadId: string, onBatch: (batch: StreamBatch) => void, onMoved: () => void = () => undefined): () => void {
  const stopped = new AbortController();
  void follow(client, threadId, onBatch, onMoved, stopped.signal);
  return () => stopped.abort();
}

/**
 * `onMoved`: after each read that brought events past the tail's start (and whenever the tail
 * starts over, when it may have missed some), so a follower can look at the thread when its
 * history moves instead of at every interval.
 */
async function follow(client: Client, threadId: string, onBatch: (batch: StreamBatch) => void, onMoved: () => void, stopped: AbortSignal): Promise<void> {
  const converter = client.options.loadedDataConverter;
  while (!stopped.aborted) {
    try {
      // Events up to the history's length now are what the reader's catch-up read covers.
      const described = await client.workflow.getHandle(threadId).describe();
      let runId: string | undefined = described.runId;
      let seen = described.historyLength;
      let nextPageToken: Uint8Array | undefined;
      onMoved();
      while (runId && !stopped.aborted) {
        const response = await longPollHistory(client, { workflowId: threadId, runId }, stopped, { ...(nextPageToken ? { nextPageToken } : {}) });
        const events = response.history?.events ?? [];
        let next: string | undefined;
        let moved = false;
        for (const event of events) {
          if (Number(event.eventId) <= seen) continue;
          seen = Number(event.eventId);
          moved = true;
          const signalled = event.workflowExecutionSignaledEventAttributes;
          if (signalled?.signalName === threadStreamSignal.name) {
            const flush = await decodePayloadAt<StreamFlush>(converter, 0, signalled.input?.payloads).catch(() => undefined);
            const batch = flush !== undefined && streamFlushProblem(flush) === undefined ? numberedFlushEntries(flush) : undefined;
            if (batch) onBatch(batch);
          }
          next = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? next;
        }
        if (moved) onMoved();
        if (next) {
          // The thread continued as new: its next run's history starts over.
          runId = next;
          seen = 0;
          nextPageToken = undefined;
          continue;
        }
        nextPageToken = response.nextPageToken ?? undefined;
        // An empty answer is a long-poll that timed out; should a server answer at once instead, this keeps the loop from spinning.
        if (events.length === 0) await sleep(EMPTY_PAUSE_MS, undefined, { signal: stopped });
        // No token: the run closed (deleted, or continued as new in events not read yet): describe again.
        if (!nextPageToken || nextPageToken.length === 0) runId = undefined;
      }
    } catch {
      // The thread is gone or the server unreachable: the poller's reads report it; look again later.
    }
    if (!stopped.aborted) await sleep(RETRY_MS, undefined, { signal: stopped }).catch(() => undefined);
  }
}
