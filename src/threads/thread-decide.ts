import type { Client } from "@temporalio/client";
import type { Decision } from "../core/approval.js";
import type { DeferralRecord } from "../core/deferral-record.js";
import { DeferralNotFoundError } from "../core/errors/deferral-not-found.js";
import { DeferralSecretError } from "../core/errors/deferral-secret.js";
import { InvalidDefinitionError } from "../core/errors/invalid-definition.js";
import { ResumePayloadError } from "../core/errors/resume-payload.js";
import type { Principal } from "../core/json.js";
import { DeferralStore } from "../client/deferral-store.js";
import { requestToken } from "../client/request-token.js";
import { resumeDeferral, type ResumeResult } from "../client/resume.js";

/**
 * Sends a decision on a thread's approval request as its token would: the client mints the
 * token with its secret (it never enters history) and resumes the request, whose checks are
 * a run's (proof, lifecycle, one decision per call: RC5049 with the token unspent). The
 * caller authorized it already (`thread.decide`).
 */
export async function decideForThread(
  deps: { client: Client; secrets: Buffer[] | undefined },
  threadId: string,
  record: DeferralRecord,
  decisions: Decision[],
  options: { principal?: Principal; shown?: string },
): Promise<ResumeResult> {
  const secret = deps.secrets?.[0];
  if (!secret) throw new DeferralSecretError({ reason: "the threads client was made without deferral: { secret }, which decide() mints the request's token with" });
  if (!record.approval) throw new ResumePayloadError({ deferralId: record.id, issues: ["this is not an approval request"] });
  if (record.runId !== threadId) throw new DeferralNotFoundError({ deferralId: record.id });
  const token = await requestToken(deps.client, secret, record);
  return resumeDeferral(
    { client: deps.client, deferrals: new DeferralStore(deps.client), secrets: deps.secrets, authorize: undefined },
    { token, payload: { decisions } as never, ...(options.principal !== undefined ? { principal: options.principal } : {}), ...(options.shown !== undefined ? { shown: options.shown } : {}) },
  );
}

/** AI1001 for an approval id that is not a string. */
export function approvalIdOf(options: { approvalId?: unknown }): string {
  if (typeof options?.approvalId !== "string" || options.approvalId === "") throw new InvalidDefinitionError({ subject: "thread.decide", problem: "approvalId must be a non-empty string" });
  return options.approvalId;
}
