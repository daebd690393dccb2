import type { StreamBatch, StreamSubscription, StreamTransport } from "./transport.js";

type Listener = (batch: StreamBatch) => void;

class InProcessTransport implements StreamTransport {
  readonly local = true;
  readonly #listeners = new Map<string, Set<Listener>>();

  async publish(threadId: string, batch: StreamBatch): Promise<void> {
    for (const listener of [...(this.#listeners.get(threadId) ?? [])]) {
      try {
        listener(batch);
      } catch {
        // One reader's failure is its own.
      }
    }
  }

  async subscribe(threadId: string, listener: Listener): Promise<StreamSubscription> {
    let set = this.#listeners.get(threadId);
    if (!set) this.#listeners.set(threadId, (set = new Set()));
    const own = (batch: StreamBatch) => listener(batch);
    set.add(own);
    return {
      unsubscribe: async () => {
        set.delete(own);
        if (set.size === 0 && this.#listeners.get(threadId) === set) this.#listeners.delete(threadId);
      },
    };
  }

  async close(): Promise<void> {}
}

const KEY = Symbol.for("durable-agents.in-process-stream-transport");

/** The process's one in-process transport (the default of workers and clients). */
export function inProcessStreamTransport(): StreamTransport {
  const holder = globalThis as { [KEY]?: StreamTransport };
  return (holder[KEY] ??= new InProcessTransport());
}
