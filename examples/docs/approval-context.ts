import { defineAgent, defineTool, type AuthorizeRequest } from "durable-agents";
import { z } from "zod";
import { clientWithWorker } from "../docs-support/env.js";
const lookupOrder = defineTool({
  name: "lookupOrder",
  description: "Look an order up",
  input: z.object({ order: z.string() }),
  handler: async ({ order }) => `order ${order}: arrived damaged, paid €40`,
});
const sendRefund = defineTool({
  name: "sendRefund",
  description: "Refund a customer",
  input: z.object({ to: z.string(), amountEur: z.number().positive() }),
  needsApproval: true,
  approval: { meta: { requires: ["refunds:approve"] } },
  handler: async ({ to, amountEur }) => `refunded €${amountEur} to ${to}`,
});
const support = defineAgent({ id: "support-refunds", model: "gpt-4.1-mini", system: "Help customers.", tools: [lookupOrder, sendRefund] });
const secret = process.env.DEFERRAL_SECRET!;
// ---cut---
// Finance may decide refunds, but only support leads may read the conversation behind one.
const authorize = (request: AuthorizeRequest) => request.operation !== "approval.context" || request.principal?.id === "lead";
const { agents, closeAll } = await clientWithWorker({ deferral: { secret }, authorize });
const ack = await agents.run(support, { prompt: "Order A-17 arrived broken, refund me", principal: { id: "ann" } });
if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${ack.status}`);

const seen = await agents.approvals.get({ approvalId: ack.deferralId, principal: { id: "lead" } });
console.log("acts for", seen.actsFor?.id);
console.log("asked:", seen.context?.request?.text);
for (const result of seen.context?.toolResults ?? []) console.log("tool", result.toolName, "said:", result.text);
for (const message of seen.context?.messages ?? []) console.log("agent said:", message.text);

const finance = await agents.approvals.get({ approvalId: ack.deferralId, principal: { id: "finance" } });
console.log("finance sees the call alone:", finance.calls[0]?.toolName, "context" in finance);
// acts for ann
// asked: Order A-17 arrived broken, refund me
// tool lookupOrder said: order A-17: arrived damaged, paid €40
// agent said: The order arrived damaged: I ask to refund €40.
// finance sees the call alone: sendRefund false
// ---end---
await closeAll();
