import { defineAgent, defineTool } from "durable-agents";
import { z } from "zod";
import { clientWithWorker } from "../docs-support/env.js";
const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send a payout",
  input: z.object({ to: z.string(), amountEur: z.number().positive() }),
  needsApproval: true,
  approval: { meta: { requires: ["payouts:approve"] } },
  handler: async ({ to, amountEur }) => `sent €${amountEur} to ${to}`,
});
const payouts = defineAgent({ id: "payouts-audit", model: "gpt-4.1-mini", system: "Pay.", tools: [sendPayout] });
const secret = process.env.DEFERRAL_SECRET!;
const { agents, closeAll } = await clientWithWorker({ deferral: { secret } });
for (const [prompt, customer, approver] of [["Pay ACME €1200", "customer-42", "fiona"], ["Pay Globex €80", "customer-7", "fiona"], ["Pay Initech €15", "customer-42", "gus"]] as const) {
  const ack = await agents.run(payouts, { prompt, principal: { id: customer } });
  if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${ack.status}`);
  const { calls } = await agents.approvals.get({ approvalId: ack.deferralId });
  await agents.approvals.decide({ approvalId: ack.deferralId, principal: { id: approver }, decisions: { [calls[0]!.toolCallId]: { approved: true } } });
}
// Visibility lists a run a moment after it changed: wait until it lists all three.
for (let listed = 0; listed < 3; ) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  listed = (await agents.approvals.history({ actingFor: "customer-42", since: new Date(Date.now() - 3600_000) })).requests.length + (await agents.approvals.history({ actingFor: "customer-7", since: new Date(Date.now() - 3600_000) })).requests.length;
}
// ---cut---
// Everything fiona decided in the last seven days, a page of runs and threads at a time.
const since = new Date(Date.now() - 7 * 24 * 3600_000);
let cursor: string | undefined;
do {
  const page = await agents.approvals.history({ decidedBy: "fiona", since, ...(cursor ? { cursor } : {}), principal: { id: "auditor" } });
  for (const request of page.requests) {
    const decided = request.entries.filter((e) => e.type === "decided");
    console.log(request.runId, request.approvalId, decided.map((e) => `${e.decision} by ${e.by?.id}`).join(", "));
  }
  cursor = page.cursor;
} while (cursor);

// Every request made on behalf of customer 42, whoever decided it.
const { requests } = await agents.approvals.history({ actingFor: "customer-42", since, principal: { id: "auditor" } });
console.log("customer-42:", requests.length, "requests");
// ---end---
await closeAll();
