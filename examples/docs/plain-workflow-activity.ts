const secret = process.env.DEFERRAL_SECRET!;
// Where the link goes: an email or a chat message; here the next link, for whoever resumes.
let announce: (token: string) => void = () => undefined;
export const nextLink = new Promise<string>((resolve) => (announce = resolve));
const sendLink = async (token: string): Promise<void> => announce(token);
// ---cut---
// the activity (worker side): mint bound to this execution, send the link, return only the digest
import { Context } from "@temporalio/activity";
import { activityBinding, mintResumeToken, resumeDigest } from "durable-agents/worker";

export async function requestApproval({ deferralId }: { deferralId: string }): Promise<{ digest: string }> {
  const token = mintResumeToken(secret, deferralId, "approval", { binding: activityBinding(Context.current().info) });
  await sendLink(token);
  return { digest: resumeDigest(token) };
}
