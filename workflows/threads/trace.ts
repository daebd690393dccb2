import { agentSinks, type StepSink } from "../shared/sinks.js";
import type { CallTrace, StepTraceEnd } from "../../src/core/step-trace.js";
import type { AgentSteps } from "../shared/agent-steps.js";

/**
 * A thread's turns as `invoke_agent` spans: each turn (message to answer) is one, opened
 * and closed by the worker that runs the thread (sinks: no command, never twice on
 * replay) and linked to the turn before it. A thread lives for weeks, so each turn is its
 * own trace; its model and tool calls are its children in the worker that holds the span.
 */
export class TurnTracing {
  #turns = 0;
  #open: string | undefined;
  #last: string | undefined;

  constructor(
    private readonly threadId: string,
    /** This execution's run id: with the count, names its turns. */
    private readonly runId: string,
    private readonly sink: StepSink = agentSinks(),
  ) {}

  begin(agentId: string): void {
    this.#turns += 1;
    const step = `${this.threadId}/${this.runId}/turn-${this.#turns}`;
    this.sink.stepBegan({ agentId, host: "thread", workflowId: this.threadId, step, ...(this.#last ? { follows: { step: this.#last } } : {}) });
    this.#open = step;
  }

  end(outcome: StepTraceEnd["outcome"], errorType?: string): void {
    if (!this.#open) return;
    this.sink.stepEnded({ step: this.#open, outcome, ...(errorType ? { errorType } : {}) });
    this.#last = this.#open;
    this.#open = undefined;
  }

  /** The agent-step layer with each call naming the open turn. */
  steps(steps: AgentSteps): AgentSteps {
    const field = (): { trace?: CallTrace } => (this.#open ? { trace: { step: this.#open } } : {});
    return {
      describe: steps.describe,
      callModel: (input, activityId, step) => steps.callModel({ ...input, ...field() }, activityId, step),
      callTool: ((input: Parameters<AgentSteps["callTool"]>[0], activityId?: string) => steps.callTool({ ...input, ...field() }, activityId)) as AgentSteps["callTool"],
      localModelCalls: steps.localModelCalls,
    };
  }
}
