/**
 * The chat example's agent: a support assistant with a sync tool (an order lookup) and an
 * async one (a manager's approval, answered in the UI, possibly much later).
 */
import { z } from "zod";
import { defineAgent, defineAsyncTool, defineTool } from "../../src/index.js";

/** A question waiting for a manager, with the answer token that proves who was asked. */
export interface Approval {
  threadId: string;
  toolCallId: string;
  question: string;
  answerToken: string | undefined;
  askedAt: string;
}

/**
 * Where askManager's callback leaves its questions: the managers' inbox. It stands in for
 * what a real app does with the token (an email, a Slack message, a row only managers can
 * read). The token goes to whoever is asked and nowhere else: not into the thread, whose
 * readers (the customer) must not be able to answer for the manager.
 */
export class ApprovalInbox {
  readonly #items = new Map<string, Approval>();
  add(approval: Approval): void {
    // The callback runs at least once: the same call again replaces, never duplicates.
    this.#items.set(`${approval.threadId}/${approval.toolCallId}`, approval);
  }
  list(): Approval[] {
    return [...this.#items.values()];
  }
  remove(threadId: string, toolCallId: string): void {
    this.#items.delete(`${threadId}/${toolCallId}`);
  }
}

export const approvals = new ApprovalInbox();

export const lookupOrder = defineTool({
  name: "lookupOrder",
  description: "Looks up an order's status by its number",
  input: z.object({ order: z.string() }),
  handler: ({ order }) => ({ order, status: "shipped", carrier: "DHL", eta: "in 2 days" }),
});

export const askManager = defineAsyncTool({
  name: "askManager",
  description: "Asks a manager to approve something (a refund, a discount); the answer comes later",
  input: z.object({ question: z.string() }),
  callback: ({ question }, ctx) => {
    approvals.add({ threadId: ctx.threadId, toolCallId: ctx.toolCallId, question, answerToken: ctx.answerToken, askedAt: new Date().toISOString() });
  },
});

export const supportAgent = defineAgent({
  id: "support",
  model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini",
  system: "You are a friendly support assistant. Look orders up with lookupOrder. Refunds and discounts need a manager: ask with askManager and wait for the answer.",
  tools: [lookupOrder, askManager],
  maxTurns: 8,
});
