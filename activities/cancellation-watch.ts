import type { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";

// temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED
const CANCEL_REQUESTED = 3;

/**
 * How a cancelled run's or a stopped thread's call learns of it without heartbeating twice a
 * second: Temporal tells an activity it was cancelled only in answer to a heartbeat, and
 * every heartbeat that reaches the server is a billed action. Instead, while calls are in
 * flight, the worker reads each of their workflows' pending activities (a describe: a read,
 * not billed) every `intervalMs`, and heartbeats a call at once when its cancellation was
 * requested: the answer to that one heartbeat is what cancels it, as before.
 */
export class CancellationWatch {
  /** In-flight calls, by their workflow execution, then by activity id: how to make each one heartbeat. */
  readonly #calls = new Map<string, { workflowId: string; runId: string; beats: Map<string, () => void> }>();
  #timer: NodeJS.Timeout | undefined;
  #polling = false;

  constructor(
    private readonly client: Client,
    private readonly intervalMs: number,
  ) {}

  /** Watches the current activity until the returned function is called. */
  track(ctx: Context): () => void {
    const execution = ctx.info.workflowExecution;
    if (!execution) return () => undefined;
    const key = `${execution.workflowId}\u0000${execution.runId}`;
    let entry = this.#calls.get(key);
    if (!entry) {
      entry = { workflowId: execution.workflowId, runId: execution.runId, beats: new Map() };
      this.#calls.set(key, entry);
    }
    const { activityId } = ctx.info;
    entry.beats.set(activityId, () => ctx.heartbeat());
    this.#timer ??= setInterval(() => void this.#poll(), this.intervalMs);
    return () => {
      const current = this.#calls.get(key);
      if (current?.beats.get(activityId)) current.beats.delete(activityId);
      if (current && current.beats.size === 0) this.#calls.delete(key);
      if (this.#calls.size === 0 && this.#timer) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  async #poll(): Promise<void> {
    // One read per workflow at a time: a slow server does not stack them up.
    if (this.#polling) return;
    this.#polling = true;
    try {
      await Promise.all(
        [...this.#calls.values()].map(async ({ workflowId, runId, beats }) => {
          try {
            const described = await this.client.workflowService.describeWorkflowExecution({ namespace: this.client.options.namespace, execution: { workflowId, runId } });
            for (const pending of described.pendingActivities ?? []) {
              if (pending.state === CANCEL_REQUESTED && pending.activityId) beats.get(pending.activityId)?.();
            }
          } catch {
            // A closed or unreachable workflow: the liveness heartbeat (or the activity's own end) settles it.
          }
        }),
      );
    } finally {
      this.#polling = false;
    }
  }
}

const watches = new WeakMap<Client, CancellationWatch>();

/** The worker's watch for a client (one per client, so every call of the worker shares its reads). */
export function cancellationWatch(client: Client, intervalMs: number): CancellationWatch {
  let watch = watches.get(client);
  if (!watch) {
    watch = new CancellationWatch(client, intervalMs);
    watches.set(client, watch);
  }
  return watch;
}
