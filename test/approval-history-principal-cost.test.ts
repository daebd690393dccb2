/**
 * What `approvals.history({ decidedBy | actingFor, since })` bills, by the server's own
 * `action` counter on a server of this file's own: the visibility listing nothing, one query
 * per run or thread it reads; with `actingFor`, a run whose memo row acts for someone else is
 * not read (0); a caller the hook refuses every run costs nothing.
 */
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool } from "../src/index.js";
import type { AgentStack } from "./agent-stack.js";
import { countingStack, type ActionCounter } from "./counting-stack.js";
import { SECRET, uid } from "./harness.js";

let stack: AgentStack;
let counter: ActionCounter;
countingStack((s, c) => ((stack = s), (counter = c)));

const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send money",
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  handler: ({ amount }) => `sent ${amount}`,
});
const agent = defineAgent({ id: "audit-cost", model: "gpt-4.1-mini", system: "You pay.", tools: [sendPayout], maxTurns: 4 });

describe("what reading the audit trail by principal bills", () => {
  it("0 for the listing, 1 query per run read; runs acting for someone else skipped by their memo; 0 for a caller refused every run", async () => {
    const { agents } = await stack.worker([agent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize: (req) => req.principal?.id !== "nobody" } });
    const since = new Date();
    for (const [customer, approver] of [["customer-42", "fiona"], ["customer-7", "fiona"], ["customer-42", "gus"]]) {
      const runId = uid("audit-cost");
      stack.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }] }, { text: "done" }]);
      const ack = await agents.run(agent, { prompt: runId, runId, principal: { id: customer! } });
      const approvalId = (ack as { deferralId: string }).deferralId;
      const [call] = (await agents.approvals.get({ approvalId })).calls;
      await agents.approvals.decide({ approvalId, principal: { id: approver! }, decisions: { [call!.toolCallId]: { approved: true } } });
    }
    await vi.waitFor(async () => expect((await agents.approvals.history({ actingFor: "customer-42", since })).requests).toHaveLength(2), { timeout: 20_000, interval: 100 });

    const [byApprover, byCustomer, refused] = await counter.measureSteps([
      () => agents.approvals.history({ decidedBy: "fiona", since }),
      () => agents.approvals.history({ actingFor: "customer-7", since }),
      () => agents.approvals.history({ decidedBy: "fiona", since, principal: { id: "nobody" } }),
    ]);
    // Three runs ever deferred and closed since: each read with one query.
    expect(byApprover).toEqual({ total: 3, byOperation: { QueryWorkflow: 3 } });
    // Only customer-7's run is read: the others' memo rows act for customer-42.
    expect(byCustomer).toEqual({ total: 1, byOperation: { QueryWorkflow: 1 } });
    expect(refused).toEqual({ total: 0, byOperation: {} });
  });
});
