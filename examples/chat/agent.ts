/**
 * The chat example's agent: a support assistant with a tool that only reads (an order
 * lookup) and two that act, each gated on a person's decision before it runs: cancelling an
 * order (the customer confirms it in the chat) and refunding one (a manager approves it in
 * the approvals inbox, possibly much later).
 */
import { z } from "zod";
import { defineAgent, defineTool } from "../../src/index.js";

/** What the acting tools did, for whom: the example's stand-in for the systems they change (the order database, the payment provider). */
export interface Effect {
  threadId: string;
  tool: "cancelOrder" | "issueRefund";
  order: string;
}

/** Every effect the acting tools had, in order. A real app's tools call out; this one only remembers. */
export const effects: Effect[] = [];

export const lookupOrder = defineTool({
  name: "lookupOrder",
  description: "Looks up an order's status by its number",
  input: z.object({ order: z.string() }),
  handler: ({ order }) => ({ order, status: "shipped", carrier: "DHL", eta: "in 2 days" }),
});

/** Runs only once the customer confirmed the call in the chat: its request names no role, so the thread's owner decides (access.ts). */
export const cancelOrder = defineTool({
  name: "cancelOrder",
  description: "Cancels an order; the customer confirms it before anything is cancelled",
  input: z.object({ order: z.string() }),
  needsApproval: true,
  handler: ({ order }, ctx) => {
    effects.push({ threadId: ctx.threadId ?? ctx.runId, tool: "cancelOrder", order });
    return { order, status: "cancelled" };
  },
});

/** Runs only once a manager approved the call: its request requires the manager role (access.ts), and shows in the managers' inbox. */
export const issueRefund = defineTool({
  name: "issueRefund",
  description: "Refunds an order; a manager approves it before any money moves",
  input: z.object({ order: z.string(), reason: z.string() }),
  needsApproval: true,
  approval: { meta: { requires: ["manager"] } },
  handler: ({ order }, ctx) => {
    effects.push({ threadId: ctx.threadId ?? ctx.runId, tool: "issueRefund", order });
    return { order, refunded: true, arrives: "within 5 business days" };
  },
});

export const supportAgent = defineAgent({
  id: "support",
  model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini",
  system:
    "You are a friendly support assistant. Look orders up with lookupOrder. Cancel an order with cancelOrder when the customer asks; " +
    "refund one with issueRefund when asked. Both wait for a person's decision: if one is rejected, say so and do not try again.",
  tools: [lookupOrder, cancelOrder, issueRefund],
  maxTurns: 8,
});
