import { z } from "zod";
import { defineAgent, defineTool, type ChatMessage } from "durable-agents";
import { clientWithWorker } from "../docs-support/env.js";
// A run that read a long ledger, then parked for an approval: its transcript no longer fits
// the model's context window (declared small here), so the resume is refused with AI1009.
let token = "";
const readLedger = defineTool({ name: "readLedger", description: "Reads the ledger", input: z.object({}), handler: async () => "2026-11-30 invoice paid, 120 EUR. ".repeat(600) });
const askApproval = defineTool({
  name: "askApproval",
  description: "Asks a person to approve a payout",
  input: z.object({ amount: z.number() }),
  handler: async ({ amount }, ctx) => {
    token = ctx.deferral.token; // what the approver's link carries
    return ctx.defer({ schema: z.object({ approved: z.boolean() }), ttl: "12h", meta: { amount } });
  },
});
const payouts = defineAgent({ id: "payouts", model: "gpt-4.1-mini", system: "Read the ledger, then ask.", tools: [readLedger, askApproval], contextWindow: 2000 });
const { agents, closeAll } = await clientWithWorker({ deferral: { secret: process.env.DEFERRAL_SECRET! } });
const runId = `ledger-${Date.now()}`;
const ack = await agents.run(payouts, { prompt: "Pay the ledger's total", runId });
const deferralId = ack.status === "deferred" ? ack.deferralId : "";
const principal = { id: "ops" };
const payload = { approved: true };
const tomorrow = new Date(Date.now() + 24 * 3600_000);
// Old turns in a few words: the tool calls before the deferred one and their results make
// way for a summary (a rewrite may drop calls with their results, never alter a result).
const summariseOldTurns = (messages: ChatMessage[]): ChatMessage[] => [
  messages[0]!,
  { role: "assistant", content: "Summary so far: the ledger lists 600 paid invoices of 120 EUR." },
  messages.at(-1)!,
];
// ---cut---
import { isContextOverflow, replaceDeferredThread } from "durable-agents";

// `principal`: the caller the authorize hook is asked about (deferral.list per row, deferral.get, deferral.replace, deferral.deny)
const { deferrals, cursor } = await agents.deferrals.list({ status: "deferred", agentId: "payouts", expiringBefore: tomorrow, limit: 50, principal });
const record = await agents.deferrals.get({ deferralId, principal }); // meta, status, expiry, step state { messages, deferredToolCallId, turnsUsed, usage }, fingerprint, callFingerprint
const small = await agents.deferrals.getRecord({ deferralId, principal }); // without the step state (with the call's toolArguments and callFingerprint): its size does not grow with the transcript

// show the approver small.toolName and small.toolArguments, keep small.callFingerprint with what they answer
const shown = small.callFingerprint;
try {
  await agents.resume({ token, payload, shown });
} catch (err) {
  if (!isContextOverflow(err)) throw err; // AI1009: refused before the approval was spent
  const { won, deferral } = await replaceDeferredThread(agents.deferrals, { deferralId, rewrite: (messages) => summariseOldTurns(messages), principal });
  if (won) await agents.resume({ token, payload, shown }); // same token: it was not spent; a rewrite leaves the deferred call, so `shown` still holds
  else console.log("someone got there first:", deferral.status);
}
// ---end---
console.log(`listed ${deferrals.length} (more: ${cursor !== undefined}); record ${record.status} with ${record.stepState?.messages.length} messages; asks ${small.toolName} ${small.toolArguments}`);
const result = await agents.result({ runId });
const { messages } = await agents.listMessages({ runId });
console.log(`result: ${result.text}; the transcript now: ${messages.map((m) => `${m.role}: ${String(m.content ?? "(calls)").slice(0, 64)}`).join(" | ")}`);
await closeAll();
