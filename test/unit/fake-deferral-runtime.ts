/**
 * A stand-in for the workflow a deferral book runs in: a settable clock, the search
 * attributes and events it wrote, and a `condition` that, like Temporal's, re-checks
 * waiting predicates once the code that ran has settled (`settle()`).
 */
import { type DeferralEvent } from "../../src/index.js";
import type { DeferralRuntime, SearchAttributeWrite } from "../../workflows/deferrals/runtime.js";

interface Waiter {
  fn: () => boolean;
  resolve: (value: boolean) => void;
  timed: boolean;
}

export class FakeDeferralRuntime implements DeferralRuntime {
  clock = Date.parse("2026-01-01T00:00:00.000Z");
  readonly written: SearchAttributeWrite[] = [];
  readonly events: DeferralEvent[] = [];
  #waiters: Waiter[] = [];

  constructor(readonly id = "run-1") {}

  workflowId(): string {
    return this.id;
  }

  now(): number {
    return this.clock;
  }

  upsertSearchAttributes(attributes: SearchAttributeWrite): void {
    this.written.push(attributes);
  }

  emit(event: DeferralEvent): void {
    this.events.push(event);
  }

  condition(fn: () => boolean, timeoutMs?: number): Promise<boolean> {
    if (fn()) return Promise.resolve(true);
    return new Promise((resolve) => this.#waiters.push({ fn, resolve, timed: timeoutMs !== undefined }));
  }

  /** Lets pending work run, then wakes every waiter whose predicate now holds, until nothing moves. */
  async settle(): Promise<void> {
    for (let round = 0; round < 50; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      const ready = this.#waiters.filter((w) => w.fn());
      if (ready.length === 0) return;
      this.#waiters = this.#waiters.filter((w) => !ready.includes(w));
      for (const w of ready) w.resolve(true);
    }
    throw new Error("the fake workflow never settled");
  }

  /** The TTL timer fires: every condition with a timeout resolves false. */
  async expire(): Promise<void> {
    const timed = this.#waiters.filter((w) => w.timed);
    this.#waiters = this.#waiters.filter((w) => !w.timed);
    for (const w of timed) w.resolve(false);
    await this.settle();
  }

  /** The DeferralStatus values written, in order. */
  statuses(): unknown[] {
    return this.written.flatMap((write) => write.filter((a) => a.key.name === "DeferralStatus").map((a) => a.value));
  }
}
