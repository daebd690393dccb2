import { defineAgent, type ApprovalRequestInfo } from "durable-agents";
import { clientWithWorker } from "../docs-support/env.js";
// The reader's own services, here stand-ins that say what they would do.
let escalated!: () => void;
const escalation = new Promise<void>((resolve) => (escalated = resolve));
const mailer = { send: async (to: string, request: ApprovalRequestInfo) => console.log(`mail to ${to}: ${request.reason}${request.reminder ? ` ${request.reminder}` : ""}`) };
const pager = { page: async (group: string, request: ApprovalRequestInfo) => (console.log(`page ${group}: ${request.reason}, requires ${request.requires?.join()}`), escalated()) };
const pay = async (invoiceId: string) => `paid ${invoiceId}`;
// ---cut---
import { z } from "zod";
import { defineTool } from "durable-agents";

export const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send a payout for an invoice",
  input: z.object({ invoiceId: z.string(), amountEur: z.number().positive() }),
  needsApproval: true,
  approval: {
    ttl: "72h",
    meta: { requires: ["payouts:approve"] },
    // Told when asked, then again 24 h and 1 h before the request expires (request.reason, request.reminder).
    remind: ["24h", "1h"],
    notify: async (request) => mailer.send("finance@example.com", request),
    // Nobody decided in 48 h: the CFO's office decides now (meta.requires), and is paged.
    escalate: { after: "48h", requires: ["payouts:cfo"], notify: async (request) => pager.page("cfo", request) },
  },
  handler: async ({ invoiceId }) => pay(invoiceId),
});
// ---end---
// The same tool on a clock a reader can watch: reminded 1 s in, escalated 2 s in.
const quick = defineTool({ ...sendPayout, approval: { ...sendPayout.approval, ttl: "60s", remind: ["59s"], escalate: { ...sendPayout.approval!.escalate!, after: "2s" } } });
const payouts = defineAgent({ id: "payouts-remind", model: "gpt-4.1-mini", system: "Pay.", tools: [quick] });
const secret = process.env.DEFERRAL_SECRET!;
// Only who the request requires may decide it.
const roles: Record<string, string[]> = { fiona: ["payouts:approve"], carla: ["payouts:cfo"] };
const { agents, closeAll } = await clientWithWorker({
  deferral: { secret },
  authorize: (req) => req.operation !== "resume" || ((req.deferral.meta.requires as string[]) ?? []).some((r) => roles[req.principal?.id ?? ""]?.includes(r)),
});
const ack = await agents.run(payouts, { prompt: "Pay invoice INV-9, €800", principal: { id: "sam" } });
if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${ack.status}`);
await escalation;
const request = await agents.approvals.get({ approvalId: ack.deferralId });
console.log("now requires:", JSON.stringify(request.meta.requires));
const decisions = { [request.calls[0]!.toolCallId]: { approved: true as const } };
await agents.approvals.decide({ approvalId: ack.deferralId, decisions, principal: { id: "fiona" } }).catch((err: { code?: string }) => console.log(`fiona: ${err.code}`));
const decided = await agents.approvals.decide({ approvalId: ack.deferralId, decisions, principal: { id: "carla" } });
console.log("decided:", decided.status, JSON.stringify(decided.outcome));
await closeAll();
