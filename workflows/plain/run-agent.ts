import { executeChild, uuid4, workflowInfo } from "@temporalio/workflow";
import type { Principal } from "../../src/core/json.js";
import { inFanOut } from "./fan-out.js";
import { AGENT_RUN_VERSION, type AgentResult, type AgentRunInput } from "../../src/core/run-state.js";
import { AgentIdKey } from "../../src/core/search-attributes.js";
import { childStreamMemo } from "../../src/core/stream-key.js";

export interface RunAgentOptions {
  prompt: string;
  principal?: Principal;
  /** Child workflow id; derived from the parent's id when absent. */
  runId?: string;
  /** Task queue of the agent's workers; the parent's when absent. */
  taskQueue?: string;
}

/**
 * Dispatches an agent from a plain workflow as a child run and waits for its result. From
 * inside a `fanOut()` branch, the child may not defer: a tool that tries fails with RC5051.
 */
export function runAgent(agentId: string, options: RunAgentOptions): Promise<AgentResult> {
  const input: AgentRunInput = {
    version: AGENT_RUN_VERSION,
    agentId,
    prompt: options.prompt,
    ...(options.principal ? { principal: options.principal } : {}),
    ...(inFanOut() ? { deferralRefused: `a fanOut() branch of workflow "${workflowInfo().workflowId}"` } : {}),
  };
  const workflowId = options.runId ?? `${workflowInfo().workflowId}/${agentId}-${uuid4()}`;
  // Typed by the run's contract: a plain workflow's code never imports the agent workflow itself.
  return executeChild<(input: AgentRunInput) => Promise<AgentResult>>("agentRun", {
    workflowId,
    args: [input],
    ...childStreamMemo(workflowInfo().memo, workflowId),
    typedSearchAttributes: [{ key: AgentIdKey, value: agentId }],
    ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
  });
}
