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
const payouts = defineAgent({ id: "payouts-history", model: "gpt-4.1-mini", system: "Pay.", tools: [sendPayout] });
const secret = process.env.DEFERRAL_SECRET!;
const { agents, closeAll } = await clientWithWorker({ deferral: { secret } });
const ack = await agents.run(payouts, { prompt: "Pay ACME €1200", principal: { id: "sam" } });
if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${ack.status}`);
const approvalId = ack.deferralId;
const { calls, callFingerprint } = await agents.approvals.get({ approvalId });
await agents.approvals.decide({ approvalId, shown: callFingerprint, principal: { id: "fiona" }, decisions: { [calls[0]!.toolCallId]: { approved: true, input: { to: "ACME", amountEur: 1000 }, note: "capped at the contract" } } });
// ---cut---
// Who decided what, when, having seen which calls, and what they changed: oldest first.
const { entries } = await agents.approvals.history({ approvalId, principal: { id: "auditor" } });
for (const entry of entries) {
  if (entry.type === "decided") console.log(entry.at, entry.type, entry.decision, "by", entry.by?.id, JSON.stringify(entry.changes), entry.note);
  else console.log(entry.at, entry.type);
}
// 2026-…  asked
// 2026-…  decided approved by fiona [{"path":"/amountEur","from":1200,"to":1000}] capped at the contract
// ---end---
await closeAll();
