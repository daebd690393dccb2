import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@temporalio/client";
import { WorkflowUpdateFailedError } from "@temporalio/client";
import type { DeferralRecord, DeferralView } from "../core/deferral-record.js";
import { approvalContextOf, type ApprovalRequestContext } from "../core/approval-context.js";
import { resumeUpdate } from "../core/wire/run.js";
import { parseDeferralId } from "../core/deferral-id.js";
import { verifyResumeToken, type TokenClaims } from "../deferral/token.js";
import { ContextOverflowError } from "../core/errors/limits.js";
import { DeferralChangedError, DeferralDeniedError, DeferralExpiredError, DeferralNotFoundError, NotPlainJsonError, ResumeTokenError, ResumeUnauthorizedError, ToolCallMismatchError } from "../core/errors/deferrals.js";
import { DeferralSecretError, InvalidDefinitionError } from "../core/errors/setup.js";
import { unwrapFailure } from "../core/errors/from-failure.js";
import { plainJsonProblem } from "../core/json-check.js";
import { bindingProblem, proofOf } from "../core/proof.js";
import { isCallFingerprint } from "../core/fingerprint.js";
import { decidedCallIds, decidedEntryOf } from "../core/approval.js";
import { askAuthorize, type AuthorizeHook } from "./authorize.js";
import { assertPayloadFits, MAX_PRINCIPAL_BYTES, PRINCIPAL_HINT } from "../core/payload-size.js";
import { estimateMessageTokens } from "../model/token-estimate.js";
import type { DeferralStore } from "./deferral-store.js";
import type { JsonValue, Principal } from "../core/json.js";
import type { RunOutcome } from "../core/deferral-record.js";

export interface ResumeOptions {
  /** The token the tool handler handed out (`ctx.deferral.token`). */
  token: string;
  /** The answer; it becomes the deferred tool call's result. Plain JSON. */
  payload: JsonValue;
  /** Who is resuming; recorded as `resumedBy`, gains none of the run's authority. */
  principal?: Principal;
  /**
   * The deferring principal, freshly verified by your service from a live credential (same
   * `id`). The resumed run then acts for it as verified, instead of as restored data. The
   * authorize hook sees it (`reverify`, a frozen copy) and that copy is what is sent.
   */
  reverify?: Principal;
  /** Overrides the client-wide hook for this call; asked with `operation: "resume"`. */
  authorize?: AuthorizeHook;
  /**
   * The record's `callFingerprint` as read when the request was shown to the approver
   * (`deferrals.getRecord`, `previewResume`): the run refuses the resume with RC5058, the
   * token unspent and the record untouched, unless its deferred call (tool name and
   * arguments) is still exactly that. Optional; the approval page always sends it.
   */
  shown?: string;
}

/** `previewResume`: what a resume with `token` would meet, short of spending it. */
export type ResumePreview =
  | { status: "pending"; deferralId: string; deferral: DeferralRecord }
  | ResumeResult;

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
  /** Read without the hook: a resume is authorized as `resume`, with the record it reads. */
  deferrals: DeferralStore;
  /** The deferral secrets (current first); absent when the client was made without them (RC5040). */
  secrets: Buffer[] | undefined;
  authorize: AuthorizeHook | undefined;
  /** The run's next settled state, waited for by reading (when it continued as new before settling). */
  follow?: (runId: string) => Promise<RunOutcome>;
  /** The run a resume of `runId`'s deferral answers for: its own, or the caller of a sub-agent's run. */
  waitingRun?: (runId: string) => Promise<string>;
  /** What `waiting` settled in next once the sub-agent's deferral was resumed; undefined when it has not settled since (or cannot say). */
  subAgentOutcome?: (waiting: string, deferralId: string) => Promise<RunOutcome | undefined>;
  /** The record the caller authorized the decision against, when it did so itself (a thread's `thread.decide`). */
  authorizedRecord?: DeferralRecord;
}

/** A resume that passed the checks before the payload's: what sending it needs. */
interface Checked {
  claims: TokenClaims;
  runId: string;
  /** The frozen copy the hook saw; what is sent. */
  reverify: Principal | undefined;
  /** Absent when no check needed the record (no hook, no context window). */
  view?: DeferralRecord | DeferralView;
}

