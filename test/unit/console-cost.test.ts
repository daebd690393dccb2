import { describe, expect, it } from "vitest";
import { countActions } from "../../src/http/console/cost.js";

/** Events as the history API gives them; ids are Longs there, numbers here (the counter reads them with `Number`). */
type Executions = Parameters<typeof countActions>[0];
let id = 0;
const ev = (attrs: Record<string, unknown>) => ({ eventId: ++id, ...attrs });
const started = (continued?: string) => ev({ workflowExecutionStartedEventAttributes: continued ? { continuedExecutionRunId: continued } : {} });
const activity = (name: string) => ev({ activityTaskScheduledEventAttributes: { activityType: { name } } });
const marker = (task: number) => ev({ markerRecordedEventAttributes: { workflowTaskCompletedEventId: task } });

describe("billed actions counted from a history", () => {
  it("counts what Temporal bills: the start, activities and retries, one per task with markers, timers, updates, upserts, children (2)", () => {
    id = 0;
    const events = [
      started(),
      marker(3),
      marker(3), // a second local activity in the same task: the same batch
      activity("prepareAgent"),
      activity("callAgentModel"),
      ev({ activityTaskStartedEventAttributes: { attempt: 3 } }), // two retries
      activity("callAgentTool"),
      ev({ upsertWorkflowSearchAttributesEventAttributes: {} }),
      ev({ workflowPropertiesModifiedEventAttributes: {} }),
      ev({ timerStartedEventAttributes: {} }),
      ev({ workflowExecutionUpdateAcceptedEventAttributes: {} }),
      marker(12),
      activity("callAgentModel"),
      ev({ startChildWorkflowExecutionInitiatedEventAttributes: {} }),
      ev({ workflowExecutionCompletedEventAttributes: {} }),
    ];
    const count = countActions([events] as unknown as Executions);
    expect(count.byKind).toEqual({ start: 1, markers: 2, activity: 4, retry: 2, upsert: 2, timer: 1, update: 1, child: 2 });
    expect(count.total).toBe(15);
    // The start and preparation count in the first turn; each model call begins one.
    expect(count.before).toBe(3);
    expect(count.turns.map((t) => t.actions)).toEqual([3 + 1 + 2 + 1 + 2 + 1 + 1 + 1, 1 + 2]);
  });

  it("bills a signal-with-start once, a later signal once more, and a continued execution's start as its continue-as-new", () => {
    id = 0;
    const first = [started(), ev({ workflowExecutionSignaledEventAttributes: {} }), activity("callAgentModel"), ev({ workflowExecutionSignaledEventAttributes: {} }), ev({ workflowExecutionContinuedAsNewEventAttributes: {} })];
    id = 0;
    const second = [started("run-1"), ev({ workflowExecutionSignaledEventAttributes: {} }), activity("callAgentModel")];
    const count = countActions([first, second] as unknown as Executions);
    expect(count.byKind).toEqual({ start: 1, signal: 2, activity: 2, "continue-as-new": 1 });
    expect(count.total).toBe(6);
    expect(count.turns.map((t) => t.actions)).toEqual([5, 1]);
  });

  it("counts nothing for an empty history", () => {
    expect(countActions([[]])).toEqual({ total: 0, byKind: {}, turns: [], before: 0 });
  });
});
