import type { Client } from "@temporalio/client";
import { AgentClient } from "../src/client/agent-client.js";
import { startAgentRun } from "../src/client/start-run.js";
import { DispatchRefusedError } from "../src/core/errors/dispatch-refused.js";
import type { Principal } from "../src/core/json.js";
import type { AgentResult } from "../src/core/run-state.js";
import type { DeferredAck } from "../src/core/deferral-record.js";
import type { AgentRegistry } from "./agent-registry.js";

/** Where a tool call that dispatches a sub-run stands. */
export interface DispatchingCall {
  /** The run or thread the call belongs to; with the call id it names the sub-run. */
  parentId: string;
  toolCallId: string;
  taskQueue: string;
  principal: Principal | undefined;
  restored: boolean;
  deferralRefused?: string;
}

/**
 * `ctx.dispatch()`: a sub-run of `agentId` for the caller's principal, named after the
 * call so a retried call attaches to the same run, awaited until it settles. An agent that
 * declares `authorize` refuses a restored principal (AI1011) before it is even asked.
 */
export async function dispatchSubRun(
  deps: { registry: AgentRegistry; client: Client },
  call: DispatchingCall,
  agentId: string,
  prompt: string,
): Promise<AgentResult | DeferredAck> {
  const { agent } = deps.registry.get(agentId);
  if (agent.authorize) {
    if (call.restored) throw new DispatchRefusedError({ agentId, restored: true, reason: "a restored principal is data, not a credential" });
    const verdict = await agent.authorize({ principal: call.principal, restored: false });
    if (verdict !== true) throw new DispatchRefusedError({ agentId, restored: false, reason: `authorize returned ${JSON.stringify(verdict)}` });
  }
  const runId = `${call.parentId}/${call.toolCallId}/${agentId}`;
  await startAgentRun(deps.client, call.taskQueue, runId, {
    agentId,
    prompt,
    ...(call.principal ? { principal: call.principal } : {}),
    ...(call.restored ? { restored: true } : {}),
    ...(call.deferralRefused ? { deferralRefused: call.deferralRefused } : {}),
  });
  return new AgentClient({ client: deps.client, taskQueue: call.taskQueue }).handle(runId).settled();
}
