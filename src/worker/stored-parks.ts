import type { Worker } from "@temporalio/worker";
import type { DeferredAck } from "../core/deferral-record.js";
import { ringParkBell, serveParkBells, type ParkBellKey } from "../stream/park-bell.js";
import { onActivationCompleted } from "../temporal/internals.js";

/**
 * The park bell (park-bell.ts), rung once Temporal has stored the park. A workflow's sinks
 * run as its activation ends, before the worker sends the completion on; the worker's core
 * resolves the completion once the server has answered the workflow task's completion. So
 * the sink only holds the acknowledgment, by run id, and the bell rings when the completion
 * of that run's activation has been answered: a caller answered by it then finds the park
 * in the run's history and description, as a caller reading the history does. (Core answers
 * at once for an activation that does not end its task, one that also waits on a local
 * activity: a run's park never does, it ends the task that parks the run.)
 *
 * Temporal publishes no hook for "the server has stored this workflow task": the one used
 * is in src/temporal/internals.ts (`onActivationCompleted`). Where it is missing the bell
 * never rings and callers read the history, which is correct, only slower;
 * `test/settle.test.ts` and `test/temporal-internals.test.ts` fail if it stops working.
 */
export class StoredParks {
  readonly #held = new Map<string, { key: ParkBellKey; ack: DeferredAck }>();
  #attached = 0;

  /** From the `parked` sink: rings for `runId` once its activation's completion is stored. */
  hold(runId: string, key: ParkBellKey, ack: DeferredAck): void {
    // With no worker wrapped nothing would ever ring it: callers read the history instead.
    if (this.#attached > 0) this.#held.set(runId, { key, ack });
  }

  /** Rings the parks of `worker`'s runs while it runs; returns how to stop. */
  attach(worker: Worker): () => void {
    // Decoded only while a park waits: most completions go straight through.
    const stop = onActivationCompleted(
      worker,
      () => this.#held.size > 0,
      (runId) => {
        const held = this.#held.get(runId);
        if (!held) return;
        this.#held.delete(runId);
        ringParkBell(held.key, held.ack);
      },
    );
    if (!stop) return () => {};
    this.#attached++;
    const options = (worker as Partial<Pick<Worker, "options">>).options;
    const serving = options ? serveParkBells({ namespace: options.namespace, taskQueue: options.taskQueue }) : () => {};
    return () => {
      serving();
      stop();
      this.#attached--;
      if (this.#attached === 0) this.#held.clear();
    };
  }
}
