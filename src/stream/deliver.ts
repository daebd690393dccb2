import type { StreamBatch } from "./transport.js";

/**
 * Hands a batch to each subscription of a thread, from a snapshot: one that unsubscribes
 * (or subscribes) while it is called changes the next batch's listeners, not this one's.
 */
export function deliverBatch(subscriptions: Iterable<{ listener: (batch: StreamBatch) => void }>, batch: StreamBatch): void {
  for (const { listener } of [...subscriptions]) {
    try {
      listener(batch);
    } catch {
      // A reader's bug is its own: the other readers and the publisher go on.
    }
  }
}
