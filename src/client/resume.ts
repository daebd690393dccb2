import type { Client } from "@temporalio/client";
import { WorkflowUpdateFailedError } from "@temporalio/client";
import type { DeferralView } from "../core/deferral-record.js";
import { resumeUpdate } from "../core/wire/run.js";
import { parseDeferralId } from "../core/deferral-id.js";
import { verifyResumeToken, type TokenClaims } from "../deferral/token.js";
import { ContextOverflowError } from "../core/errors/context-overflow.js";
import { DeferralDeniedError } from "../core/errors/deferral-denied.js";
import { DeferralExpiredError } from "../core/errors/deferral-expired.js";
import { DeferralNotFoundError } from "../core/errors/deferral-not-found.js";
import { DeferralSecretError } from "../core/errors/deferral-secret.js";
import { unwrapFailure } from "../core/errors/from-failure.js";
import { NotPlainJsonError } from "../core/errors/not-plain-json.js";
import { ResumeUnauthorizedError } from "../core/errors/resume-unauthorized.js";
import { ToolCallMismatchError } from "../core/errors/tool-call-mismatch.js";
import { plainJsonProblem } from "../core/json-check.js";
import { bindingProblem, proofOf } from "../core/proof.js";
import { ResumeTokenError } from "../core/errors/resume-token.js";
import { askAuthorize } from "./authorize.js";
import { assertPayloadFits, MAX_PRINCIPAL_BYTES, PRINCIPAL_HINT } from "../core/payload-size.js";
import { estimateMessageTokens } from "../model/token-estimate.js";
import type { DeferralStore } from "./deferral-store.js";
import type { JsonObject, JsonValue, Principal } from "../core/json.js";
import type { RunOutcome } from "../core/deferral-record.js";

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

/** What a resume needs from the client it runs on. */
export interface ResumeDeps {
  client: Client;
  deferrals: DeferralStore;
  /** The deferral secrets (current first); absent when the client was made without them (RC5040). */
  secrets: Buffer[] | undefined;
  authorize: AuthorizeHook | undefined;
}

/** `AgentClient.resume()`: the checks in their documented order, then the resume update. */
export async function resumeDeferral(deps: ResumeDeps, options: ResumeOptions): Promise<ResumeResult> {
  if (!deps.secrets) {
    throw new DeferralSecretError({ reason: "this AgentClient was created without deferral: { secret }" });
  }
  const claims = verifyResumeToken(deps.secrets, options?.token);
  const located = parseDeferralId(claims.deferralId);
  if (!located) throw new DeferralNotFoundError({ deferralId: claims.deferralId });
  // What this client can see of the binding; the workflow checks the first run id.
  const problem = claims.binding && bindingProblem(claims.binding, { ...claims.binding, namespace: deps.client.options.namespace, workflowId: located.runId });
  if (problem) throw new ResumeTokenError({ reason: problem });
  const authorize = options.authorize ?? deps.authorize;
  const plainJson = [options.payload, options.principal ?? null, options.reverify ?? null].every((v) => !plainJsonProblem(v));
  // The record is read only when something needs it: the authorize hook (meta, principal),
  // the context-window estimate, or telling a duplicate from a malformed payload. Otherwise
  // the resume update's own checks answer with the same codes, one round trip sooner.
  if (!authorize && !claims.window && plainJson) return sendResume(deps, located.runId, claims, options, false);

  const view = await deps.deferrals.get(claims.deferralId);
  if (view.toolCallId !== claims.toolCallId) {
    throw new ToolCallMismatchError({ deferralId: view.id, toolCallId: claims.toolCallId });
  }
  await authorizeResume(authorize, options, view);
  if (options.reverify !== undefined && options.reverify?.id !== view.principal?.id) {
    throw new ResumeUnauthorizedError({ deferralId: view.id, returned: "a reverify principal that is not the one the run deferred as" });
  }
  if (view.status === "denied") throw new DeferralDeniedError({ deferralId: view.id, reason: view.deniedReason ?? "denied" });
  if (view.status === "expired" || (view.status === "deferred" && Date.now() >= Date.parse(view.expiresAt))) {
    throw new DeferralExpiredError({ deferralId: view.id, expiresAt: view.expiresAt });
  }
  // A duplicate is answered with the first outcome whatever it carries; the rest checks a first resume.
  const duplicate = view.status !== "deferred";
  if (duplicate && view.outcome) return { status: "duplicate", deferralId: view.id, outcome: view.outcome };
  for (const value of duplicate ? [] : [options.payload, options.principal ?? null, options.reverify ?? null]) {
    const problem = plainJsonProblem(value);
    if (problem) throw new NotPlainJsonError({ what: "payload", ...problem });
  }
  if (!duplicate) await refuseOverflow(view, options.payload);
  return sendResume(deps, located.runId, claims, options, duplicate);
}

