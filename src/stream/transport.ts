import type { StreamBatch } from "../core/thread-contracts.js";

export type { StreamBatch };

/** What `subscribe` returns. */
export interface StreamSubscription {
  /** Stops delivery to this listener; other subscriptions of the thread go on. */
  unsubscribe(): Promise<void>;
}

/**
 * How live stream entries travel from the worker to readers without touching Temporal:
 * deltas and durable entries are published here, and readers subscribed to the thread
 * hear them without a billed query or signal. Delivery is best effort: what a reader
 * misses (a dropped connection, a process that was not subscribed yet) it reads once by
 * query from the thread, whose stream log stays the source of truth.
 *
 * The default is {@link inProcessStreamTransport}: it reaches readers in the worker's own
 * process. Where readers and workers run in different processes, give both the same
 * shared transport (for example `redisStreamTransport` from `durable-agents/redis`).
 */
export interface StreamTransport {
  /**
   * True when the transport reaches only this process. Readers elsewhere then follow the
   * thread by polling (durable entries only; no deltas).
   */
  readonly local: boolean;
  /**
   * Sends a batch to the thread's subscribers wherever the transport reaches. Resolves once
   * handed over (not once delivered); rejects only for a broken transport, which the
   * publisher ignores.
   */
  publish(threadId: string, batch: StreamBatch): Promise<void>;
  /**
   * Delivers every batch published for `threadId` after the returned promise resolves, in
   * the order each publisher sent them.
   */
  subscribe(threadId: string, listener: (batch: StreamBatch) => void): Promise<StreamSubscription>;
  /** Releases connections; the transport is unusable afterwards. The in-process one ignores it. */
  close(): Promise<void>;
}

/** True for something shaped like a {@link StreamTransport}: what the worker and client options accept. */
export function isStreamTransport(value: unknown): value is StreamTransport {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<StreamTransport>;
  return typeof candidate.publish === "function" && typeof candidate.subscribe === "function";
}
