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

function create(): InProcessTransport {
  // Each subscription is its own object, so the same function subscribed twice is two
  // subscriptions, each ended by its own unsubscribe.
  const threads = new Map<string, Set<{ listener: Listener }>>();
  return {
    local: true,
    get listenedThreads() {
      return threads.size;
    },
    async publish(threadId, batch) {
      deliverBatch(threads.get(threadId) ?? [], batch);
    },
    async subscribe(threadId, listener): Promise<StreamSubscription> {
      const subscription = { listener };
      let listeners = threads.get(threadId);
      if (!listeners) threads.set(threadId, (listeners = new Set()));
      listeners.add(subscription);
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
 * The default stream transport: batches reach the listeners of this process only, at once
 * (in `publish`, in order), and nothing is kept for a later subscriber. Readers in the
 * worker's own process get every delta; readers in other processes follow the thread's
 * durable entries by polling it. There is one per process, whichever copy of the package
 * asks for it; `close()` does nothing.
 */
export function inProcessStreamTransport(): StreamTransport {
  const global = globalThis as { [KEY]?: InProcessTransport };
  return (global[KEY] ??= create());
}

/** @internal How many threads have listeners on the process's in-process transport. */
export function inProcessListenedThreads(): number {
  return (inProcessStreamTransport() as InProcessTransport).listenedThreads;
}
