import { defineAgent, defineTool } from "durable-agents";
import { z } from "zod";
import { clientWithWorker } from "../docs-support/env.js";
const refund = defineTool({
  name: "refund",
  description: "Refund an order",
  input: z.object({ orderId: z.string(), amountEur: z.number().positive() }),
  needsApproval: true,
  approval: { meta: { requires: ["refunds:approve"] } },
  handler: async ({ orderId, amountEur }) => `refunded ${orderId}: €${amountEur}`,
});
const support = defineAgent({ id: "refunds-permission", model: "gpt-4.1-mini", system: "Refund orders.", tools: [refund] });
const secret = process.env.DEFERRAL_SECRET!;
const { agents, closeAll } = await clientWithWorker({ deferral: { secret } });
const ack = await agents.run(support, { prompt: "Refund orders A-1 (€20), A-2 (€30) and A-3 (€80)", principal: { id: "sam" } });
if (ack.status !== "deferred") throw new Error(`expected the run to ask, it settled as ${ack.status}`);
const approvalId = ack.deferralId;
const { calls, runId } = await agents.approvals.get({ approvalId });
// ---cut---
// Approve A-1, and let this run refund up to €50 a call without asking, for 8 hours.
const decided = await agents.approvals.decide({
  approvalId,
  principal: { id: "fiona" },
  decisions: { [calls[0]!.toolCallId]: { approved: true, grant: { match: { properties: { amountEur: { maximum: 50 } } }, until: "8h" } } },
});
// A-2 (€30) ran unasked; A-3 (€80) is outside the permission, so the run asks again.
console.log("after the grant:", decided.outcome.status);

const permissions = await agents.approvals.permissions({ runId, principal: { id: "fiona" } });
for (const p of permissions) console.log(p.permissionId, p.tool, "until", p.until, "granted by", p.grantedBy?.id);
// Revoked: later refunds in this run ask again. The request's trail records the revocation.
await agents.approvals.revoke({ runId, permissionId: permissions[0]!.permissionId, principal: { id: "fiona" } });
// ---end---
if (decided.outcome.status !== "deferred") throw new Error(`expected the run to ask for A-3, it settled as ${decided.outcome.status}`);
const next = await agents.approvals.get({ approvalId: decided.outcome.deferralId });
const done = await agents.approvals.decide({ approvalId: next.approvalId, decisions: { [next.calls[0]!.toolCallId]: { approved: false, reason: "over the limit" } } });
console.log("revoked; then:", JSON.stringify(done.outcome));
await closeAll();
