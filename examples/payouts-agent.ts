/** The demo's payouts agent: look an invoice up, pay it once a person approved. Shared by the demo and the worker image. */
import { z } from "zod";
import { defineAgent, defineTool } from "../src/index.js";

const say = (line: string) => console.log(line);

/** Approval requests the notify hook "sent"; a real one would email or post the link. */
export const approvalLinks: Array<{ approvalId: string; token: string; url?: string }> = [];

const lookupInvoice = defineTool({
  name: "lookupInvoice",
  description: "Look up an invoice by id: vendor, amount and due date",
  input: z.object({ invoiceId: z.string() }),
  handler: ({ invoiceId }) => {
    say(`  [tool] lookupInvoice(${invoiceId})`);
    return { invoiceId, vendor: "Acme Robotics", amountEur: 4200, due: "2026-12-15" };
  },
});

/**
 * Pays. The approval is a property of the tool, not of the prompt: whatever the model
 * emits, no payout runs before a finance approver decided on this very call (and may edit
 * the amount, or reject it with a reason the model reads).
 */
const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send a payout for an invoice",
  input: z.object({ invoiceId: z.string(), amountEur: z.number().positive() }),
  needsApproval: true,
  approval: {
    ttl: "72h",
    meta: ({ invoiceId, amountEur }) => ({
      requires: ["payouts:approve"],
      amountEur,
      // What the HTTP front door's approval page and inbox show.
      title: `Approve a payout of €${amountEur} for ${invoiceId}?`,
    }),
    // Runs once the run has parked, durably: the message carries a working link.
    notify: (request) => {
      approvalLinks.push({ approvalId: request.approvalId, token: request.token, ...(request.url ? { url: request.url } : {}) });
      say(`  [notify] approval request ${request.approvalId} for ${request.calls.map((c) => `${c.toolName}(${c.arguments})`).join(", ")}`);
    },
  },
  handler: ({ invoiceId, amountEur }, ctx) => {
    say(`  [tool] sendPayout(${invoiceId}, €${amountEur}) as ${ctx.principal?.id} (key ${ctx.idempotencyKey})`);
    return { paid: true, reference: `PAY-${invoiceId}`, amountEur };
  },
});

export const payouts = defineAgent({
  id: "payouts",
  model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini",
  system: "You handle invoice payouts: look the invoice up, then pay it with sendPayout. A finance approver decides on every payout; if one is rejected, say so and stop. Be brief.",
  tools: [lookupInvoice, sendPayout],
  maxTurns: 8,
});
