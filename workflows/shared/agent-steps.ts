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
import { describeOptions, localModelCallOptions, modelCallOptions, modelSummary, toolCallOptions, toolSummary } from "./activity-options.js";

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
  /** A run's model calls are local activities: they take the whole transcript (a local activity's input is not recorded). */
  localModelCalls(): boolean;
  callTool(input: RunToolCall, activityId?: string): Promise<RunToolCallOutput>;
  callTool(input: ThreadToolCall, activityId?: string): Promise<ThreadToolCallResult>;
}

const { describeAgent } = proxyLocalActivities<AgentStepActivities>(describeOptions);

export function agentSteps(): AgentSteps {
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
  return {
    describe: describe as AgentSteps["describe"],
    callModel(input, activityId, step) {
      return rejecting(() => {
        const description = current();
        const summary = modelSummary(description, step);
        const { callAgentModel } =
          input.host === "run" && description.localModelCalls
            ? proxyLocalActivities<WireStepActivities>({ ...localModelCallOptions(description), summary })
            : proxyActivities<WireStepActivities>({ ...modelCallOptions(description, activityId), summary });
        return callAgentModel(slimModelCall(input, taskOf(undefined))).then(
          (wire) => {
            const answer = fillModelAnswer(wire);
            // The agent changed since the description the call was scheduled with: later steps use the new one.
            if (answer.described) described = answer.described;
            return answer;
          },
          (err: unknown) => {
            throw exhausted(err) ?? err;
          },
        );
      });
    },
    callTool: callTool as AgentSteps["callTool"],
    localModelCalls: () => current().localModelCalls === true,
  };
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
