import { clientWithWorker } from "../docs-support/env.js";
const secret = process.env.DEFERRAL_SECRET!;
const { agents, closeAll } = await clientWithWorker({ deferral: { secret } });
// ---cut---
import { z } from "zod";
import { defineAgent, defineTool } from "durable-agents";

const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send a payout",
  input: z.object({ to: z.string(), amountEur: z.number().positive() }),
  needsApproval: true,
  approval: { meta: { requires: ["payouts:approve"] } },
  handler: async ({ to, amountEur }) => `sent €${amountEur} to ${to}`,
});
const payouts = defineAgent({ id: "payouts-per-call", model: "gpt-4.1-mini", system: "Pay.", tools: [sendPayout] });

// The model asks for three payouts in one step: one request, decided here call by call.
const ack = await agents.run(payouts, { prompt: "Pay ACME, Globex and Initech", principal: { id: "sam" } });
if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${ack.status}`);
const { calls } = await agents.approvals.get({ approvalId: ack.deferralId });
const [acme, globex, initech] = calls.map((c) => c.toolCallId) as [string, string, string];

// The treasurer approves Initech's: it runs now; the run stays parked on the same request.
const first = await agents.approvals.decide({ approvalId: ack.deferralId, decisions: { [initech]: { approved: true } }, principal: { id: "treasurer" } });
console.log("first:", first.status, first.outcome.status);
// The CFO decides the other two: the model goes on once every call has a result.
const last = await agents.approvals.decide({
  approvalId: ack.deferralId,
  decisions: { [acme]: { approved: true }, [globex]: { approved: false, reason: "duplicate invoice" } },
  principal: { id: "cfo" },
});
console.log("last:", last.status, JSON.stringify(last.outcome));
// ---end---
await closeAll();
