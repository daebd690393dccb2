import { CancellationScope, proxyLocalActivities, setCurrentDetails, uuid4, workflowInfo } from "@temporalio/workflow";
import { agentSinks } from "../shared/sinks.js";
import type { StreamBatch, ThreadActivities, ThreadStatusChange } from "../../src/core/thread-contracts.js";

/**
 * What a thread's state takes from the workflow it runs in. It is passed in, so the state
 * and its handlers run in unit tests; in a workflow each member is the Temporal call
 * itself (ids from the workflow's seeded random, time from the workflow clock).
 */
export interface ThreadRuntime {
  /** The thread's id (its workflow id) and the run its chain started with. */
  readonly threadId: string;
  readonly firstRunId: string;
  /** The current time, as an ISO string. */
  now(): string;
  uuid(): string;
  /** How long this run's history is, and whether Temporal suggests continuing as new. */
  history(): { length: number; continueAsNewSuggested: boolean };
  /** Tells the worker's status hook about a transition. */
  statusChanged(change: ThreadStatusChange): Promise<unknown>;
  /** Shows what the thread is doing as the workflow's current details in the Temporal UI (no command: replay is unaffected). */
  details?(text: string): void;
  /** Hands a stream entry to the worker's stream transport (a sink: never again on replay). */
  publish?(batch: StreamBatch): void;
}

// Hooks run in line with the thread's other local activities: a failing one gives up soon.
const { threadStatusChanged } = proxyLocalActivities<ThreadActivities>({
  startToCloseTimeout: "10s",
  retry: { maximumAttempts: 3, initialInterval: "200ms" },
});

/** The runtime of the workflow this is called in. */
export function workflowThreadRuntime(): ThreadRuntime {
  const info = workflowInfo();
  const sinks = agentSinks();
  return {
    threadId: info.workflowId,
    firstRunId: info.firstExecutionRunId,
    now: () => new Date(Date.now()).toISOString(),
    uuid: () => uuid4(),
    history: () => {
      const { historyLength, continueAsNewSuggested } = workflowInfo();
      return { length: historyLength, continueAsNewSuggested };
    },
    // Outside any turn scope: a stop must not cancel its own announcement.
    statusChanged: (change) => CancellationScope.nonCancellable(() => threadStatusChanged(change)),
    details: (text) => setCurrentDetails(text),
    publish: (batch) => sinks.stream(info.workflowId, batch),
  };
}
