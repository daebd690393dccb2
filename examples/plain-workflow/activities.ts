import { mintResumeToken } from "../../src/worker.js";

/** Where approval links go; a real system would email or post them. */
export type Outbox = (message: { to: string; deferralId: string; token: string; expenseId: string }) => void;

export function createExpenseActivities(secret: string, outbox: Outbox) {
  return {
    async requestApproval(input: { deferralId: string; expenseId: string; approver: string }): Promise<void> {
      // The token is minted here, with the worker's secret, and never returned to the workflow.
      const token = mintResumeToken(secret, input.deferralId, "approval");
      outbox({ to: input.approver, deferralId: input.deferralId, token, expenseId: input.expenseId });
    },
    async bookExpense(_input: { expenseId: string; amount: number }): Promise<void> {
      // Booking would happen here.
    },
  };
}

export type ExpenseActivities = ReturnType<typeof createExpenseActivities>;
