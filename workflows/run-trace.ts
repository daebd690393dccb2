import { proxyLocalActivities, proxySinks } from "@temporalio/workflow";
import type { AgentStepActivities } from "../src/core/contracts.js";
import type { DurableAgentsSinks } from "../src/core/sinks.js";
import type { RunTrace, StepCause, StepTraceEnd, StepTraceRequest } from "../src/core/step-trace.js";
import { describeOptions } from "./activity-options.js";

const { traceAgentStep } = proxyLocalActivities<AgentStepActivities>(describeOptions);

/**
 * A run's trace context (see `RunTrace`). A step is what the run does from its start, a
 * resume (or expiry, or denial) or a continue-as-new until it completes, fails or parks;
 * the worker opens its `invoke_agent` span and this class only keeps the `traceparent`s.
 * A run whose first step no SDK recorded is not traced at all: no command, no sink call.
 */
export class RunTracing {
  #trace: RunTrace | undefined;

  constructor(
    private readonly workflowId: string,
    carried: RunTrace | undefined,
    private readonly sink: Pick<DurableAgentsSinks["durableAgents"], "stepEnded"> = proxySinks<DurableAgentsSinks>().durableAgents,
  ) {
    this.#trace = carried;
  }

  /** What the run's first `describeAgent` carries: a continued run's step follows the one that handed on. */
  firstStep(at: string): StepTraceRequest {
    const trace = this.#trace;
    if (!trace) return { host: "run", workflowId: this.workflowId };
    return {
      host: "run",
      workflowId: this.workflowId,
      parent: trace.run,
      ...(trace.previous ? { link: trace.previous } : {}),
      cause: { event: "continued", at },
    };
  }

  /** The worker opened a step span (or did not: no SDK, and the run stays untraced). */
  began(traceparent: string | undefined): void {
    if (traceparent === undefined) return;
    this.#trace = { run: this.#trace?.run ?? traceparent, step: traceparent };
  }

  /** What a model or tool call's input carries: the step it belongs to. */
  field(): { trace?: string } {
    const step = this.#trace?.step;
    return step ? { trace: step } : {};
  }

  /** The step ends: its span is closed worker-side; the next step links to it. */
  end(outcome: StepTraceEnd["outcome"], details: Omit<StepTraceEnd, "step" | "outcome"> = {}): void {
    const trace = this.#trace;
    if (!trace?.step) return;
    this.sink.stepEnded({ step: trace.step, outcome, ...details });
    this.#trace = { run: trace.run, previous: trace.step };
  }

  /** What continue-as-new carries, as if the open step had ended. */
  handOn(): RunTrace | undefined {
    const trace = this.#trace;
    if (!trace) return undefined;
    const previous = trace.step ?? trace.previous;
    return { run: trace.run, ...(previous ? { previous } : {}) };
  }

  /**
   * A parked run goes on (resumed, expired, denied): a new step, the run's first step its
   * parent and the deferring one its link. Only traced runs schedule this local activity;
   * tracing is best effort, so its failure never fails the run.
   */
  async next(agentId: string, cause: StepCause): Promise<void> {
    const trace = this.#trace;
    if (!trace || trace.step) return;
    try {
      this.began(await traceAgentStep({ agentId, host: "run", workflowId: this.workflowId, parent: trace.run, ...(trace.previous ? { link: trace.previous } : {}), cause }));
    } catch {
      // Left untraced from here; the run itself goes on.
    }
  }
}
