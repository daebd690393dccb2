import { defineAgent } from "durable-agents";
import { clientWithWorker } from "../docs-support/env.js";
// The reader's own store of standing permissions (a table, a policy service), here a map.
const allowances = new Map<string, number>([["sam", 100]]);
const store = { refundAllowance: async (principalId: string | undefined) => (principalId ? (allowances.get(principalId) ?? 0) : 0) };
const refundOrder = async (orderId: string, amountEur: number) => `refunded ${orderId}: €${amountEur}`;
// ---cut---
import { z } from "zod";
import { defineTool } from "durable-agents";

// A permission across every conversation of a principal (or of an agent) is a policy that
// reads your own store: each call pays one read of it, and no Temporal action.
export const refund = defineTool({
  name: "refund",
  description: "Refund an order",
  input: z.object({ orderId: z.string(), amountEur: z.number().positive() }),
  needsApproval: async ({ amountEur }, ctx) => {
    try {
      return amountEur <= (await store.refundAllowance(ctx.principal?.id)) ? "allow" : "ask";
    } catch {
      return "ask"; // the store is down: a person decides
    }
  },
  approval: { meta: { requires: ["refunds:approve"] } },
  handler: async ({ orderId, amountEur }) => refundOrder(orderId, amountEur),
});
// ---end---
const support = defineAgent({ id: "refunds-allowance", model: "gpt-4.1-mini", system: "Refund orders.", tools: [refund] });
const secret = process.env.DEFERRAL_SECRET!;
const { agents, closeAll } = await clientWithWorker({ deferral: { secret } });
for (const principal of [{ id: "sam" }, { id: "ann" }]) {
  const result = await agents.run(support, { prompt: "Refund order C-3, €60", principal });
  console.log(`${principal.id}: ${result.status}`);
}
await closeAll();
