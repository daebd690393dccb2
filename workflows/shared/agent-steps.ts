import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from "@temporalio/workflow";
import type {
  AgentDescription,
  AgentModelCallInput,
  AgentStepActivities,
  AgentToolCallOutput,
  DescribeAgentInput,
  DescribeAgentOutput,
  ModelCallOutput,
  RunToolCall,
  RunToolCallOutput,
  ThreadToolCall,
  ThreadToolCallResult,
} from "../../src/core/contracts.js";
import { DEFAULT_MODEL_CALLS } from "../../src/core/contracts.js";
import type { FirstCallPlan } from "../../src/core/run-state.js";
import { isErrorCode } from "../../src/core/errors/codes.js";
import { ModelCallFailedError } from "../../src/core/errors/runs.js";
import { ownEntry } from "../../src/core/own.js";
import {
  fillModelAnswer,
  fillToolAnswer,
  slimModelCall,
  slimToolCall,
  type StepTask,
  type WireStepActivities,
} from "../../src/core/step-wire.js";
import { describeOptions, localModelCallOptions, modelCallOptions, modelSummary, oneLine, toolCallOptions, toolSummary } from "./activity-options.js";

/**
 * The agent-step layer as a run or a thread sees it: describe the agent, call the model,
 * call a tool, under one set of options. It holds the agent's latest description, which
 * says how each call is scheduled (timeouts, attempts, a tool's own queue).
 */
export interface AgentSteps {
  describe(input: { agentId: string; knownHash?: undefined }): Promise<AgentDescription>;
  describe(input: DescribeAgentInput): Promise<DescribeAgentOutput>;
  /** A failure that outlasted the call's attempts (a timeout too) arrives as AI1003. `step` numbers it in the Temporal UI's summary. */
  callModel(input: AgentModelCallInput, activityId?: string, step?: number): Promise<ModelCallOutput>;
  /** A run's model calls are local activities: they take the whole transcript (a local activity's input is not recorded). False before anything described the agent (a new run's first call carries its whole transcript either way). */
  localModelCalls(): boolean;
  callTool(input: RunToolCall, activityId?: string): Promise<RunToolCallOutput>;
  callTool(input: ThreadToolCall, activityId?: string): Promise<ThreadToolCallResult>;
}

const { describeAgent } = proxyLocalActivities<AgentStepActivities>(describeOptions);

/**
 * `firstCall`: how a run's describing model call is scheduled (its starting client's view of
 * the agent, else `DEFAULT_MODEL_CALLS`); a plan that is not plainly numbers is not used.
 */
export function agentSteps(firstCall?: FirstCallPlan): AgentSteps {
  const plan = planOf(firstCall);
  let described: AgentDescription | undefined;
  const current = (): AgentDescription => {
    if (!described) throw new Error("the agent must be described before its steps run");
    return described;
  };
  // One implementation behind each overload: the activity answers a run's tool call with
  // a run's outputs and a thread's with a thread's, and without a known hash in full.
  const describe = async (input: DescribeAgentInput): Promise<DescribeAgentOutput> => {
    const answer = await describeAgent(input);
    if (!("unchanged" in answer)) described = answer;
    return answer;
  };
  // Steps chain their promises rather than await them: Temporal's promise hook captures and
  // formats a stack trace for every promise a workflow makes, a cost paid on every step.
  const callTool = (input: RunToolCall | ThreadToolCall, activityId?: string): Promise<AgentToolCallOutput> =>
    rejecting(() => {
      const tool = ownEntry(current().tools, input.toolCall.function.name);
      const options = toolCallOptions(current(), tool, activityId);
      const call = proxyActivities<WireStepActivities>({ ...options, summary: toolSummary(input) }).callAgentTool;
      return call(slimToolCall(input, taskOf(options.taskQueue))).then(fillToolAnswer);
    });
  const steps: AgentSteps = {
    describe: describe as AgentSteps["describe"],
    callModel(input, activityId, step) {
      return rejecting(() => {
        // A describing call goes out before anything described the agent: as the defaults schedule model calls.
        const description = input.describe ? plan : current();
        const summary = modelSummary(input.describe ? plan : current(), step);
        const { callAgentModel } =
          input.host === "run" && description.localModelCalls
            ? proxyLocalActivities<WireStepActivities>({ ...localModelCallOptions(description), summary })
            : proxyActivities<WireStepActivities>({ ...modelCallOptions(description, activityId), summary });
        return callAgentModel(slimModelCall(input, taskOf(undefined))).then(
          (wire): ModelCallOutput | Promise<ModelCallOutput> => {
            const answer = fillModelAnswer(wire);
            // The agent changed since the description the call was scheduled with (or had none): later steps use the new one.
            if (answer.described) described = answer.described;
            if (!answer.unasked || !input.describe || !answer.described) return answer;
            // The agent's model calls are scheduled otherwise: asked again as they are, in the step span the first call opened.
            const { describe: _describe, ...again } = input;
            const trace = answer.trace !== undefined && input.describe.trace ? { trace: { parent: answer.trace, step: input.describe.trace.step } } : {};
            const first = { described: answer.described, ...(answer.trace !== undefined ? { trace: answer.trace } : {}) };
            return steps.callModel({ ...again, ...trace }, activityId, step).then((asked) => ({ ...asked, ...first }));
          },
          (err: unknown) => {
            throw exhausted(err) ?? err;
          },
        );
      });
    },
    callTool: callTool as AgentSteps["callTool"],
    localModelCalls: () => described?.localModelCalls === true,
  };
  return steps;
}

