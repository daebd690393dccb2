import { Context } from "@temporalio/activity";
import { activityBinding, mintResumeToken } from "../../src/worker.js";
import { resumeDigest } from "../../src/index.js";

/** Where approval links go; a real system would email or post them. */
export type Outbox = (message: { to: string; deferralId: string; token: string; expenseId: string }) => void;

export function createExpenseActivities(secret: string, outbox: Outbox) {
  return {
    async requestApproval(input: { deferralId: string; expenseId: string; approver: string }): Promise<{ digest: string }> {
      // The token is minted here, with the worker's secret, and never returned to the workflow:
      // only its digest is, so the workflow can check a resume's proof without being able to forge one.
      // Bound to this execution, so a later run reusing the workflow id does not take this link.
      const token = mintResumeToken(secret, input.deferralId, "approval", { binding: activityBinding(Context.current().info) });
      outbox({ to: input.approver, deferralId: input.deferralId, token, expenseId: input.expenseId });
      return { digest: resumeDigest(token) };
    },
    async bookExpense(_input: { expenseId: string; amount: number }): Promise<void> {
      // Booking would happen here.
    },
  };
}

export type ExpenseActivities = ReturnType<typeof createExpenseActivities>;
