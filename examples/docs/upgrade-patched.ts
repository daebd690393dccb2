import { proxyActivities } from "@temporalio/workflow";
const { audit } = proxyActivities<{ audit(expenseId: string): Promise<void> }>({ startToCloseTimeout: "1m" });
// ---cut---
import { patched } from "@temporalio/workflow";
import { defer, deferrable } from "durable-agents/workflow";

export const expenseApproval = deferrable(async function expenseApproval(expenseId: string, digest: string) {
  const answer = await defer<{ approved: boolean }>({ callId: "approval", digest, ttl: "72h" });
  if (patched("audit-answer")) await audit(expenseId); // new in version 2
  return answer.approved;
});
