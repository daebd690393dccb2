/**
 * How both hosts (runs and threads) schedule their steps: one place for timeouts,
 * retries and cancellation, so the two cannot drift apart again. Options never break
 * replay; activity names and the order of commands do (see agent-steps.ts).
 */
import { ActivityCancellationType, type ActivityOptions, type LocalActivityOptions } from "@temporalio/workflow";
import type { AgentDescription } from "../../src/core/contracts.js";

// No list of non-retryable failure types: a typed failure says so itself (the activities
// raise them non-retryable), and the list would cost about 400 bytes of history per step.

/** A worker that died or a call that timed out is retried after 1 s, 2 s, 4 s … at most 1 min apart. */
const BACKOFF = { initialInterval: "1s", backoffCoefficient: 2, maximumInterval: "1m" } as const;

/** A model call's retries, as an activity or a local activity. */
const modelRetry = ({ modelMaxAttempts }: Pick<AgentDescription, "modelMaxAttempts">) => ({ ...BACKOFF, maximumAttempts: modelMaxAttempts });

/**
 * Describing the agent reads the worker's memory, so it is a local activity; the few
 * retries cover a worker that was busy or restarting.
 */
export const describeOptions: LocalActivityOptions = {
  startToCloseTimeout: "30s",
  retry: { maximumAttempts: 5 },
};

/**
 * A model call: bounded attempts for what a retry may fix (429 and 5xx honour the
 * provider's retry-after; the activity turns the last failure into AI1003), none for
 * what it cannot (400, 401, 403, 404, context overflow arrive non-retryable).
 */
export function modelCallOptions(described: Pick<AgentDescription, "timeouts" | "modelMaxAttempts">, activityId?: string): ActivityOptions {
  return {
    ...stepOptions(described),
    ...(activityId ? { activityId } : {}),
    retry: modelRetry(described),
  };
}

/**
 * A run's model call as a local activity (`modelCalls: "local"`): the same timeout and
 * bounded attempts; retries a minute apart at most stay inside the workflow task.
 */
export function localModelCallOptions(described: Pick<AgentDescription, "timeouts" | "modelMaxAttempts">): LocalActivityOptions {
  return {
    startToCloseTimeout: described.timeouts.startToCloseMs,
    retry: modelRetry(described),
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
}

/**
 * Attempts a tool call gets beyond its tool's own `retry.maxAttempts` for what is not its
 * handler's fault: a worker that died or a call that timed out. Bounded, so a tool that
 * always hangs ends (a run tells the model, a thread fails the turn) instead of spinning.
 */
export const TOOL_SPARE_ATTEMPTS = 4;

/**
 * A tool call, on its tool's own queue when it has one. The activity decides about a
 * failing handler itself (it knows the tool's `retry`, and the attempts count toward this
 * policy's); the spare attempts cover a worker that died or a call that timed out.
 */
export function toolCallOptions(
  described: Pick<AgentDescription, "timeouts">,
  tool: { queue?: string; maxAttempts?: number } | undefined,
  activityId?: string,
): ActivityOptions {
  return {
    ...stepOptions(described),
    ...(activityId ? { activityId } : {}),
    ...(tool?.queue ? { taskQueue: tool.queue } : {}),
    retry: { ...BACKOFF, maximumAttempts: (tool?.maxAttempts ?? 1) + TOOL_SPARE_ATTEMPTS },
  };
}

function stepOptions({ timeouts }: Pick<AgentDescription, "timeouts">): ActivityOptions {
  return {
    startToCloseTimeout: timeouts.startToCloseMs,
    heartbeatTimeout: timeouts.heartbeatMs,
    // A cancelled run or a stopped turn learns how its calls really ended (heartbeats
    // bring the cancel within about a second): a run reports AI1005 with every finished
    // call counted, a thread's stopped model call has ended before its next one starts,
    // and a tool that finished anyway keeps its result, so it is not run again.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
}

/**
 * Telling people of an approval request: a few attempts, a minute apart at most. It never
 * holds up the run, which is parked meanwhile; a notification that keeps failing is given up
 * (the request stays in the inbox).
 */
export function notifyOptions(described: Pick<AgentDescription, "timeouts">): ActivityOptions {
  // Not dispatched eagerly: taken in the response to the workflow task that parks the run,
  // it ran at once on that worker and the caller of run() saw the park about 13 ms later
  // (bench latency, gated tool). A person is notified a poll later instead, which nobody notices.
  return { startToCloseTimeout: described.timeouts.startToCloseMs, retry: { ...BACKOFF, maximumAttempts: 5 }, summary: "notify approvers", allowEagerDispatch: false };
}

export { modelSummary } from "../../src/core/step-summary.js";

/**
 * What the Temporal UI shows for a tool call: `tool lookupInvoice`, and why it runs when
 * it is not the model's call itself (an async tool's start, an agent's onExpired or
 * onDenied). A deferral is known only after the call ends, and a summary is fixed when
 * the call is scheduled: the run's current details say it is waiting instead.
 */
export function toolSummary(call: { toolCall: { function: { name: string } }; start?: boolean; expired?: unknown; denied?: unknown }): string {
  const why = call.expired ? " · onExpired" : call.denied ? " · onDenied" : call.start ? " · async start" : "";
  return `tool ${oneLine(call.toolCall.function.name, 80)}${why}`;
}

/** Text for a single-line UI field: whitespace collapsed, cut at `max` characters. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
