import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import type { ConnectionLike } from "@temporalio/client";

/** What a beacon's identity carries after the worker's own: where its endpoint listens. */
const IDENTITY_MARK = " durable-agents-stream=";
/** How long to wait before polling again after a poll failed (the server restarting, say). */
const RETRY_MS = 1_000;

/**
 * The task queue a worker's endpoint is announced on, beside the queue its threads run on.
 * Nothing is ever scheduled there: it exists for Temporal to list its pollers.
 */
export function beaconQueue(taskQueue: string): string {
  return `durable-agents-stream/${taskQueue}`;
}

/** The identity a beacon polls with: the worker's usual one, and its endpoint. */
export function beaconIdentity(url: string): string {
  return `${process.pid}@${hostname()}${IDENTITY_MARK}${url}`;
}

/** The endpoint a beacon's identity names, when it is an http(s) URL. */
export function endpointOfIdentity(identity: string | null | undefined): string | undefined {
  const at = identity?.lastIndexOf(IDENTITY_MARK) ?? -1;
  if (at < 0) return undefined;
  const text = identity!.slice(at + IDENTITY_MARK.length).split(/\s/)[0] ?? "";
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Announces a worker's endpoint for as long as the worker runs: a long-poll on the task
 * queue's beacon queue (`beaconQueue`) whose identity names the endpoint, so that readers
 * find it in Temporal's list of that queue's pollers. A poll is not a billed action, and
 * nothing about it enters any workflow's history (a worker identity naming the endpoint
 * did: about 45 bytes in every workflow task and activity event). Returns how to stop.
 */
export function startBeacon(connection: ConnectionLike, namespace: string, taskQueue: string, url: string): () => Promise<void> {
  const stopped = new AbortController();
  const identity = beaconIdentity(url);
  const polling = (async () => {
    while (!stopped.signal.aborted) {
      try {
        const task = await connection.withAbortSignal(stopped.signal, () =>
          connection.workflowService.pollActivityTaskQueue({ namespace, taskQueue: { name: beaconQueue(taskQueue) }, identity }),
        );
        // Nothing should be scheduled here; what is gets refused at once rather than left to time out.
        if (task.taskToken && task.taskToken.length > 0) {
          await connection.workflowService
            .respondActivityTaskFailed({ namespace, taskToken: task.taskToken, identity, failure: { message: `${beaconQueue(taskQueue)} only announces a stream endpoint; it runs no activity` } })
            .catch(() => undefined);
        }
      } catch {
        if (!stopped.signal.aborted) await sleep(RETRY_MS, undefined, { signal: stopped.signal }).catch(() => undefined);
      }
    }
  })();
  void polling;
  // Temporal's native connection cannot cancel a request in flight: the last poll is left to
  // end on its own (within a poll's deadline), and its answer is ignored.
  return async () => {
    stopped.abort();
  };
}
