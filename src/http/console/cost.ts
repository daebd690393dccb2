import type { temporal } from "@temporalio/proto";

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** What Temporal bills, by the kind of work, as a run's or thread's history shows it. */
export type ActionKind = "start" | "activity" | "retry" | "markers" | "timer" | "signal" | "update" | "upsert" | "child" | "continue-as-new";

export interface TurnActions {
  /** Billed actions of this turn: its model call and what followed until the next model call (the start and preparation count in the first). */
  actions: number;
  byKind: Partial<Record<ActionKind, number>>;
}

export interface ActionCount {
  total: number;
  byKind: Partial<Record<ActionKind, number>>;
  /** One per model call, in order; empty before the first model call is scheduled (everything is then in `before`). */
  turns: TurnActions[];
  /** Actions before the first model call (the start, the agent's preparation), also in `turns[0]` once there is one. */
  before: number;
}

/** The activity that calls the model: each one begins a turn. */
const MODEL_ACTIVITY = "callAgentModel";

/**
 * Counts the billed actions a workflow's history records (every execution, oldest first),
 * by the rules Temporal Cloud bills by (docs/cost.md, "What Temporal counts"): the start,
 * each activity scheduled and each retry, one per workflow task that recorded markers (local
 * activities, `patched()`), each timer, signal, accepted update, search-attribute or memo
 * upsert, a child workflow (2) and a continue-as-new. Queries, heartbeats and rejected
 * updates leave no event, so they are not counted. Pure: the console reads the history anyway.
 */
export function countActions(executions: HistoryEvent[][]): ActionCount {
  const count: ActionCount = { total: 0, byKind: {}, turns: [], before: 0 };
  const add = (kind: ActionKind, n = 1) => {
    count.total += n;
    count.byKind[kind] = (count.byKind[kind] ?? 0) + n;
    const turn = count.turns.at(-1);
    if (!turn) {
      count.before += n;
      return;
    }
    turn.actions += n;
    turn.byKind[kind] = (turn.byKind[kind] ?? 0) + n;
  };
  for (const events of executions) {
    const markerTasks = new Set<string>();
    let startedId: string | undefined;
    for (const e of events) {
      if (e.workflowExecutionStartedEventAttributes) {
        startedId = String(e.eventId);
        // A later execution's start is its predecessor's continue-as-new, counted there.
        if (!e.workflowExecutionStartedEventAttributes.continuedExecutionRunId) add("start");
      } else if (e.activityTaskScheduledEventAttributes) {
        if (e.activityTaskScheduledEventAttributes.activityType?.name === MODEL_ACTIVITY) {
          const before = count.turns.length === 0 ? { actions: count.before, byKind: { ...count.byKind } } : { actions: 0, byKind: {} };
          count.turns.push(before);
        }
        add("activity");
      } else if (e.activityTaskStartedEventAttributes) {
        const retries = (e.activityTaskStartedEventAttributes.attempt ?? 1) - 1;
        if (retries > 0) add("retry", retries);
      } else if (e.markerRecordedEventAttributes) {
        // Billed once per workflow task that recorded any, however many markers it holds.
        const task = String(e.markerRecordedEventAttributes.workflowTaskCompletedEventId ?? "");
        if (!markerTasks.has(task)) {
          markerTasks.add(task);
          add("markers");
        }
      } else if (e.timerStartedEventAttributes) {
        add("timer");
      } else if (e.workflowExecutionSignaledEventAttributes) {
        // Signal-with-start bills one action for both its start and its signal (the signal lands right after the start).
        if (!(startedId !== undefined && Number(e.eventId) === Number(startedId) + 1 && !events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId)) add("signal");
      } else if (e.signalExternalWorkflowExecutionInitiatedEventAttributes) {
        add("signal");
      } else if (e.workflowExecutionUpdateAcceptedEventAttributes) {
        add("update");
      } else if (e.upsertWorkflowSearchAttributesEventAttributes || e.workflowPropertiesModifiedEventAttributes) {
        add("upsert");
      } else if (e.startChildWorkflowExecutionInitiatedEventAttributes) {
        add("child", 2);
      } else if (e.workflowExecutionContinuedAsNewEventAttributes) {
        add("continue-as-new");
      }
    }
  }
  return count;
}
