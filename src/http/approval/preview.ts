import type { AgentClient } from "../../client/agent-client.js";
import type { DeferralView } from "../../core/deferral-record.js";
import { DurableAgentsError } from "../../core/errors/base.js";
import { ErrorCode } from "../../core/errors/codes.js";
import type { Principal } from "../../core/json.js";
import type { ResumeResult } from "../../client/resume.js";

export type Preview =
  | { kind: "live"; record: DeferralView }
  | { kind: "answered"; result: ResumeResult }
  | { kind: "refused"; error: DurableAgentsError };

/**
 * What the approval page may show for `token` to `principal`, decided by the client, not
 * here: a resume with no payload runs every check that comes before spending the token, in
 * the documented order (token RC5041, record RC5046, call binding RC5055, authorize RC5056,
 * denied RC5050, deadline RC5047, a duplicate answered with its first outcome) and is
 * then refused for its missing payload (RC5042), which changes nothing. So the page needs
 * neither the secret nor an authority of its own. The authorize hook sees `payload: undefined`.
 */
export async function previewResume(agents: AgentClient, token: string, principal: Principal | undefined): Promise<Preview> {
  try {
    const result = await agents.resume({ token, payload: undefined as never, ...(principal ? { principal } : {}) });
    return { kind: "answered", result };
  } catch (err) {
    if (!DurableAgentsError.isDurableAgentsError(err)) throw err;
    if (err.code !== ErrorCode.NotPlainJson) return { kind: "refused", error: err };
  }
  // Every check passed; the token is genuine, so its claims name the deferral.
  return { kind: "live", record: await agents.deferrals.get(deferralIdOf(token)) };
}

function deferralIdOf(token: string): string {
  const claims = token.split(".").at(-2) ?? "";
  return (JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) as { d: string }).d;
}
