import { defineAgent, type ApprovalRequestInfo } from "durable-agents";
import { clientWithWorker } from "../docs-support/env.js";
// The reader's own services, here printing what they would do.
const mailer = { send: async (to: string, url: string | undefined, _options: { idempotencyKey: string }) => console.log(`mail to ${to}: ${url?.slice(0, url.indexOf("?"))}…`) };
const approverOf = (request: ApprovalRequestInfo) => (request.calls.some((c) => c.toolName === "sendPayout") ? "finance@example.com" : "ops@example.com");
async function pay(invoiceId: string, amountEur: number, _options: { idempotencyKey: string }): Promise<{ paid: true }> {
  console.log(`paid ${invoiceId}: €${amountEur}`);
  return { paid: true };
}
// ---cut---
import { z } from "zod";
import { defineTool } from "durable-agents";

export const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send a payout for an invoice",
  input: z.object({ invoiceId: z.string(), amountEur: z.number().positive() }),
  needsApproval: true, // or ({ amountEur }, ctx) => amountEur > 1000
  approval: {
    ttl: "72h",
    meta: ({ amountEur }) => ({ requires: ["payouts:approve"], amountEur }),
    notify: async (request, ctx) => mailer.send(approverOf(request), request.url, { idempotencyKey: ctx.idempotencyKey }),
  },
  handler: async ({ invoiceId, amountEur }, ctx) => pay(invoiceId, amountEur, { idempotencyKey: ctx.idempotencyKey }),
});
// ---end---
// An agent that uses it: the run parks before the payout, and pays once a person approved.
const payouts = defineAgent({ id: "payouts", model: "gpt-4.1-mini", system: "Pay invoices.", tools: [sendPayout] });
const secret = process.env.DEFERRAL_SECRET!;
const { agents, closeAll } = await clientWithWorker({ deferral: { secret } }, { deferral: { secret, approvalUrl: "https://ops.example.com/approve" } });
const ack = await agents.run(payouts, { prompt: "Pay invoice INV-7, €1500", principal: { id: "sam" } });
if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${ack.status}`);
const request = await agents.approvals.get({ approvalId: ack.deferralId });
console.log(`waiting: ${request.calls.map((c) => `${c.toolName} ${c.arguments}`).join(", ")}, meta ${JSON.stringify(request.meta)}`);
const decided = await agents.approvals.decide({ approvalId: ack.deferralId, decisions: { [request.calls[0]!.toolCallId]: { approved: true } }, principal: { id: "fiona" } });
console.log("decided:", decided.status, JSON.stringify(decided.outcome));
await closeAll();
