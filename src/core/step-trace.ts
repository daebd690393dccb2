/**
 * A run's trace context as its workflow keeps it. Workflow code makes no OpenTelemetry
 * calls: the worker that runs the workflow opens and closes each step's `invoke_agent`
 * span (the first step's through the `describeAgent` local activity, whose answer puts the
 * run's `traceparent` in history; later ones through a sink, which costs no round trip).
 * The workflow keeps the run's `traceparent` and counts its steps (carried across
 * continue-as-new), so a step that runs days later, on another worker, joins the same trace.
 */

/** The run's trace: its first step's W3C `traceparent`, and how many steps it has begun. */
export interface RunTrace {
  /** The run's first step: later steps are its children (and the parent of last resort of their calls). */
  run: string;
  /** Steps begun so far, over all executions; the last one is open when `open`. */
  steps: number;
  open?: boolean;
}

/** What a model or tool call's input carries when its run is traced. */
export interface CallTrace {
  /** The run's `traceparent`: the call's parent when its step's span is not in this worker (a thread turn has none). */
  parent?: string;
  /** The key of the step the call belongs to: its span, when this worker holds it, is the parent. */
  step: string;
}

/** Why a step begins, other than the run starting: the event recorded on it. */
export interface StepCause {
  event: "resumed" | "expired" | "denied" | "continued";
  deferralId?: string;
  /** Workflow time (ISO) of the transition. */
  at: string;
}

/** Names a run's `n`th step: unique across its executions (`firstRunId`: the first execution's run id). */
export function runStepKey(workflowId: string, firstRunId: string, n: number): string {
  return `${workflowId}/${firstRunId}/${n}`;
}

/** Opens a step's `invoke_agent` span on the worker that runs the workflow. */
export interface StepTraceRequest {
  host: "run" | "thread";
  workflowId: string;
  /** Names the step (unique in the run); its calls and its end refer to it. */
  step: string;
  /** The span the step is a child of; without it, whatever span is current on the worker (or a new trace). */
  parent?: string;
  /** The step this one follows across a park or a continue-as-new: its key, and its `traceparent` when history holds it. */
  follows?: { step: string; traceparent?: string };
  cause?: StepCause;
}

/** How a step ended: the worker closes its span (a sink, so never twice on replay). */
export interface StepTraceEnd {
  step: string;
  outcome: "completed" | "failed" | "cancelled" | "deferred" | "continued";
  /** The deferral the run parked on. */
  deferralId?: string;
  /** The failure's type (an error code) when the step failed. */
  errorType?: string;
  /** Model calls the run has made so far. */
  turnsUsed?: number;
}
