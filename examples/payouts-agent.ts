/** The demo's payouts agent: look an invoice up, defer for approval, pay. Shared by the demo and the worker image. */
import { z } from "zod";
import { defineAgent, defineTool } from "../src/index.js";

const say = (line: string) => console.log(line);

/** Approval links the handler "sent"; a real one would email or post them. */
export const approvalLinks: Array<{ deferralId: string; token: string }> = [];

const lookupInvoice = defineTool({
  name: "lookupInvoice",
  description: "Look up an invoice by id: vendor, amount and due date",
  input: z.object({ invoiceId: z.string() }),
  handler: ({ invoiceId }) => {
    say(`  [tool] lookupInvoice(${invoiceId})`);
    return { invoiceId, vendor: "Acme Robotics", amountEur: 4200, due: "2026-12-15" };
  },
});

const askApproval = defineTool({
  name: "askApproval",
  description: "Ask a human finance approver to approve a payout. Returns { approved, note }.",
  input: z.object({ invoiceId: z.string(), amountEur: z.number(), reason: z.string() }),
  async handler(input, ctx) {
    // The id and token exist before deferring, so the notification carries a working link.
    approvalLinks.push({ deferralId: ctx.deferralId, token: ctx.deferral.token });
    say(`  [tool] askApproval → approval link sent for ${ctx.deferralId}`);
    return ctx.defer({
      schema: z.object({ approved: z.boolean(), note: z.string().optional() }),
      ttl: "72h",
      meta: {
        requires: ["payouts:approve"],
        amountEur: input.amountEur,
        // What the HTTP front door's approval page shows.
        title: `Approve a payout of €${input.amountEur} for ${input.invoiceId}?`,
        description: input.reason,
        render: { fields: { note: { widget: "textarea", label: "Note for the requester" } } },
      },
    });
  },
});

const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send an approved payout",
  input: z.object({ invoiceId: z.string(), amountEur: z.number() }),
  handler: ({ invoiceId, amountEur }, ctx) => {
    say(`  [tool] sendPayout(${invoiceId}, €${amountEur}) as ${ctx.principal?.id} (restored: ${ctx.restored}, key ${ctx.idempotencyKey})`);
    return { paid: true, reference: `PAY-${invoiceId}` };
  },
});

export const payouts = defineAgent({
  id: "payouts",
  model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini",
  system: "You handle invoice payouts. Look the invoice up, ask for approval, and pay only if approved. Be brief.",
  tools: [lookupInvoice, askApproval, sendPayout],
  maxTurns: 8,
});