/** The resume update itself; a run that closed meanwhile is answered from its record. */
async function sendResume(deps: ResumeDeps, runId: string, claims: TokenClaims, options: ResumeOptions, duplicate: boolean): Promise<ResumeResult> {
  // Refused before the update, so the token stays unspent and the deferral resumable.
  if (!duplicate) {
    assertPayloadFits(options.payload, "The resume payload");
    for (const [name, principal] of [["principal", options.principal], ["reverify principal", options.reverify]] as const) {
      if (principal !== undefined) assertPayloadFits(principal, `The resume's ${name}`, { limitBytes: MAX_PRINCIPAL_BYTES, hint: PRINCIPAL_HINT });
    }
  }
  try {
    return await deps.client.workflow.getHandle(runId).executeUpdate(resumeUpdate, {
      args: [
        {
          deferralId: claims.deferralId,
          toolCallId: claims.toolCallId,
          // The workflow checks it against the digest it stored; the token itself never leaves this process.
          proof: proofOf(options.token),
          ...(claims.binding ? { binding: claims.binding } : {}),
          payload: duplicate ? null : options.payload,
          ...(options.principal && !duplicate ? { resumedBy: options.principal } : {}),
          ...(options.reverify && !duplicate ? { reverify: options.reverify } : {}),
        },
      ],
    });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw unwrapFailure(err);
    // A closed run takes no updates (and an unknown one reads RC5046 here).
    const after = await deps.deferrals.get(claims.deferralId);
    if (after.toolCallId !== claims.toolCallId) throw new ToolCallMismatchError({ deferralId: after.id, toolCallId: claims.toolCallId });
    if (after.status !== "deferred" && after.outcome) return { status: "duplicate", deferralId: after.id, outcome: after.outcome };
    if (after.status === "denied") throw new DeferralDeniedError({ deferralId: after.id, reason: after.deniedReason ?? "denied" });
    if (after.status === "expired") throw new DeferralExpiredError({ deferralId: after.id, expiresAt: after.expiresAt });
    throw err;
  }
}

async function authorizeResume(authorize: AuthorizeHook | undefined, options: ResumeOptions, view: DeferralView): Promise<void> {
  if (!authorize) return;
  const verdict = await askAuthorize(() =>
    authorize({
      principal: options.principal,
      deferred: view.principal ? { ...view.principal, restored: true } : undefined,
      payload: options.payload,
      record: {
        id: view.id,
        meta: view.meta,
        ...(view.agentId ? { agentId: view.agentId } : {}),
        deferredAt: view.deferredAt,
        expiresAt: view.expiresAt,
      },
    }),
  );
  if (!verdict.allowed) throw new ResumeUnauthorizedError({ deferralId: view.id, returned: verdict.returned });
}

/** Refuses, before the approval is spent, a resume whose thread plus payload cannot fit the model. */
async function refuseOverflow(view: DeferralView, payload: unknown): Promise<void> {
  if (!view.contextWindow || !view.stepState || view.status !== "deferred") return;
  const content = typeof payload === "string" ? payload : JSON.stringify(payload);
  const estimatedTokens =
    (view.overheadTokens ?? 0) +
    (await estimateMessageTokens([...view.stepState.messages, { role: "tool", tool_call_id: view.toolCallId, content }]));
  if (estimatedTokens > view.contextWindow) {
    throw new ContextOverflowError({
      detail: `the thread plus this payload is about ${estimatedTokens} tokens, over the agent's ${view.contextWindow}-token window; nothing was spent, compact the thread (replaceDeferredThread) and resume again with the same token`,
      estimatedTokens,
      contextWindow: view.contextWindow,
    });
  }
}