/** `AgentClient.resume()`: the checks in their documented order, then the resume update. */
export async function resumeDeferral(deps: ResumeDeps, options: ResumeOptions): Promise<ResumeResult> {
  const checked = await checkResume(deps, options, false);
  if ("done" in checked) return checked.done;
  const view = checked.view;
  // A duplicate is answered with the first outcome whatever it carries; the rest checks a first resume.
  const duplicate = view !== undefined && view.status !== "deferred";
  if (view && !duplicate) {
    for (const value of [options.payload, options.principal ?? null, options.reverify ?? null]) {
      const problem = plainJsonProblem(value);
      if (problem) throw new NotPlainJsonError({ what: "payload", ...problem });
    }
    await refuseOverflow(view, options.payload);
  }
  return sendResume(deps, checked, options, duplicate);
}

/**
 * Every check of a resume that comes before its payload (token, record, call binding,
 * authorize with `payload: undefined`, denied, deadline), changing nothing: the record the
 * caller may answer, or the first outcome when it was answered already.
 */
export async function previewResume(deps: ResumeDeps, options: Omit<ResumeOptions, "payload">, withContext = false): Promise<ResumePreview> {
  const asked = { ...options, payload: undefined as unknown as JsonValue };
  const checked = await checkResume(deps, asked, true, withContext);
  if ("done" in checked) return checked.done;
  for (const value of [options.principal ?? null, options.reverify ?? null]) {
    const problem = plainJsonProblem(value);
    if (problem) throw new NotPlainJsonError({ what: "payload", ...problem });
  }
  const view = checked.view!;
  if (view.status !== "deferred") return sendResume(deps, checked, asked, true);
  return { status: "pending", deferralId: view.id, deferral: view };
}

async function checkResume(deps: ResumeDeps, options: ResumeOptions, needRecord: boolean, withContext = false): Promise<Checked | { done: ResumeResult }> {
  if (!deps.secrets) {
    throw new DeferralSecretError({ reason: "this AgentClient was created without deferral: { secret }" });
  }
  const claims = verifyResumeToken(deps.secrets, options?.token);
  // Not a fingerprint at all is the caller's mistake, not a changed call: said before anything is read or sent.
  if (options.shown !== undefined && !isCallFingerprint(options.shown)) {
    throw new InvalidDefinitionError({ subject: "resume()", problem: "shown must be the callFingerprint (64 hex digits) of the record that was shown" });
  }
  const located = parseDeferralId(claims.deferralId);
  if (!located) throw new DeferralNotFoundError({ deferralId: claims.deferralId });
  // What this client can see of the binding; the workflow checks the first run id.
  const problem = claims.binding && bindingProblem(claims.binding, { ...claims.binding, namespace: deps.client.options.namespace, workflowId: located.runId });
  if (problem) throw new ResumeTokenError({ reason: problem });
  const authorize = options.authorize ?? deps.authorize;
  const reverify = frozenCopy(options.reverify);
  const plainJson = [options.payload, options.principal ?? null, options.reverify ?? null].every((v) => !plainJsonProblem(v));
  // The record is read only when something needs it: the authorize hook (meta, principal),
  // the context-window estimate, or telling a duplicate from a malformed payload. Otherwise
  // the resume update's own checks answer with the same codes, one round trip sooner.
  if (!needRecord && !authorize && !claims.window && plainJson) return { claims, runId: located.runId, reverify };

  // Only the context-window estimate needs the transcript: the rest reads the record alone,
  // whose size does not grow with the run.
  // An approval page (`withContext`) reads what led to the request with the record, in the same query.
  const read = await untilRecorded(deps, located.runId, (): Promise<DeferralRecord & Partial<Pick<DeferralView, "stepState">> & { context?: ApprovalRequestContext }> =>
    claims.window ? deps.deferrals.get({ deferralId: claims.deferralId }) : withContext ? deps.deferrals.getApprovalRecord({ deferralId: claims.deferralId }) : deps.deferrals.getRecord({ deferralId: claims.deferralId }),
  );
  const context = withContext ? (read.context ?? (read.stepState ? approvalContextOf(read.stepState.messages, read.toolCallId) : undefined)) : undefined;
  const { context: _context, ...unshown } = read;
  const view = context ? { ...unshown, context } : unshown;
  if (view.toolCallId !== claims.toolCallId) {
    throw new ToolCallMismatchError({ deferralId: view.id, toolCallId: claims.toolCallId });
  }
  await authorizeResume(authorize, options, view, reverify);
  if (reverify !== undefined && reverify?.id !== view.principal?.id) {
    throw new ResumeUnauthorizedError({ deferralId: view.id, returned: "a reverify principal that is not the one the run deferred as" });
  }
  if (view.status === "denied") throw new DeferralDeniedError({ deferralId: view.id, reason: view.deniedReason ?? "denied" });
  if (view.status === "expired" || (view.status === "deferred" && Date.now() >= Date.parse(view.expiresAt))) {
    throw new DeferralExpiredError({ deferralId: view.id, expiresAt: view.expiresAt });
  }
  if (view.status !== "deferred" && view.outcome) return { done: await duplicateOf(deps, located.runId, view.id, decidedEntryOf(view, options.payload)?.outcome ?? view.outcome) };
  // The run checks it again; this only says so before the update (records from older workers have no fingerprint).
  if (options.shown !== undefined && view.status === "deferred" && view.callFingerprint !== undefined && options.shown !== view.callFingerprint) {
    throw new DeferralChangedError({ deferralId: view.id, shown: options.shown.slice(0, 64), current: view.callFingerprint });
  }
  return { claims, runId: located.runId, reverify, view };
}

