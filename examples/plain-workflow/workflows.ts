/**
 * A plain Temporal workflow (no agent) that waits for a human with the same deferral
 * mechanism agents use: one record, token-bound resume, TTL, and the same error codes.
 */
import { proxyActivities } from "@temporalio/workflow";
import { defer, deferrable, nextDeferralId } from "../../src/workflow.js";
import type { ExpenseActivities } from "./activities.js";

const { requestApproval, bookExpense } = proxyActivities<ExpenseActivities>({ startToCloseTimeout: "1m" });

export interface ExpenseInput {
  expenseId: string;
  amount: number;
  approver: string;
}

export const expenseApproval = deferrable(async function expenseApproval(input: ExpenseInput) {
  // The id is known before deferring, so the approval request carries a working link.
  const requested = await requestApproval({ deferralId: nextDeferralId(), expenseId: input.expenseId, approver: input.approver });
  const answer = await defer<{ approved: boolean; note?: string }>({
    callId: "approval",
    // A resume must prove it holds the token the activity sent. Runs recorded before the
    // activity returned a digest replay with none, and resume as they did then.
    ...(requested?.digest ? { digest: requested.digest } : {}),
    ttl: "72h",
    meta: { approver: input.approver, amount: input.amount },
    schema: {
      type: "object",
      properties: { approved: { type: "boolean" }, note: { type: "string" } },
      required: ["approved"],
      additionalProperties: false,
    },
  });
  if (!answer.approved) return { expenseId: input.expenseId, status: "rejected", note: answer.note ?? null };
  await bookExpense({ expenseId: input.expenseId, amount: input.amount });
  return { expenseId: input.expenseId, status: "booked", note: answer.note ?? null };
});
