import type { Client } from "@temporalio/client";
import { decidedCallIds, decisionList, type Decision } from "../../core/approval.js";
import type { DeferralRecord } from "../../core/deferral-record.js";
import { DeferralNotFoundError } from "../../core/errors/deferrals.js";
import { DeferralSecretError } from "../../core/errors/setup.js";
import { ResumePayloadError } from "../../core/errors/deferrals.js";
import type { Principal } from "../../core/json.js";
import { DeferralStore } from "../deferral-store.js";
import { requestToken } from "../request-token.js";
import { resumeDeferral, type ResumeResult } from "../resume.js";
import { deferralRecordQuery } from "../../core/wire/run.js";
import { parseDeferralId } from "../../core/deferral-id.js";
import { threadIdOf, type ThreadAccess } from "./thread-access.js";
import { approvalIdOf, type DecideOptions } from "../shared-options.js";
import type { ThreadTarget } from "./thread-types.js";

/**
 * `ThreadsClient.decide`: asks `thread.get` before anything is read (whether a request with
 * that id exists is what `state()` shows, so a caller refused it learns nothing from the id,
 * and costs nothing), reads the request from the thread, asks `thread.decide` with its calls,
 * meta and the decisions, then sends the decision as the request's token would.
 */
export async function decideThread(access: ThreadAccess, options: ThreadTarget & DecideOptions): Promise<ResumeResult> {
  const threadId = threadIdOf(options, "thread.decide");
  const approvalId = approvalIdOf(options, "threads.decide()");
  const decisions = decisionList(options.decisions);
  const secret = secretOf(access.secrets);
  await access.check({ threadId, principal: options.principal }, "thread.get");
  // A request of the thread's sub-agent (or of one of its own) is held by that run: read it there.
  const holder = parseDeferralId(approvalId)?.runId;
  const fromSubAgent = holder !== undefined && isSubAgentOf(threadId, holder) && (await startedBy(access.client, holder, threadId));
  const record = fromSubAgent
    ? await access.query(threadId, () => access.client.workflow.getHandle(holder).query(deferralRecordQuery, approvalId)).catch(() => undefined)
    : await access.query(threadId, () => access.handle(threadId).query(deferralRecordQuery, approvalId));
  if (!record || !heldBy(threadId, record.runId)) throw new DeferralNotFoundError({ deferralId: approvalId });
  await access.ask({
    operation: "thread.decide",
    principal: options.principal,
    threadId,
    approvalId,
    calls: (record.approval?.calls ?? []).map(({ toolCallId, toolName, arguments: args }) => ({ toolCallId, toolName, arguments: args })),
    meta: record.meta,
    decisions,
    decides: decidedCallIds({ decisions }),
  });
  return decideForThread({ client: access.client, secrets: access.secrets }, secret, threadId, record, decisions, {
    ...(options.principal !== undefined ? { principal: options.principal } : {}),
    ...(options.shown !== undefined ? { shown: options.shown } : {}),
  });
}

/** The secret a decision's token is minted with: without one, RC5040 before anything is asked or read. */
function secretOf(secrets: Buffer[] | undefined): Buffer {
  const secret = secrets?.[0];
  if (!secret) throw new DeferralSecretError({ reason: "the threads client was made without deferral: { secret }, which decide() mints the request's token with (agents.threads shares its AgentClient's)" });
  return secret;
}

/**
 * Sends a decision on a thread's approval request as its token would: the client mints the
 * token with its secret (it never enters history) and resumes the request, whose checks are
 * a run's (proof, lifecycle, one decision per call: RC5049 with the token unspent). The
 * caller authorized it already (`thread.decide`).
 */
async function decideForThread(
  deps: { client: Client; secrets: Buffer[] | undefined },
  secret: Buffer,
  threadId: string,
  record: DeferralRecord,
  decisions: Decision[],
  options: { principal?: Principal; shown?: string },
): Promise<ResumeResult> {
  if (!record.approval) throw new ResumePayloadError({ deferralId: record.id, issues: ["this is not an approval request"] });
  if (!heldBy(threadId, record.runId)) throw new DeferralNotFoundError({ deferralId: record.id });
  const token = await requestToken(deps.client, secret, record);
  return resumeDeferral(
    { client: deps.client, deferrals: new DeferralStore(deps.client), secrets: deps.secrets, authorize: undefined, authorizedRecord: record },
    { token, payload: { decisions } as never, ...(options.principal !== undefined ? { principal: options.principal } : {}), ...(options.shown !== undefined ? { shown: options.shown } : {}) },
  );
}

/** Whether `runId` is a sub-agent's run of the thread's turns (`<threadId>/agent/…`, theirs included). */
function isSubAgentOf(threadId: string, runId: string): boolean {
  return runId.startsWith(`${threadId}/agent/`);
}

/** Whether a request held by `runId` is the thread's to decide: its own, or its sub-agents'. */
function heldBy(threadId: string, runId: string): boolean {
  return runId === threadId || isSubAgentOf(threadId, runId);
}

/**
 * Whether the thread started `runId` (or a run it started did): a run anyone could have
 * started under that id is not the thread's to decide. Describes only, which Temporal does not bill.
 */
async function startedBy(client: Client, runId: string, threadId: string): Promise<boolean> {
  let current = runId;
  for (let depth = 0; depth < 8; depth++) {
    const parent = (await client.workflow.getHandle(current).describe().catch(() => undefined))?.parentExecution?.workflowId ?? undefined;
    if (parent === threadId) return true;
    if (parent === undefined || !isSubAgentOf(threadId, parent)) return false;
    current = parent;
  }
  return false;
}
