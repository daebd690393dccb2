import { WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import type { agentRun } from "../../workflows/agent-run.js";
import { AGENT_RUN_VERSION, type AgentRunInput } from "../core/run-state.js";
import { AgentIdKey } from "../core/search-attributes.js";
import { assertPayloadFits, MAX_PRINCIPAL_BYTES, PRINCIPAL_HINT } from "../core/payload-size.js";

/**
 * Starts an agent run under `runId`, or attaches to the run that already has it: the same
 * id while running attaches, the same id after it closed is refused and then attached to.
 */
export async function startAgentRun(client: Client, taskQueue: string, runId: string, input: AgentRunInput, options: { eager?: boolean } = {}): Promise<void> {
  // Refused here, before anything starts: Temporal would terminate the run over its start input.
  assertPayloadFits(input.prompt, "The run's prompt");
  if (input.principal !== undefined) assertPayloadFits(input.principal, "The run's principal", { limitBytes: MAX_PRINCIPAL_BYTES, hint: PRINCIPAL_HINT });
  assertPayloadFits(input, "The run's start input (prompt, principal and options together)");
  try {
    await client.workflow.start<typeof agentRun>("agentRun", {
      workflowId: runId,
      taskQueue,
      args: [{ version: AGENT_RUN_VERSION, ...input }],
      typedSearchAttributes: [{ key: AgentIdKey, value: input.agentId }],
      workflowIdConflictPolicy: "USE_EXISTING",
      workflowIdReusePolicy: "REJECT_DUPLICATE",
      ...(options.eager ? { requestEagerStart: true } : {}),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
