import type { ApprovalRequestInfo } from "durable-agents";
declare const mailer: { send(to: string, url: string | undefined, options: { idempotencyKey: string }): Promise<void> };
declare function approverOf(request: ApprovalRequestInfo): string;
declare function pay(invoiceId: string, amountEur: number, options: { idempotencyKey: string }): Promise<{ paid: true }>;
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
