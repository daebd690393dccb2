declare const secret: string;
declare function sendLink(token: string): Promise<void>;
// ---cut---
// the activity (worker side): mint bound to this execution, send the link, return only the digest
import { Context } from "@temporalio/activity";
import { activityBinding, mintResumeToken, resumeDigest } from "durable-agents/worker";

export async function requestApproval({ deferralId }: { deferralId: string }): Promise<{ digest: string }> {
  const token = mintResumeToken(secret, deferralId, "approval", { binding: activityBinding(Context.current().info) });
  await sendLink(token);
  return { digest: resumeDigest(token) };
}
