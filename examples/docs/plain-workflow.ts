import { proxyActivities } from "@temporalio/workflow";
const { requestApproval } = proxyActivities<{ requestApproval(input: { deferralId: string }): Promise<{ digest: string }> }>({ startToCloseTimeout: "1m" });
const schema = { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] };
const meta = { requires: ["expenses:approve"] };
// ---cut---
import { defer, deferrable, nextDeferralId } from "durable-agents/workflow";

export const expenseApproval = deferrable(async function expenseApproval(input: { expenseId: string }) {
  const { digest } = await requestApproval({ deferralId: nextDeferralId() }); // an activity mints the token
  const answer = await defer<{ approved: boolean }>({ callId: "approval", digest, ttl: "72h", schema, meta });
  return { expenseId: input.expenseId, approved: answer.approved };
});
