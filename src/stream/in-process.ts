import { ThreadReplay } from "./thread-replay.js";
import { deliverBatch } from "./deliver.js";
import type { StreamBatch, StreamSubscription, StreamTransport } from "./transport.js";

type Listener = (batch: StreamBatch) => void;

interface InProcessTransport extends StreamTransport {
  /** @internal Threads with at least one listener: what a test reads to see nothing leaks. */
  readonly listenedThreads: number;
}

// In the global symbol registry, so that two copies of this module in one process (a
// bundled worker beside the package, two installed versions) still share one transport:
// a worker and a client that each create "the" in-process transport must meet.
const KEY = Symbol.for("durable-agents.stream.in-process");

/** @internal A transport like the process's in-process one, for one owner alone (a `directStreamTransport`'s readers in its process). */
export function createInProcessTransport(): InProcessTransport {
  // Each subscription is its own object, so the same function subscribed twice is two
  // subscriptions, each ended by its own unsubscribe.
  const threads = new Map<string, Set<{ listener: Listener }>>();
  const replay = new ThreadReplay<StreamBatch>();
  return {
    local: true,
    get listenedThreads() {
      return threads.size;
    },
    async publish(threadId, batch) {
      replay.note(threadId, batch, batch, JSON.stringify(batch).length);
      deliverBatch(threads.get(threadId) ?? [], batch);
    },
    async subscribe(threadId, listener): Promise<StreamSubscription> {
      const subscription = { listener };
      let listeners = threads.get(threadId);
      if (!listeners) threads.set(threadId, (listeners = new Set()));
      listeners.add(subscription);
      // What was kept of the thread (its latest durable entries, the answer's deltas so far) comes first.
      for (const batch of replay.of(threadId)) deliverBatch([subscription], batch);
      return {
        async unsubscribe() {
          const current = threads.get(threadId);
          if (!current?.delete(subscription)) return;
          if (current.size === 0) threads.delete(threadId);
        },
      };
    },
    async close() {},
  };
}

/**
 * A stream transport within one process: batches reach the listeners of this process only,
 * at once (in `publish`, in order). A subscriber first gets what was kept of the thread
 * (its latest durable entries as published here, then the deltas of the answer being written,
 * which are not in the thread's log), so a reader whose seq that reaches back to catches up
 * without reading the thread. Readers in other processes follow the thread's durable
 * entries by reading it. There is one per process, whichever copy of the package asks for it; `close()` does
 * nothing. Every `directStreamTransport` (the default's included) delivers through it within
 * its process.
 */
export function inProcessStreamTransport(): StreamTransport {
  const global = globalThis as { [KEY]?: InProcessTransport };
  return (global[KEY] ??= createInProcessTransport());
}

/** @internal How many threads have listeners on the process's in-process transport. */
export function inProcessListenedThreads(): number {
  return (inProcessStreamTransport() as InProcessTransport).listenedThreads;
}
