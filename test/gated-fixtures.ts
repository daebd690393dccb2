/**
 * The gated tools and agents the front door's approval tests share: a payout agent (a gated
 * payout, one whose request is open one second only, and a plain ctx.defer() tool) and a
 * files agent (a gated delete, for threads), each named under `prefix`. Every handler run is
 * recorded in `ran`, which is what decisions must bound.
 */
import { z } from "zod";
import { defineAgent, defineTool, type ApprovalRequestInfo } from "../src/index.js";

export function gatedFixtures(prefix: string) {
  const ran: Array<{ id: string; tool: string; input: unknown }> = [];
  const ranIn = (id: string) => ran.filter((r) => r.id === id).map(({ tool, input }) => ({ tool, input }));
  const sendPayout = defineTool({
    name: "sendPayout",
    description: "Send money",
    input: z.object({ amount: z.number().positive(), to: z.string() }),
    needsApproval: true,
    approval: { meta: { requires: ["payouts:approve"] } },
    handler: (input, ctx) => {
      ran.push({ id: ctx.runId, tool: "sendPayout", input });
      return `sent ${input.amount} to ${input.to}`;
    },
  });
  /** Open for one second only. */
  const quickPayout = defineTool({
    name: "quickPayout",
    description: "Send money now or never",
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    approval: { ttl: "1s", meta: { requires: ["payouts:approve"] } },
    handler: (input, ctx) => {
      ran.push({ id: ctx.runId, tool: "quickPayout", input });
      return "sent";
    },
  });
  const askManager = defineTool({ name: "askManager", description: "Ask the manager", input: z.object({}), handler: (_input, ctx) => ctx.defer({ ttl: "1h" }) });
  const payouts = defineAgent({ id: `${prefix}-payouts`, model: "gpt-4.1-mini", system: "You pay.", tools: [sendPayout, quickPayout, askManager], maxTurns: 4 });
  const deleteFile = defineTool({
    name: "deleteFile",
    description: "Delete a file",
    input: z.object({ path: z.string().min(1) }),
    needsApproval: true,
    approval: { meta: { requires: ["files:delete"] } },
    handler: ({ path }, ctx) => {
      ran.push({ id: ctx.threadId!, tool: "deleteFile", input: { path } });
      return `deleted ${path}`;
    },
  });
  const files = defineAgent({ id: `${prefix}-files`, model: "gpt-4.1-mini", system: "You manage files.", tools: [deleteFile], maxTurns: 4 });
  return { ran, ranIn, payouts, files };
}

/**
 * A gated payout whose request reminds at once (1 s into 60 s) and escalates to `payouts:cfo`
 * after 2 s, telling its approvers each time: what each notice is pushed onto `notified`.
 */
export function escalatingPayout(notified: ApprovalRequestInfo[]) {
  return defineTool({
    name: "sendPayout",
    description: "Send money",
    input: z.object({ amount: z.number(), to: z.string() }),
    needsApproval: true,
    approval: { ttl: "60s", remind: ["59s"], meta: { requires: ["payouts:approve"] }, notify: (request) => void notified.push(request), escalate: { after: "2s", requires: ["payouts:cfo"] } },
    handler: ({ amount, to }) => `sent ${amount} to ${to}`,
  });
}