/** What a describing call is scheduled with: the plan's timeouts and locality, the default attempts. */
function planOf(plan: FirstCallPlan | undefined): Pick<AgentDescription, "model" | "timeouts" | "modelMaxAttempts" | "localModelCalls"> {
  const ms = (n: unknown) => typeof n === "number" && Number.isSafeInteger(n) && n > 0;
  const timeouts = plan?.timeouts && ms(plan.timeouts.startToCloseMs) && ms(plan.timeouts.heartbeatMs) ? { startToCloseMs: plan.timeouts.startToCloseMs, heartbeatMs: plan.timeouts.heartbeatMs } : DEFAULT_MODEL_CALLS.timeouts;
  // The model only names the call in the Temporal UI: one line, as the agent's own name would be cut.
  const model = typeof plan?.model === "string" ? { model: oneLine(plan.model, 80) } : {};
  return { ...model, timeouts, modelMaxAttempts: DEFAULT_MODEL_CALLS.modelMaxAttempts, ...(plan?.local === true ? { localModelCalls: true as const } : {}) };
}

/** `start()`, with a synchronous throw turned into a rejection, as an async function would. */
function rejecting<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (err) {
    return Promise.reject(err);
  }
}

/** The task an activity scheduled on `queue` (the workflow's own by default) runs in. */
function taskOf(queue: string | undefined): StepTask {
  const { workflowId, runId, taskQueue } = workflowInfo();
  return { workflowId, runId, taskQueue: queue ?? taskQueue };
}

/**
 * AI1003 for a model call that gave up without a typed failure (its last attempt timed
 * out, or its worker shut down): the activity itself reports AI1003 for what the
 * provider kept answering.
 */
function exhausted(err: unknown): ApplicationFailure | undefined {
  if (!(err instanceof ActivityFailure) || isCancellation(err)) return undefined;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && isErrorCode(cause.type)) return undefined;
  return new ModelCallFailedError({ detail: `${cause?.message ?? err.message} (the call's attempts are spent)` }).toFailure();
}

/**
 * What the model is told about a tool call that ended without an answer once its bounded
 * attempts ran out (its worker kept dying, or it kept timing out): undefined for a typed
 * SDK failure or a cancellation, which still end the run as they say.
 */
export function toolGaveUp(err: unknown, toolName: string): string | undefined {
  if (!(err instanceof ActivityFailure) || isCancellation(err)) return undefined;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && isErrorCode(cause.type)) return undefined;
  return `Error: "${toolName}" did not complete: ${cause?.message ?? err.message} (its attempts are spent). It may have had effects before it stopped; check before calling it again.`;
}
