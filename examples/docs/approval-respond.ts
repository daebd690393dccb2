import { defineAgent } from "durable-agents";
import { clientWithWorker } from "../docs-support/env.js";
// The reader's own service, here a stand-in that says what it would do.
const bank = { wire: async (to: string, amountEur: number) => ({ status: "sent" as const, reference: `wire to ${to}, €${amountEur}` }) };
// ---cut---
import { z } from "zod";
import { defineTool } from "durable-agents";

export const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send a payout",
  input: z.object({ to: z.string(), amountEur: z.number().positive() }),
  needsApproval: true,
  approval: {
    meta: { requires: ["payouts:approve"] },
    // What a person may answer in the tool's place: { respond: { status, reference } }.
    resultSchema: z.object({ status: z.enum(["sent", "held"]), reference: z.string() }),
  },
  handler: async ({ to, amountEur }) => bank.wire(to, amountEur),
});

// The approver paid by hand: the tool never runs, and the model reads this as its result.
// await agents.approvals.decide({ approvalId, decisions: { [toolCallId]: { respond: { status: "sent", reference: "paid by cheque 1041" } } } });
// ---end---
const payouts = defineAgent({ id: "payouts-respond", model: "gpt-4.1-mini", system: "Pay.", tools: [sendPayout] });
const secret = process.env.DEFERRAL_SECRET!;
const { agents, closeAll } = await clientWithWorker({ deferral: { secret } });
const ack = await agents.run(payouts, { prompt: "Pay ACME €300", principal: { id: "sam" } });
if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${ack.status}`);
const request = await agents.approvals.get({ approvalId: ack.deferralId });
const toolCallId = request.calls[0]!.toolCallId;
// Off the schema: refused, nothing changes, and the same decision may be taken again.
await agents.approvals.decide({ approvalId: ack.deferralId, decisions: { [toolCallId]: { respond: { status: "lost" } } } }).catch((err: { code?: string }) => console.log(`refused: ${err.code}`));
const decided = await agents.approvals.decide({
  approvalId: ack.deferralId,
  decisions: { [toolCallId]: { respond: { status: "sent", reference: "paid by cheque 1041" } } },
  principal: { id: "fiona" },
});
console.log("decided:", decided.status, JSON.stringify(decided.outcome));
await closeAll();
