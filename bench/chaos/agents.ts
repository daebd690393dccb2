/**
 * What the soak runs: a payout agent whose payouts need a person's approval (a gated tool,
 * or a plain `ctx.defer()` before an ungated transfer), and a chat agent with a lookup and
 * an async "ask the manager" tool. The tools that act record their effect in the ledger by
 * idempotency key; the tools that wait for a person record the link they would send.
 * Workers call {@link useLedger} first; the driver only names the agents.
 */
import type pg from "pg";
import { z } from "zod";
import { defineAgent, defineAsyncTool, defineTool } from "../../src/index.js";
import { applyEffect, recordNotice } from "./ledger.js";

let ledger: pg.Pool | undefined;
export const useLedger = (pool: pg.Pool): void => {
  ledger = pool;
};
const pool = (): pg.Pool => {
  if (!ledger) throw new Error("useLedger() was not called in this process");
  return ledger;
};

/** Tool results the scripted model reads back (bench/chaos/model.ts) to decide its next step. */
export const RESULT = { lookup: "balance:", payout: "sent", transfer: "transferred" } as const;

const lookup = defineTool({
  name: "lookup",
  description: "Looks an account's balance up",
  input: z.object({ account: z.string() }),
  handler: ({ account }) => `${RESULT.lookup} ${account} holds ${account.length * 100} EUR`,
});

/** Pays only once a person approved the call: the gate, not the prompt, holds it. */
const sendPayout = defineTool({
  name: "sendPayout",
  description: "Sends a payout",
  input: z.object({ amount: z.number().int().positive() }),
  needsApproval: true,
  approval: {
    meta: { requires: ["payouts:approve"] },
    notify: async (request) => {
      for (const call of request.calls) {
        await recordNotice(pool(), { key: request.approvalId, kind: "approval", run_id: request.runId, tool_call_id: call.toolCallId, approval_id: request.approvalId, token: request.token });
      }
    },
  },
  handler: async ({ amount }, ctx) => {
    const applied = await applyEffect(pool(), { key: ctx.idempotencyKey, runId: ctx.runId, toolCallId: ctx.toolCallId, tool: "sendPayout", amount, attempt: ctx.attempt });
    return `${RESULT.payout} ${amount}${applied ? "" : " (already sent)"}`;
  },
});

/** Asks first with a plain deferral; the link carries the resume token. */
const askApproval = defineTool({
  name: "askApproval",
  description: "Asks a person to approve a transfer",
  input: z.object({ amount: z.number() }),
  handler: async (_input, ctx) => {
    await recordNotice(pool(), { key: ctx.deferralId, kind: "deferral", run_id: ctx.runId, tool_call_id: ctx.toolCallId, approval_id: ctx.deferralId, token: ctx.deferral.token });
    return ctx.defer({ schema: z.object({ approved: z.boolean() }) });
  },
});

const transfer = defineTool({
  name: "transfer",
  description: "Transfers money (only after askApproval said yes)",
  input: z.object({ amount: z.number().int().positive() }),
  handler: async ({ amount }, ctx) => {
    const applied = await applyEffect(pool(), { key: ctx.idempotencyKey, runId: ctx.runId, toolCallId: ctx.toolCallId, tool: "transfer", amount, attempt: ctx.attempt });
    return `${RESULT.transfer} ${amount}${applied ? "" : " (already transferred)"}`;
  },
});

const askManager = defineAsyncTool({
  name: "askManager",
  description: "Asks the manager; the answer comes later",
  input: z.object({ question: z.string() }),
  callback: async (_input, ctx) => {
    await recordNotice(pool(), { key: `${ctx.threadId}/${ctx.toolCallId}`, kind: "answer", run_id: ctx.threadId, tool_call_id: ctx.toolCallId, approval_id: null, token: ctx.answerToken });
  },
});

/**
 * Short call and heartbeat timeouts: a model request that hangs is retried after 15 s, and a
 * SIGKILLed worker's calls move to the other worker after 10 s instead of the default 30 s.
 */
const timeouts = { call: "15s", heartbeat: "10s" } as const;

export const payoutAgent = defineAgent({
  id: "chaos-payouts",
  model: "chaos-model",
  system: "You pay out money. Look the account up first.",
  tools: [lookup, sendPayout, askApproval, transfer],
  maxTurns: 12,
  timeouts,
});

export const chatAgent = defineAgent({
  id: "chaos-chat",
  model: "chaos-model",
  system: "You answer customers.",
  tools: [lookup, askManager],
  maxTurns: 8,
  timeouts,
});
