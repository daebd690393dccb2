import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import type { ConnectionLike } from "@temporalio/client";

/** What a beacon's identity carries after the worker's own: where its endpoint listens, its certificate's pin and its gate. */
const IDENTITY_MARK = " durable-agents-stream=";
/** How long to wait before polling again after a poll failed (the server restarting, say). */
const RETRY_MS = 1_000;
/**
 * How long one beacon poll lasts. Temporal notes a poller's last access when a poll starts
 * and ends, and keeps listing it for minutes after its worker is gone: short polls keep a live
 * beacon's entry fresh, so readers can tell it from a stopped worker's (`BEACON_FRESH_MS`).
 */
const POLL_MS = 10_000;
/** A beacon entry not polled for this long belongs to a worker that stopped: readers pass it by. */
export const BEACON_FRESH_MS = 3 * POLL_MS;

/** Where a worker's endpoint listens and how a reader knows it is that worker's. */
export interface EndpointAnnouncement {
  /** The endpoint's origin, `https://host:port`. */
  url: string;
  /** base64url SHA-256 of the certificate the endpoint must present. */
  pin: string;
  /** What a reader proves it read here (see direct-proof.ts). */
  gate: string;
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The task queue a worker's endpoint is announced on, beside the queue its threads run on.
 * Nothing is ever scheduled there: it exists for Temporal to list its pollers.
 */
export function beaconQueue(taskQueue: string): string {
  return `durable-agents-stream/${taskQueue}`;
}

/** The identity a beacon polls with: the worker's usual one, and its endpoint's announcement. */
export function beaconIdentity({ url, pin, gate }: EndpointAnnouncement): string {
  return `${process.pid}@${hostname()}${IDENTITY_MARK}${url} pin=${pin} gate=${gate}`;
}

/** The endpoint a beacon's identity announces, when it announces a whole one (an https origin, a pin and a gate). */
export function endpointOfIdentity(identity: string | null | undefined): EndpointAnnouncement | undefined {
  const at = identity?.lastIndexOf(IDENTITY_MARK) ?? -1;
  if (at < 0) return undefined;
  const [text = "", pinPart = "", gatePart = ""] = identity!.slice(at + IDENTITY_MARK.length).split(/\s+/);
  const pin = pinPart.startsWith("pin=") ? pinPart.slice(4) : "";
  const gate = gatePart.startsWith("gate=") ? gatePart.slice(5) : "";
  if (!TOKEN.test(pin) || !TOKEN.test(gate)) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === "https:" ? { url: url.origin, pin, gate } : undefined;
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
export function startBeacon(connection: ConnectionLike, namespace: string, taskQueue: string, announcement: EndpointAnnouncement): () => Promise<void> {
  const stopped = new AbortController();
  const identity = beaconIdentity(announcement);
  const polling = (async () => {
    while (!stopped.signal.aborted) {
      try {
        const task = await connection.withAbortSignal(stopped.signal, () =>
          connection.withDeadline(Date.now() + POLL_MS, () => connection.workflowService.pollActivityTaskQueue({ namespace, taskQueue: { name: beaconQueue(taskQueue) }, identity })),
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
