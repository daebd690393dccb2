import type { ChatMessage } from "../src/core/messages.js";

/**
 * The worker's copy of each active thread, so a model call's input carries only what
 * is new. Bounded LRU: a miss costs one query to the workflow, never correctness.
 */
export class ThreadCache {
  readonly #threads = new Map<string, ChatMessage[]>();

  constructor(private readonly maxThreads = 1000) {}

  static key(workflowId: string, runId: string, epoch: number): string {
    return `${workflowId}\u0000${runId}\u0000${epoch}`;
  }

  /** The first `length` messages, if this worker holds at least that many for the thread. */
  prefix(key: string, length: number): ChatMessage[] | undefined {
    const thread = this.#threads.get(key);
    if (!thread || thread.length < length) return undefined;
    // Threads only grow within an epoch, so any longer copy starts with the prefix asked for.
    return thread.length === length ? thread : thread.slice(0, length);
  }

  set(key: string, thread: ChatMessage[]): void {
    this.#threads.delete(key);
    this.#threads.set(key, thread);
    if (this.#threads.size > this.maxThreads) {
      const oldest = this.#threads.keys().next().value;
      if (oldest !== undefined) this.#threads.delete(oldest);
    }
  }

  delete(key: string): void {
    this.#threads.delete(key);
  }

  get size(): number {
    return this.#threads.size;
  }
}
