import type { Client } from "@temporalio/client";
import type { StreamBatch } from "../core/thread-contracts.js";

export type { StreamBatch };

/** What a publisher knows about a batch besides its thread: transports that check who may read it use it. */
export interface PublishContext {
  /** The run of the thread's workflow the batch comes from (what a `directStreamTransport` reader must name). */
  runId?: string;
}

/** What a reader's process offers a transport that finds its publishers through Temporal. */
export interface SubscribeContext {
  /** The threads client's Temporal client: describes are free reads, never billed actions. */
  client?: Client;
}

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
 * The default (a worker or client given none) is a `directStreamTransport`: readers in the
 * worker's process hear it in-process, readers elsewhere connect to the worker. Where many
 * front doors and workers should meet on a broker instead, give both the same shared
 * transport (for example `redisStreamTransport` from `durable-agents/redis`).
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
   * publisher ignores. The SDK's publishers (the model activity, the thread's sink) say
   * which run the batch comes from; a transport of your own may ignore it.
   */
  publish(threadId: string, batch: StreamBatch, context?: PublishContext): Promise<void>;
  /**
   * Delivers every batch published for `threadId` after the returned promise resolves, in
   * the order each publisher sent them. The SDK's readers pass their Temporal client, for a
   * transport that finds the publishing workers through it; a transport of your own may
   * ignore it.
   */
  subscribe(threadId: string, listener: (batch: StreamBatch) => void, context?: SubscribeContext): Promise<StreamSubscription>;
  /** Releases connections; the transport is unusable afterwards. The in-process one ignores it. */
  close(): Promise<void>;
}

/** True for something shaped like a {@link StreamTransport}: what the worker and client options accept. */
export function isStreamTransport(value: unknown): value is StreamTransport {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<StreamTransport>;
  return typeof candidate.publish === "function" && typeof candidate.subscribe === "function";
}
