import type { ThreadRuntime } from "./runtime.js";

/**
 * When a thread continues as new: Temporal suggests it, or the configured event budget is
 * spent. It reads the history length, so the workflow asks it only where a recorded event
 * woke it (see `due`).
 */
export class RolloverWatch {
  /**
   * Updates accepted and signals taken by this run. Each is in history, so a wait that wakes
   * on a change of it may read the history length then; see `due`.
   */
  recordedEvents = 0;
  /**
   * Set when the carry was too large to continue as new (the transcript budget should make
   * that impossible): the thread then goes on in this run rather than being terminated.
   */
  carryRefused = false;
  readonly #history: ThreadRuntime["history"];
  readonly #maxHistoryEvents: number | undefined;
  readonly #held: () => boolean;

  /** `held` says the run must stay (a request waiting for a decision holds it). */
  constructor(history: ThreadRuntime["history"], maxHistoryEvents: number | undefined, held: () => boolean) {
    this.#history = history;
    this.#maxHistoryEvents = maxHistoryEvents;
    this.#held = held;
  }

  /**
   * Temporal suggests a new run, or the configured event budget is spent. Read it only where
   * a recorded event woke the workflow: a task carrying an update that is then refused also
   * counts its two events while it runs, and leaves nothing in history.
   */
  due(): boolean {
    const history = this.#history();
    // A fresh run always makes progress before it rolls over again.
    if (history.length < 20 || this.carryRefused || this.#held()) return false;
    return history.continueAsNewSuggested || (this.#maxHistoryEvents !== undefined && history.length >= this.#maxHistoryEvents);
  }

  /** What a wait wakes on to look at `due` again: the next recorded event (an accepted update or a signal). */
  wake(): () => boolean {
    const seen = this.recordedEvents;
    return () => this.recordedEvents !== seen;
  }
}
