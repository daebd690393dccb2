import { defineAgent } from "durable-agents";
import { clientWithWorker } from "../docs-support/env.js";
// The reader's own services, here small stand-ins: who holds a ticket, and the payment API.
const tickets = { has: async (principalId: string | undefined) => principalId === "fiona" };
const refundOrder = async (orderId: string, amountEur: number) => `refunded ${orderId}: €${amountEur}`;
// ---cut---
import { z } from "zod";
import { defineTool } from "durable-agents";

export const refund = defineTool({
  name: "refund",
  description: "Refund an order",
  input: z.object({ orderId: z.string(), amountEur: z.number().positive() }),
  // A policy: "allow" runs the call, "ask" waits for a person, { deny } runs nothing and the model reads why.
  needsApproval: async ({ amountEur }, ctx) => {
    if (amountEur < 50) return "allow";
    if (amountEur > 1000 && !(await tickets.has(ctx.principal?.id))) return { deny: "refunds over €1000 need a support ticket" };
    return "ask";
  },
  approval: { meta: { requires: ["refunds:approve"] } },
  handler: async ({ orderId, amountEur }) => refundOrder(orderId, amountEur),
});
// ---end---
// An agent that uses it: a small refund runs at once, a large one is denied without parking.
const support = defineAgent({ id: "refunds", model: "gpt-4.1-mini", system: "Refund orders.", tools: [refund] });
const secret = process.env.DEFERRAL_SECRET!;
const { agents, closeAll } = await clientWithWorker({ deferral: { secret } });
for (const prompt of ["Refund order A-1, €20", "Refund order B-2, €4000"]) {
  const result = await agents.run(support, { prompt, principal: { id: "sam" } });
  console.log(`${prompt}: ${result.status}${result.status === "completed" ? `, ${result.text}` : ""}`);
}
await closeAll();
