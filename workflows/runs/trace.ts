import { workflowInfo } from "@temporalio/workflow";
import { agentSinks, type StepSink } from "../shared/sinks.js";
import { runStepKey, type CallTrace, type RunTrace, type StepCause, type StepTraceEnd, type StepTraceRequest } from "../../src/core/step-trace.js";

/**
 * A run's trace context (see `RunTrace`). A step is what the run does from its start, a
 * resume (or expiry, or denial) or a continue-as-new until it completes, fails, parks or
 * continues as new; the worker running the workflow opens and closes its `invoke_agent`
 * span. A run whose first step no SDK recorded is not traced at all: no sink call, no field.
 */
export class RunTracing {
  #trace: RunTrace | undefined;

  constructor(
    private readonly workflowId: string,
    /** Names the run's steps across its executions (the first execution's run id). */
    private readonly firstRunId: string,
    carried: RunTrace | undefined,
    private readonly sink: StepSink = agentSinks(),
  ) {
    this.#trace = carried ? { run: carried.run, steps: carried.steps } : undefined;
  }

  static ofWorkflow(carried: RunTrace | undefined): RunTracing {
    const info = workflowInfo();
    return new RunTracing(info.workflowId, info.firstExecutionRunId, carried);
  }

  /** What the execution's first `describeAgent` carries: the step it opens (after the one a continued run handed on). */
  firstStep(at: string): StepTraceRequest {
    const trace = this.#trace;
    if (!trace) return { host: "run", workflowId: this.workflowId, step: this.#key(1) };
    return { ...this.#following(trace), cause: { event: "continued", at } };
  }

  /** `describeAgent` opened the execution's first step (or no SDK records: the run stays untraced). */
  began(traceparent: string | undefined): void {
    if (traceparent === undefined) return;
    const trace = this.#trace;
    this.#trace = trace ? { run: trace.run, steps: trace.steps + 1, open: true } : { run: traceparent, steps: 1, open: true };
  }

  /** What a model or tool call's input carries: the step it belongs to. */
  field(): { trace?: CallTrace } {
    const trace = this.#trace;
    return trace?.open ? { trace: { parent: trace.run, step: this.#key(trace.steps) } } : {};
  }

  /** The step ends: the worker closes its span; the next step links to it. */
  end(outcome: StepTraceEnd["outcome"], details: Omit<StepTraceEnd, "step" | "outcome"> = {}): void {
    const trace = this.#trace;
    if (!trace?.open) return;
    this.sink.stepEnded({ step: this.#key(trace.steps), outcome, ...details });
    this.#trace = { run: trace.run, steps: trace.steps };
  }

  /** What continue-as-new carries (the open step ends just before). */
  handOn(): RunTrace | undefined {
    const trace = this.#trace;
    return trace ? { run: trace.run, steps: trace.steps } : undefined;
  }

  /** A parked run goes on (resumed, expired, denied): a new step, a child of the run's first, linked to the deferring one. */
  next(agentId: string, cause: StepCause): void {
    const trace = this.#trace;
    if (!trace || trace.open) return;
    this.sink.stepBegan({ agentId, ...this.#following(trace), cause });
    this.#trace = { run: trace.run, steps: trace.steps + 1, open: true };
  }

  #following(trace: RunTrace): StepTraceRequest {
    return {
      host: "run",
      workflowId: this.workflowId,
      step: this.#key(trace.steps + 1),
      parent: trace.run,
      // History holds only the first step's traceparent; a later one the worker remembers by key.
      follows: { step: this.#key(trace.steps), ...(trace.steps === 1 ? { traceparent: trace.run } : {}) },
    };
  }

  #key(n: number): string {
    return runStepKey(this.workflowId, this.firstRunId, n);
  }
}
