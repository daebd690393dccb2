import { Context } from "@temporalio/activity";
import type {
  AgentActivities,
  AgentDescription,
  AgentStepActivities,
  ModelCallInput,
  PreparedAgent,
  ToolCallInput,
  ToolCallOutput,
  ToolResult,
} from "../src/core/contracts.js";
import type { AsyncToolStartOutput, ThreadActivities, ThreadModelCallInput, ThreadToolCallInput } from "../src/core/thread-contracts.js";

/*
 * The activities runs started before version 3 and threads created before version 1
 * schedule, under the names their histories hold. Each is a thin adapter over the
 * agent-step layer, so those runs and threads replay, and finish, as they started.
 */

type LegacyToolActivities = Pick<AgentActivities, "callTool"> & Pick<ThreadActivities, "threadCallTool" | "threadStartAsyncTool">;

export function legacyStepActivities(steps: AgentStepActivities): AgentActivities & Omit<ThreadActivities, "threadStatusChanged"> {
  return {
    async prepareAgent({ agentId }): Promise<PreparedAgent> {
      const described = (await steps.describeAgent({ agentId })) as AgentDescription;
      const toolQueues = Object.fromEntries(Object.entries(described.tools).flatMap(([name, tool]) => (tool.queue ? [[name, tool.queue]] : [])));
      return {
        definitionHash: described.definitionHash,
        maxTurns: described.maxTurns,
        hasOnExpired: described.hasOnExpired,
        overheadTokens: described.overheadTokens,
        ...(Object.keys(toolQueues).length > 0 ? { toolQueues } : {}),
        ...(described.contextWindow ? { contextWindow: described.contextWindow } : {}),
        timeouts: described.timeouts,
      };
    },
    callModel: (input: ModelCallInput) =>
      steps.callAgentModel({
        host: "run",
        agentId: input.agentId,
        workflowId: input.workflowId,
        transcriptId: input.runId,
        epoch: input.epoch,
        baseLength: input.baseLength,
        delta: input.delta,
        ...(input.principal ? { principal: input.principal } : {}),
        ...(input.restored !== undefined ? { restored: input.restored } : {}),
        ...(input.definitionCheck ? { definitionCheck: input.definitionCheck } : {}),
      }),
    // A description is a superset of what these threads read from their preparation.
    prepareThread: (input) => steps.describeAgent(input),
    threadCallModel: (input: ThreadModelCallInput) =>
      steps.callAgentModel({
        host: "thread",
        agentId: input.agentId,
        workflowId: input.threadId,
        transcriptId: input.firstRunId,
        epoch: 0,
        baseLength: input.baseLength,
        ...(input.baseTail !== undefined ? { baseTail: input.baseTail } : {}),
        delta: input.delta,
        ...(input.principal ? { principal: input.principal } : {}),
        ...(input.stream ? { streamId: input.streamId } : {}),
      }),
    ...legacyToolActivities(steps.callAgentTool),
  };
}

export function legacyToolActivities(callAgentTool: AgentStepActivities["callAgentTool"]): LegacyToolActivities {
  return {
    callTool: (input: ToolCallInput) =>
      callAgentTool({ ...input, host: "run", taskQueue: input.taskQueue ?? Context.current().info.taskQueue }) as Promise<ToolCallOutput>,
    threadCallTool: ({ threadId, ...call }: ThreadToolCallInput) =>
      callAgentTool({ ...call, host: "thread", workflowId: threadId }) as Promise<ToolResult>,
    async threadStartAsyncTool({ threadId, ...call }: ThreadToolCallInput): Promise<AsyncToolStartOutput> {
      const out = await callAgentTool({ ...call, host: "thread", workflowId: threadId, start: true });
      return "started" in out ? out : { started: false, content: (out as ToolResult).content };
    },
  };
}