/**
 * A deep-frozen copy of a plain-JSON principal, so what the hook approved is what is sent
 * (neither the hook nor the caller can change it in between). Not plain JSON: left as it
 * is, to be refused with RC5042 before anything is sent.
 */
function frozenCopy(principal: Principal | undefined): Principal | undefined {
  if (principal === undefined || plainJsonProblem(principal)) return principal;
  return deepFreeze(structuredClone(principal));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** The resume update itself; a run that closed meanwhile is answered from its record. */
async function sendResume(deps: ResumeDeps, checked: Checked, options: ResumeOptions, duplicate: boolean): Promise<ResumeResult> {
  const { claims, runId, reverify } = checked;
  // Refused before the update, so the token stays unspent and the deferral resumable.
  if (!duplicate) {
    assertPayloadFits(options.payload, "The resume payload");
    for (const [name, principal] of [["principal", options.principal], ["reverify principal", reverify]] as const) {
      if (principal !== undefined) assertPayloadFits(principal, `The resume's ${name}`, { limitBytes: MAX_PRINCIPAL_BYTES, hint: PRINCIPAL_HINT });
    }
  }
  try {
    const request = {
      deferralId: claims.deferralId,
      toolCallId: claims.toolCallId,
      // The workflow checks it against the digest it stored; the token itself never leaves this process.
      proof: proofOf(options.token),
      ...(claims.binding ? { binding: claims.binding } : {}),
      payload: duplicate ? null : options.payload,
      ...(options.principal && !duplicate ? { resumedBy: options.principal } : {}),
      ...(reverify && !duplicate ? { reverify } : {}),
      ...(options.shown !== undefined && !duplicate ? { shown: options.shown } : {}),
      // What the hook was asked about: a request that escalates after this was read refuses it (AI1039).
      ...(escalatedFlag(checked.view ?? deps.authorizedRecord, duplicate)),
    };
    const reply = await resumeOnceRecorded(deps, runId, claims.deferralId, () =>
      deps.client.workflow.getHandle(runId).executeUpdate(resumeUpdate, { args: [request] }),
    );
    if (reply.status === "duplicate") return await duplicateOf(deps, runId, reply.deferralId, reply.outcome);
    // A sub-agent's deferral is its caller's too: the caller's next settled state is the outcome.
    const waiting = deps.waitingRun && deps.follow ? await deps.waitingRun(runId) : runId;
    if (waiting !== runId) return { ...reply, outcome: await deps.follow!(waiting) };
    // The run continued as new before it settled again: its next settled state is the outcome.
    return reply.outcome.status === "running" && deps.follow ? { ...reply, outcome: await deps.follow(runId) } : reply;
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw unwrapFailure(err);
    if (DeferralNotFoundError.isInstance(err) && err.fields.retryLater) throw err;
    // A closed run takes no updates (and an unknown one reads RC5046 here).
    const after = await deps.deferrals.getRecord({ deferralId: claims.deferralId });
    if (after.toolCallId !== claims.toolCallId) throw new ToolCallMismatchError({ deferralId: after.id, toolCallId: claims.toolCallId });
    if (after.status !== "deferred" && after.outcome) return await duplicateOf(deps, runId, after.id, decidedEntryOf(after, options.payload)?.outcome ?? after.outcome);
    if (after.status === "denied") throw new DeferralDeniedError({ deferralId: after.id, reason: after.deniedReason ?? "denied" });
    if (after.status === "expired") throw new DeferralExpiredError({ deferralId: after.id, expiresAt: after.expiresAt });
    throw err;
  }
}

/**
 * A resume of a deferral that was resumed already: answered with what the first resume was.
 * That is the record's outcome, except for a sub-agent's deferral: its first resume answered
 * with the state the run waiting on the sub-agent settled in next, which that run kept
 * (a query, on this path only); while it has not settled since, its next settled state.
 */
async function duplicateOf(deps: ResumeDeps, runId: string, deferralId: string, recorded: RunOutcome): Promise<ResumeResult> {
  const waiting = deps.waitingRun && deps.follow ? await deps.waitingRun(runId) : runId;
  if (waiting === runId) return { status: "duplicate", deferralId, outcome: recorded };
  const outcome = (await deps.subAgentOutcome?.(waiting, deferralId)) ?? (await deps.follow!(waiting));
  return { status: "duplicate", deferralId, outcome };
}

/** How long a resume with a genuine token waits for the run to record its deferral. */
const RECORD_WAIT_MS = 10_000;

/**
 * A token exists from the moment the tool handler mints it, a little before the tool's
 * activity reports the deferral to the run: a resume sent at once (an automated approver, a
 * link clicked within the second) would read RC5046. The token's signature proves the
 * deferral was minted, so while the run still has an activity or a workflow task under way
 * (the report may be in either) the read is tried again, briefly, before RC5046 stands. A
 * parked or closed run has neither: an unknown deferral there is refused at once. Past the
 * wait, a run still under way answers RC5046 with `retryLater` (send it again). Reads are
 * queries and describes: waiting writes nothing to history.
 */
async function untilRecorded<T>(deps: ResumeDeps, runId: string, read: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + RECORD_WAIT_MS;
  for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof DeferralNotFoundError) || !(await mayStillRecord(deps.client, runId))) throw err;
      // Still under way past the wait (a call whose worker died waits out its heartbeat timeout):
      // say so, rather than that the deferral does not exist.
      if (Date.now() >= deadline) throw new DeferralNotFoundError({ deferralId: err.fields.deferralId, retryLater: true });
      await sleep(pause);
    }
  }
}

