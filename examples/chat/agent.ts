/**
 * The chat example's agent: a support assistant with a tool that only reads (an order
 * lookup) and two that act, each gated on a person's decision before it runs: cancelling an
 * order (the customer confirms it in the chat) and refunding one (a manager approves it in
 * the approvals inbox, possibly much later), and a long task that reports how it is going
 * (exporting the customer's order history, page by page). A long chat compacts its older
 * turns into a summary the model reads instead.
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

/**
 * How long each page of an export takes: the example's stand-in for slow work (a real export
 * reads a database page by page). Tests replace `page` to let each page through on cue.
 */
export const exportPace = { pages: 4, page: (_n: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, 700)) };

/** A long task: the chat shows each page as it goes (`ctx.progress`, a preview on the stream), then the result (the record). */
export const exportOrderHistory = defineTool({
  name: "exportOrderHistory",
  description: "Exports the customer's whole order history to a file; takes a while",
  input: z.object({}),
  handler: async (_input, ctx) => {
    const of = exportPace.pages;
    for (let done = 0; done < of; done++) {
      ctx.progress({ step: `reading page ${done + 1}`, done, of });
      await exportPace.page(done + 1);
    }
    return { exported: true, pages: of, file: `orders-${ctx.toolCallId.slice(-6)}.csv` };
  },
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

/** The summarizer's instructions when the thread compacts (the scripted model recognises them). */
export const SUMMARIZER_SYSTEM =
  "Summarize this support conversation for the assistant that continues it: the customer's orders, what was asked, done, refunded or cancelled, and what is still open. Plain sentences, no greeting.";

export const supportAgent = defineAgent({
  id: "support",
  model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini",
  system:
    "You are a friendly support assistant. Look orders up with lookupOrder. Cancel an order with cancelOrder when the customer asks; " +
    "refund one with issueRefund when asked. Both wait for a person's decision: if one is rejected, say so and do not try again. " +
    "Export the customer's order history with exportOrderHistory when asked.",
  tools: [lookupOrder, cancelOrder, issueRefund, exportOrderHistory],
  maxTurns: 8,
  // A long chat keeps going: past about 2,000 tokens of input, the older turns are summarised
  // (kept readable in the thread's history) and the model reads the summary and the newest turns.
  compaction: { keepTurns: 3, maxInputTokens: 2_000, summarizer: { system: SUMMARIZER_SYSTEM } },
});
