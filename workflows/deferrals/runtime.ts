import type { SearchAttributeUpdatePair } from "@temporalio/common";
import { condition, setCurrentDetails, upsertMemo, upsertSearchAttributes, workflowInfo } from "@temporalio/workflow";
import { agentSinks } from "../shared/sinks.js";
import type { DeferralEvent, DeferredAck } from "../../src/core/deferral-record.js";
import type { TokenBinding } from "../../src/core/proof.js";

export type SearchAttributeWrite = SearchAttributeUpdatePair[];

/**
 * What the deferral classes take from the workflow they run in. It is passed in, so the
 * classes run in unit tests with a fake clock and no Temporal server; in a workflow each
 * member is the Temporal call itself, so the commands a run produces are the same.
 */
export interface DeferralRuntime {
  /** The run's workflow id; deferral ids are derived from it. */
  workflowId(): string;
  now(): number;
  upsertSearchAttributes(attributes: SearchAttributeWrite): void;
  /** Temporal's `upsertMemo`: what list and describe return with no worker involved; fakes may leave it out. */
  upsertMemo?(memo: Record<string, unknown>): void;
  /** Hands an event to worker-side listeners (a sink: never delivered twice on replay). */
  emit(event: DeferralEvent): void;
  /** Tells the worker the run parks in this workflow task, with the acknowledgment its callers get (a sink, like `emit`). */
  parked?(ack: DeferredAck): void;
  /**
   * Temporal's `condition`: with a timeout it starts a timer and resolves false when it
   * fires. `summary` names the timer in its history event (and the Temporal UI).
   */
  condition(fn: () => boolean, timeoutMs?: number, summary?: string): Promise<boolean | void>;
  /** Where this execution lives, for the binding of resume tokens; fakes may leave it out (no binding check). */
  execution?(): TokenBinding;
  /** Shows what the run is doing (e.g. why it waits) as the workflow's current details in the Temporal UI; no command, so replay is unaffected. */
  details?(text: string): void;
}

/** The runtime of the workflow this is called in. */
export function workflowDeferralRuntime(): DeferralRuntime {
  const sink = agentSinks();
  return {
    workflowId: () => workflowInfo().workflowId,
    now: () => Date.now(),
    upsertSearchAttributes: (attributes) => upsertSearchAttributes(attributes),
    upsertMemo: (memo) => upsertMemo(memo),
    emit: (event) => sink.event(event),
    parked: (ack) => sink.parked(ack),
    condition: (fn, timeoutMs, summary) =>
      timeoutMs === undefined ? condition(fn) : summary === undefined ? condition(fn, timeoutMs) : condition(fn, timeoutMs, { summary }),
    details: (text) => setCurrentDetails(text),
    execution: () => {
      const info = workflowInfo();
      return { namespace: info.namespace, workflowId: info.workflowId, firstRunId: info.firstExecutionRunId };
    },
  };
}
