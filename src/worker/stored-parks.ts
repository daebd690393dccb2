import proto from "@temporalio/proto";
import type { Worker } from "@temporalio/worker";
import type { DeferredAck } from "../core/deferral-record.js";
import { ringParkBell, serveParkBells, type ParkBellKey } from "../stream/park-bell.js";

const { WorkflowActivationCompletion } = proto.coresdk.workflow_completion;

type Complete = (completion: Buffer) => Promise<void>;

/**
 * The park bell (park-bell.ts), rung once Temporal has stored the park. A workflow's sinks
 * run as its activation ends, before the worker sends the completion on; the worker's core
 * resolves `completeWorkflowActivation` once the server has answered the workflow task's
 * completion. So the sink only holds the acknowledgment, by run id, and the bell rings when
 * the completion of that run's activation resolves: a caller answered by it then finds the
 * park in the run's history and description, as a caller reading the history does. (Core
 * answers at once for an activation that does not end its task, one that also waits on a
 * local activity: a run's park never does, it ends the task that parks the run.)
 *
 * It wraps a method Temporal's `Worker` does not publish (`nativeWorker`, @temporalio/worker
 * 1.24). Where that is missing the bell never rings and callers read the history, which is
 * correct, only slower; `test/settle.test.ts` fails if the wrapping stops working.
 */
export class StoredParks {
  readonly #held = new Map<string, { key: ParkBellKey; ack: DeferredAck }>();
  #attached = 0;

  /** From the `parked` sink: rings for `runId` once its activation's completion is stored. */
  hold(runId: string, key: ParkBellKey, ack: DeferredAck): void {
    // With no worker wrapped nothing would ever ring it: callers read the history instead.
    if (this.#attached > 0) this.#held.set(runId, { key, ack });
  }

  /** Wraps `worker`'s activation completions while it runs; returns how to unwrap them. */
  attach(worker: Worker): () => void {
    const native = (worker as unknown as { nativeWorker?: { completeWorkflowActivation?: Complete } }).nativeWorker;
    const original = native?.completeWorkflowActivation;
    if (!native || typeof original !== "function") return () => {};
    native.completeWorkflowActivation = async (completion) => {
      // Decoded only while a park waits: most completions go straight through.
      const runId = this.#held.size > 0 ? runIdOf(completion) : undefined;
      const held = runId === undefined ? undefined : this.#held.get(runId);
      if (held) this.#held.delete(runId!);
      await original(completion);
      // A completion core refused rings nothing: the run's callers read its history.
      if (held) ringParkBell(held.key, held.ack);
    };
    this.#attached++;
    const options = (worker as Partial<Pick<Worker, "options">>).options;
    const serving = options ? serveParkBells({ namespace: options.namespace, taskQueue: options.taskQueue }) : () => {};
    return () => {
      serving();
      native.completeWorkflowActivation = original;
      this.#attached--;
      if (this.#attached === 0) this.#held.clear();
    };
  }
}

function runIdOf(completion: Buffer): string | undefined {
  try {
    return WorkflowActivationCompletion.decodeDelimited(completion).runId || undefined;
  } catch {
    return undefined;
  }
}
