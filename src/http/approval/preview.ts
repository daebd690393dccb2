import type { AgentClient } from "../../client/agent-client.js";
import type { DeferralRecord } from "../../core/deferral-record.js";
import { DurableAgentsError } from "../../core/errors/base.js";
import type { Principal } from "../../core/json.js";
import type { ResumeResult } from "../../client/resume.js";

export type Preview =
  | { kind: "live"; record: DeferralRecord }
  | { kind: "answered"; result: ResumeResult }
  | { kind: "refused"; error: DurableAgentsError };

/**
 * What the approval page may show for `token` to `principal`, decided by the client, not
 * here: `agents.previewResume` runs every check that comes before spending the token, in
 * the documented order (token RC5041, record RC5046, call binding RC5055, authorize RC5056
 * as `resume` with `payload: undefined`, denied RC5050, deadline RC5047, a duplicate
 * answered with its first outcome) and changes nothing. So the page needs neither the
 * secret nor an authority of its own, and shows only the record the hook let this
 * principal answer.
 */
export async function previewResume(agents: AgentClient, token: string, principal: Principal | undefined): Promise<Preview> {
  try {
    // With what led to the request, where the hook allows it (`approval.context`): read in the same query.
    const preview = await agents.previewWithContext({ token, ...(principal ? { principal } : {}) });
    return preview.status === "pending" ? { kind: "live", record: preview.deferral } : { kind: "answered", result: preview };
  } catch (err) {
    if (!DurableAgentsError.isDurableAgentsError(err)) throw err;
    return { kind: "refused", error: err };
  }
}
