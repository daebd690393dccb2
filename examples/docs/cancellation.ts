import { z } from "zod";
import { defineAgent, defineTool, RunCancelledError } from "durable-agents";
import { clientWithWorker } from "../docs-support/env.js";
// A payout that waits for a person's approval: a run that stays open until someone decides.
const sendPayout = defineTool({ name: "sendPayout", description: "Pays an invoice", input: z.object({ invoiceId: z.string() }), needsApproval: true, handler: async () => "paid" });
const payouts = defineAgent({ id: "payouts", model: "gpt-4.1-mini", system: "Pay invoices once approved.", tools: [sendPayout] });
const secret = process.env.DEFERRAL_SECRET!;
const { agents, closeAll } = await clientWithWorker({ deferral: { secret } });
const { runId } = await agents.start(payouts, { prompt: "Pay invoice 41" });
console.log("before:", (await agents.handle(runId).settled()).status);
const prompt = "Pay invoice 42";
// ---cut---
await agents.cancel({ runId, reason: "customer withdrew" });
await agents.run(payouts, { prompt, timeout: "7d" }); // cancelled if not finished within 7 days, deferrals included
// the run then fails with RunCancelledError (AI1005): { reason, turnsUsed, usage } for the WHOLE run, deferrals included
// ---end---
try {
  await agents.result({ runId });
} catch (err) {
  if (!RunCancelledError.isInstance(err)) throw err;
  console.log(`${err.code}: ${err.fields.reason}, after ${err.fields.turnsUsed} turn(s)`);
}
await closeAll();
