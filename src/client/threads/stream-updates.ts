import type { Client } from "@temporalio/client";
import type { agentThread } from "../../../workflows/threads/agent-thread.js";
import type { StreamSnapshot } from "../../core/thread-contracts.js";
import { threadStreamQuery } from "../../core/wire/thread.js";
import { hubFor, lastSeqOf, type StreamReader, type StreamSource } from "./stream-hub.js";
import type { ThreadAccess } from "./thread-access.js";
import type { FollowUpdatesOptions, StreamUpdatesOptions } from "../shared-options.js";
import type { ThreadTarget } from "./thread-types.js";
import { durationMs } from "../../core/duration.js";
import { ThreadNotFoundError } from "../../core/errors/threads.js";
import { currentDetails } from "../history-watch.js";

/** `ThreadsClient.streamUpdates`: one read of the stream after `fromSeq`. */
export async function streamUpdates(access: ThreadAccess, options: ThreadTarget & StreamUpdatesOptions): Promise<StreamSnapshot> {
  await access.check(options, "thread.stream");
  return access.query(options.threadId, () => access.handle(options.threadId).query(threadStreamQuery, { fromSeq: options.fromSeq ?? 0 }));
}

/**
 * Authorizes a reader of the thread's stream (`thread.stream`, AI1021) and checks the thread
 * exists (AI1020), from a describe: no billed query for a reader that joins.
 */
export async function openStream(access: ThreadAccess, options: ThreadTarget): Promise<void> {
  await access.check(options, "thread.stream");
  const described = await access.query(options.threadId, () => access.handle(options.threadId).describe());
  if (described.type !== "agentThread") throw new ThreadNotFoundError({ threadId: options.threadId });
}

/** One read of the stream for the shared poller, on `via` (its fail-fast client), bounded and translated. */
export function readStream(access: ThreadAccess, threadId: string, fromSeq: number, via: Client): Promise<StreamSnapshot> {
  return access.query(threadId, () => via.workflow.getHandle<typeof agentThread>(threadId).query(threadStreamQuery, { fromSeq }), via);
}

/** The thread's status line for the shared poller, on `via`, bounded and translated like a read of its stream (AI1015 when no worker answers). */
export function readStatusLine(access: ThreadAccess, threadId: string, via: Client): Promise<string | undefined> {
  return access.query(threadId, () => currentDetails(via, threadId), via);
}

/**
 * `ThreadsClient.followUpdates`: authorizes once, then joins the process's poller of the
 * thread for `source` (the client, so the front door's readers share it).
 */
export async function* followUpdates(access: ThreadAccess, source: StreamSource, options: ThreadTarget & FollowUpdatesOptions): AsyncGenerator<StreamSnapshot> {
  const intervalMs = pollIntervalMs(options, "threads.followUpdates()");
  await access.check(options, "thread.stream");
  yield* followStream(source, options.threadId, { ...options, intervalMs });
}

/** `pollInterval` in ms (default 100); AI1001 naming `subject` for what is not a duration, before anything is read. */
export function pollIntervalMs(options: FollowUpdatesOptions | undefined, subject: string): number {
  return options?.pollInterval === undefined ? 100 : durationMs(options.pollInterval, `${subject} pollInterval`, "100ms");
}

/**
 * A follower of the stream of `id` (a thread or a run) on the process's shared poller for
 * `source`, already authorized: each batch of new entries as one snapshot, until `until`
 * says so, `signal` aborts, or the stream fails (the workflow is gone).
 */
export async function* followStream(
  source: StreamSource,
  id: string,
  options: Omit<FollowUpdatesOptions, "pollInterval"> & { intervalMs: number },
): AsyncGenerator<StreamSnapshot> {
  const batches: StreamSnapshot[] = [];
  let failure: { err: unknown } | undefined;
  let wake: (() => void) | undefined;
  const reader: StreamReader = {
    last: options.fromSeq ?? 0,
    deliver(updates, snapshot, truncated) {
      reader.last = truncated && updates.length === 0 ? snapshot.lastSeq : lastSeqOf(updates, reader.last);
      batches.push({ ...snapshot, updates, truncated });
      wake?.();
    },
    fail(err) {
      failure = { err };
      wake?.();
    },
  };
  const stop = () => wake?.();
  options.signal?.addEventListener("abort", stop);
  const leave = hubFor(source, options.intervalMs).join(id, reader);
  try {
    while (!options.signal?.aborted) {
      const batch = batches.shift();
      if (batch) {
        yield batch;
        if (options.until?.(batch)) return;
        continue;
      }
      if (failure) throw failure.err;
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (options.signal?.aborted) resolve();
      });
      wake = undefined;
    }
  } finally {
    leave();
    options.signal?.removeEventListener("abort", stop);
  }
}