/** The resume update, sent again once the deferral is recorded if the run had not recorded it yet. */
async function resumeOnceRecorded<T>(deps: ResumeDeps, runId: string, deferralId: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (!(err instanceof WorkflowUpdateFailedError && DeferralNotFoundError.isInstance(unwrapFailure(err)))) throw err;
    // A refused update changed nothing, so it is safe to send again once the record exists.
    await untilRecorded(deps, runId, () => deps.deferrals.getRecord({ deferralId })).catch((waited: unknown) => {
      // Still being recorded says more than the refused update did; anything else, the update's own answer.
      throw DeferralNotFoundError.isInstance(waited) && waited.fields.retryLater ? waited : err;
    });
    return send();
  }
}

/** The run is running with an activity or a workflow task under way. */
async function mayStillRecord(client: Client, runId: string): Promise<boolean> {
  try {
    const { status, raw } = await client.workflow.getHandle(runId).describe();
    return status.name === "RUNNING" && ((raw.pendingActivities?.length ?? 0) > 0 || !!raw.pendingWorkflowTask);
  } catch {
    return false;
  }
}

/** Whether the request had escalated when the decision was authorized: sent only for requests that can escalate. */
function escalatedFlag(record: DeferralRecord | undefined, duplicate: boolean): { escalated?: boolean } {
  const schedule = record?.approval?.schedule;
  return schedule?.escalate && !duplicate ? { escalated: schedule.escalated !== undefined } : {};
}

async function authorizeResume(authorize: AuthorizeHook | undefined, options: ResumeOptions, view: DeferralRecord, reverify: Principal | undefined): Promise<void> {
  if (!authorize) return;
  const verdict = await askAuthorize(() =>
    authorize({
      operation: "resume",
      principal: options.principal,
      runId: view.runId,
      deferralId: view.id,
      toolCallId: view.toolCallId,
      ...(view.toolName !== undefined ? { toolName: view.toolName } : {}),
      ...(view.agentId !== undefined ? { agentId: view.agentId } : {}),
      deferral: {
        id: view.id,
        meta: view.meta,
        ...(view.agentId !== undefined ? { agentId: view.agentId } : {}),
        ...(view.toolName !== undefined ? { toolName: view.toolName } : {}),
        status: view.status,
        principal: view.principal ? { ...view.principal, restored: true } : undefined,
        deferredAt: view.deferredAt,
        expiresAt: view.expiresAt,
      },
      payload: options.payload,
      ...(reverify !== undefined ? { reverify } : {}),
      ...(view.approval && options.payload !== undefined ? { decides: decidedCallIds(options.payload) } : {}),
    }),
  );
  if (!verdict.allowed) throw new ResumeUnauthorizedError({ deferralId: view.id, returned: verdict.returned });
}

/** Refuses, before the approval is spent, a resume whose thread plus payload cannot fit the model. */
async function refuseOverflow(view: DeferralRecord | DeferralView, payload: unknown): Promise<void> {
  if (!view.contextWindow || !("stepState" in view) || !view.stepState || view.status !== "deferred") return;
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
