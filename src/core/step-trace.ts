/**
 * A run's trace context as its workflow keeps it. Workflow code makes no OpenTelemetry
 * calls: the worker starts and ends the spans, and the workflow only holds their W3C
 * `traceparent` strings (recorded in history, carried across continue-as-new), so a step
 * that runs days later, on another worker, joins the same trace.
 */

/** The run's `traceparent`s: its trace, the step open now, the step that ended last. */
export interface RunTrace {
  /** The run's first step: later steps are its children, so the whole run is one trace. */
  run: string;
  /** The step open now: its model and tool calls are its children. */
  step?: string;
  /** The step that ended when the run parked (or continued as new): the next step links to it. */
  previous?: string;
}

/** Why a step begins, other than the run starting: the event recorded on its span. */
export interface StepCause {
  event: "resumed" | "expired" | "denied" | "continued";
  deferralId?: string;
  /** Workflow time (ISO) of the transition. */
  at: string;
}

/** Asks the worker to open an `invoke_agent` span for a step (answered with its `traceparent`, or nothing when no SDK records). */
export interface StepTraceRequest {
  host: "run" | "thread";
  workflowId: string;
  /** The span the step is a child of; without it, whatever span is current on the worker (or a new trace). */
  parent?: string;
  /** The step this one follows across a park or a continue-as-new. */
  link?: string;
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
