import type { ThreadStatusChange } from "../../src/core/thread-contracts.js";

/**
 * A thread's status transitions on their way to the worker's status hook, in order.
 * Whether the worker has a hook is known only once a turn's preparation says so: until
 * then transitions are held, then sent or dropped.
 */
export class StatusAnnouncements {
  #hook: boolean | undefined;
  #held: ThreadStatusChange[] = [];

  constructor(private readonly send: (change: ThreadStatusChange) => void) {}

  announce(change: ThreadStatusChange): void {
    if (this.#hook === undefined) {
      this.#held.push(change);
      return;
    }
    if (this.#hook) this.send(change);
  }

  /** What the worker said about its hook; transitions held back until now go out (or are dropped). */
  learned(hook: boolean): void {
    this.#hook = hook;
    for (const change of this.#held.splice(0)) this.announce(change);
  }
}
