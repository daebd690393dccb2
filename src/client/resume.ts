import type { JsonObject, JsonValue, Principal } from "../json.js";
import type { RunOutcome } from "../../workflows/deferral-record.js";

/** What the authorize hook sees. */
export interface AuthorizeRequest {
  /** Who is resuming (the live caller). */
  principal: Principal | undefined;
  /** The principal the run deferred as, restored from storage (`restored: true`), not re-verified. */
  deferred: (Principal & { restored: true }) | undefined;
  payload: JsonValue;
  record: { id: string; meta: JsonObject; agentId?: string; deferredAt: string; expiresAt: string };
}

/**
 * Decides whether `principal` may resume. Only an exact `true` allows; anything else
 * (false, undefined, "yes", a thrown error) refuses with RC5056 and changes nothing.
 */
export type AuthorizeHook = (request: AuthorizeRequest) => boolean | Promise<boolean>;

export interface ResumeOptions {
  /** The token the tool handler handed out (`ctx.deferral.token`). */
  token: string;
  /** The answer; it becomes the deferred tool call's result. Plain JSON. */
  payload: JsonValue;
  /** Who is resuming; recorded as `resumedBy`, gains none of the run's authority. */
  principal?: Principal;
  /**
   * The deferring principal, freshly verified by your service from a live credential (same
   * `id`). The resumed run then acts for it as verified, instead of as restored data.
   */
  reverify?: Principal;
  /** Overrides the client-wide hook for this call. */
  authorize?: AuthorizeHook;
}

export interface ResumeResult {
  /** `duplicate` when the deferral was already resumed: `outcome` is the first resume's. */
  status: "resumed" | "duplicate";
  deferralId: string;
  /** The run's next settled state after the resume: completed, failed, or deferred again. */
  outcome: RunOutcome;
}
