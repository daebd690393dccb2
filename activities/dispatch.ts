import { Context } from "@temporalio/activity";
import { WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import { AgentClient } from "../src/client/agent-client.js";
import { startAgentRun } from "../src/client/start-run.js";
import { DispatchConflictError, DispatchRefusedError } from "../src/core/errors/runs.js";
import type { Principal } from "../src/core/json.js";
import type { AgentResult } from "../src/core/run-state.js";
import type { DeferredAck } from "../src/core/deferral-record.js";
import type { ResolvedDeferralConfig } from "../src/deferral/config.js";
import { dispatchProof, dispatchProofMatches, type DispatchBinding } from "../src/deferral/token.js";
import type { AgentRegistry } from "./agent-registry.js";

/** Where a tool call that dispatches a sub-run stands. */
export interface DispatchingCall {
  /** The run or thread the call belongs to; with the call id it names the sub-run. */
  parentId: string;
  toolCallId: string;
  /** Which use of its id the call is, when the model reused it (absent for the first). */
  occurrence?: number;
  taskQueue: string;
  principal: Principal | undefined;
  restored: boolean;
  deferralRefused?: string;
}

/** The memo key of a dispatched sub-run's proof that the call naming it started it. */
export const DISPATCH_MEMO = "durable-agents.dispatch";

/**
 * `ctx.dispatch()`: a sub-run of `agentId` for the caller's principal, awaited until it
 * settles. An agent that declares `authorize` refuses a restored principal (AI1011) before
 * it is even asked.
 *
 * Named `<parent>/<call>[#occurrence]/<agent>[#n]` (the n-th dispatch of that agent by
 * this call), so a retry of the call finds its run, and a later call that reuses the id
 * gets a run of its own. The name alone proves nothing: anyone allowed to start runs could
 * have started one under it. So the run is started with a proof in its memo, bound to this
 * call's activity (see `dispatchProof`), and never attached to: when the id is taken, the
 * run under it is read only if its memo carries that proof (a retry of this activity);
 * otherwise the call fails with AI1019, and nothing is sent to that run or read from it.
 */
export async function dispatchSubRun(
  deps: { registry: AgentRegistry; client: Client; deferral?: ResolvedDeferralConfig | undefined },
  call: DispatchingCall,
  agentId: string,
  prompt: string,
  nth = 1,
): Promise<AgentResult | DeferredAck> {
  const { agent } = deps.registry.get(agentId);
  if (agent.authorize) {
    if (call.restored) throw new DispatchRefusedError({ agentId, restored: true, reason: "a restored principal is data, not a credential" });
    const verdict = await agent.authorize({ principal: call.principal, restored: false });
    if (verdict !== true) throw new DispatchRefusedError({ agentId, restored: false, reason: `authorize returned ${JSON.stringify(verdict)}` });
  }
  const occurrence = call.occurrence !== undefined && call.occurrence > 1 ? `#${call.occurrence}` : "";
  const runId = `${call.parentId}/${call.toolCallId}${occurrence}/${agentId}${nth > 1 ? `#${nth}` : ""}`;
  const info = Context.current().info;
  const binding: DispatchBinding = {
    namespace: info.namespace,
    subRunId: runId,
    parentRunId: info.workflowExecution?.runId ?? "",
    activityId: info.activityId,
  };
  const input = {
    agentId,
    prompt,
    ...(call.principal ? { principal: call.principal } : {}),
    ...(call.restored ? { restored: true } : {}),
    ...(call.deferralRefused ? { deferralRefused: call.deferralRefused } : {}),
  };
  try {
    await startAgentRun(deps.client, call.taskQueue, runId, input, { memo: { [DISPATCH_MEMO]: dispatchProof(deps.deferral?.secret, binding) }, onConflict: "fail" });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    // A describe, which Temporal does not bill; only a retry or a conflict gets here.
    const { memo } = await deps.client.workflow.getHandle(runId).describe();
    if (!dispatchProofMatches(deps.deferral?.secrets, binding, memo?.[DISPATCH_MEMO])) throw new DispatchConflictError({ agentId, subRunId: runId });
  }
  return new AgentClient({ client: deps.client, taskQueue: call.taskQueue }).handle(runId).settled();
}
