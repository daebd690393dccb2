import type { DeferredAck } from "../core/deferral-record.js";

/**
 * Within one process, a worker hands a caller waiting on a run (`run()`, `settled()`) the
 * acknowledgment of the park once Temporal has stored the workflow task that parks the run
 * (src/worker/stored-parks.ts rings it when the server has answered that task's completion).
 *
 * Why: read from the history, a park reached the caller 10–38 ms after Temporal wrote it
 * (`bench latency`, a gated tool on the dev server): the long-poll answers late for that
 * task, and a read made at once waits as long, while the park's own writes (its search
 * attributes, the expiry timer, the approvers' notification) are being stored. A bare
 * workflow's update answers in a few ms; one update per run would be a billed action.
 *
 * The bell never leaves the process, so it is as trustworthy as the worker itself, which
 * made the acknowledgment from the run's state exactly as the history holds it. Callers in
 * other processes read the history; callers here may too (`AgentClientOptions.inProcessParks: false`).
 */

type Listener = (ack: DeferredAck) => void;

/** Which workflow: its namespace, task queue and workflow id (several servers or namespaces may share a process). */
export interface ParkBellKey {
  namespace: string;
  taskQueue: string;
  workflowId: string;
}

// In the global symbol registry, like the in-process transport: two copies of this module in
// one process (a bundled worker beside the package) must still meet.
const KEY = Symbol.for("durable-agents.park-bell");

function listeners(): Map<string, Set<Listener>> {
  const holder = globalThis as { [KEY]?: Map<string, Set<Listener>> };
  return (holder[KEY] ??= new Map());
}

const keyOf = ({ namespace, taskQueue, workflowId }: ParkBellKey): string => JSON.stringify([namespace, taskQueue, workflowId]);

/** Hands `ack` to every caller in this process waiting on the workflow. */
export function ringParkBell(key: ParkBellKey, ack: DeferredAck): void {
  for (const listener of [...(listeners().get(keyOf(key)) ?? [])]) {
    try {
      listener(ack);
    } catch {
      // A listener's failure is its own; the others still hear the bell.
    }
  }
}

/** Calls `listener` each time the workflow parks in a worker of this process; returns how to stop listening. */
export function onParkBell(key: ParkBellKey, listener: Listener): () => void {
  const all = listeners();
  const id = keyOf(key);
  let mine = all.get(id);
  if (!mine) all.set(id, (mine = new Set()));
  // Its own entry, so the same function listening twice stops twice.
  const entry: Listener = (ack) => listener(ack);
  mine.add(entry);
  return () => {
    const current = all.get(id);
    if (!current?.delete(entry) || current.size > 0) return;
    all.delete(id);
  };
}

// The queues whose parks a worker of this process rings, with how many such workers run.
const SERVED = Symbol.for("durable-agents.park-bell.served");

function served(): Map<string, number> {
  const holder = globalThis as { [SERVED]?: Map<string, number> };
  return (holder[SERVED] ??= new Map());
}

const queueOf = ({ namespace, taskQueue }: Omit<ParkBellKey, "workflowId">): string => JSON.stringify([namespace, taskQueue]);

/** A worker of this process rings the parks of the runs on this queue while it runs; returns how to say it stopped. */
export function serveParkBells(queue: Omit<ParkBellKey, "workflowId">): () => void {
  const id = queueOf(queue);
  served().set(id, (served().get(id) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const left = (served().get(id) ?? 1) - 1;
    if (left > 0) served().set(id, left);
    else served().delete(id);
  };
}

/** Whether a worker of this process rings the parks of runs on this queue now. */
export function parkBellsServed(queue: Omit<ParkBellKey, "workflowId">): boolean {
  return served().has(queueOf(queue));
}

/** @internal Workflows listened for now: what a test reads to see nothing leaks. */
export function parkBellListeners(): number {
  return listeners().size;
}
