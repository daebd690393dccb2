import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from "@temporalio/client";
import { PermissionNotFoundError } from "../core/errors/deferrals.js";
import { RunNotFoundError } from "../core/errors/runs.js";
import { ThreadNotFoundError } from "../core/errors/threads.js";
import type { StandingPermission } from "../core/approval-permissions.js";
import { unwrapFailure } from "../core/errors/from-failure.js";
import { permissionsQuery, revokePermissionUpdate } from "../core/wire/permissions.js";
import { boundedQuery, DEFAULT_QUERY_TIMEOUT_MS, type QueryDeadline } from "./bounded-query.js";
import { decisionList, type ApprovalCall } from "../core/approval.js";
import { approvalTrail } from "../core/approval-trail.js";
import type { DeferralRecord, DeferralStatus } from "../core/deferral-record.js";
import { DeferralSecretError, InvalidDefinitionError } from "../core/errors/setup.js";
import { ResumePayloadError } from "../core/errors/deferrals.js";
import type { JsonObject, Principal } from "../core/json.js";
import { requestToken } from "./request-token.js";
import { allowsApprovalContext, authorizeRunRead, listedRow, unguarded, type DeferralStore } from "./deferral-store.js";
import type { ApprovalRecord, ApprovalRequestContext } from "../core/approval-context.js";
import { historiesSince, principalHistory, recordsOf, sinceOf, type ApprovalHistory, type PrincipalApprovalHistory, type PrincipalApprovalHistoryOptions } from "./approval-history.js";

export type { ApprovalHistory } from "./approval-history.js";
import { inboxRowOf, type InboxRow } from "../core/inbox-row.js";
import { authorizeRun, type AuthorizeHook, type Caller } from "./authorize.js";
import { approvalIdOf, type DecideOptions } from "./shared-options.js";
import type { ResumeOptions, ResumeResult } from "./resume.js";

/** One request of the inbox: a run (or thread) waiting for a person. */
export interface ApprovalSummary {
  /** The request's id: `approvals.get({ approvalId })`, `approvals.decide({ approvalId, … })`. */
  approvalId: string;
  /** `approval`: calls of gated tools, decided per call. `deferral`: a tool's `ctx.defer()`, answered with a payload (`resume`). */
  kind: "approval" | "deferral";
  /** The run's (or thread's) workflow id. */
  runId: string;
  agentId?: string;
  status: DeferralStatus;
  /** What waits: every call of an approval request (with its tool's `resultSchema`, what a `respond` decision must fit, when it has one), or the deferred call. */
  calls: Array<Pick<ApprovalCall, "toolCallId" | "toolName" | "arguments" | "resultSchema">>;
  /** The request's meta (`requires` and the like): what the authorize hook routes on. */
  meta: JsonObject;
  deferredAt: string;
  expiresAt: string;
  /** Who the run acts for. */
  principal?: Principal;
  /** Pass as `shown` when deciding: the decision is refused (RC5058) if the calls changed since. */
  callFingerprint?: string;
  /** The run that waits on this request too, when it is a sub-agent's (listings only). */
  parentRunId?: string;
  /** The ids of its calls decided one at a time already (the request waits for the others); absent when none is. */
  decided?: string[];
}

/** One request as `approvals.get` reads it: the row, who the run acts for, and, when `authorize` allows, why the agent asks. */
export interface ApprovalDetail extends ApprovalSummary {
  /** Who the run (or thread) acts for: the principal it was started or messaged as, restored from storage. */
  actsFor?: Principal;
  /**
   * What led to the request: the user's message it answers, the agent's last messages (the
   * one that made the calls included) and the tool results it read since, each cut to 2,000
   * characters (`truncated`). Present only when the hook allows `approval.context` (asked
   * with the calls and meta) and the run still holds the request's message. Model and tool
   * text: escape it where you show it.
   */
  context?: ApprovalRequestContext;
}

/** `approvals.history({ runId })` or `({ threadId })`: every request of one run or thread. */
export type RunApprovalHistoryOptions = {
  /** Only the entries at or after this instant (and the requests that have one). */
  since?: Date | string;
} & (
  | {
      /** The run's (or a thread's) workflow id, as an `ApprovalSummary`'s `runId`. */
      runId: string;
      threadId?: never;
    }
  | {
      /** The thread's id (its workflow id: the same as giving it as `runId`). */
      threadId: string;
      runId?: never;
    }
);

/** `approvals.history({ runId })`: the life of each approval request of the run, oldest first. */
export interface RunApprovalHistory {
  runId: string;
  requests: ApprovalHistory[];
}

export interface ListApprovalsOptions extends Caller {
  /** Only requests of this agent. */
  agentId?: string;
  /** Only in these states. Default `deferred` (waiting for a decision). */
  status?: DeferralStatus | DeferralStatus[];
  /** Only requests whose `meta.requires` names this (a role, a permission). */
  requires?: string;
  /** From the previous page. */
  cursor?: string;
  /** Rows to look at for this page: 1 to 1,000, default 50. A page may hold fewer once filtered, and still have a next. */
  limit?: number;
}


/** Pages read in one `list()` call while `requires` matches none of their rows. */
const MAX_EMPTY_PAGES = 5;

/**
 * One inbox for what waits on people: approval requests of gated tools and `ctx.defer()`
 * deferrals, across runs, listed from Temporal visibility (which trails writes by a moment)
 * and read from the runs that hold them. Listing asks the `authorize` hook per row
 * (`deferral.list`), reading asks `deferral.get`, deciding asks `deferral.get` before it
 * reads the request and then `resume` (the hook sees the decisions as the payload).
 * Deciding needs the client's `deferral: { secret }`: the client mints the request's token,
 * which never enters history.
 */
export class ApprovalInbox {
  /** @internal Made by `AgentClient` (`agents.approvals`). */
  constructor(
    private readonly deps: {
      client: Client;
      /** The client's task queue: the inbox lists the requests of its runs and threads, not every app's in the namespace. */
      taskQueue: string;
      deferrals: DeferralStore;
      secrets: Buffer[] | undefined;
      resume(options: ResumeOptions): Promise<ResumeResult>;
      authorize?: AuthorizeHook;
      reads?: QueryDeadline;
    },
  ) {}

  /** A page of waiting requests (default `status: "deferred"`), newest first as visibility orders them. */
  async list(options: ListApprovalsOptions = {}): Promise<{ approvals: ApprovalSummary[]; cursor?: string }> {
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new InvalidDefinitionError({ subject: "approvals.list()", problem: "limit must be a whole number from 1 to 1000" });
    if (options.requires !== undefined && typeof options.requires !== "string") throw new InvalidDefinitionError({ subject: "approvals.list()", problem: "requires must be a string" });
    // `requires` lives in each record's meta, not in visibility: a page may match none of its
    // rows, so further pages are read (a few at most) until one does or none are left.
    let cursor = options.cursor;
    let approvals: ApprovalSummary[] = [];
    for (let pages = 1; ; pages++) {
      const page = await this.deps.deferrals.list({
        status: options.status ?? "deferred",
        taskQueue: this.deps.taskQueue,
        ...(options.agentId !== undefined ? { agentId: options.agentId } : {}),
        ...(options.principal !== undefined ? { principal: options.principal } : {}),
        limit,
        ...(cursor ? { cursor } : {}),
      });
      // Each row as its run's memo keeps it, listed with the page (no query, no billed action);
      // a request made before rows were kept, or too heavy to copy, is read from its run (a
      // query). The rows were authorized as a listing; their records are read as part of it.
      const summaries = await Promise.all(
        page.deferrals.map(async (listed): Promise<ApprovalSummary | undefined> => {
          const row = listedRow(listed);
          const summary = row ? { ...summaryOfRow(row, listed.runId), status: listed.status } : await unguarded(this.deps.deferrals).getRecord({ deferralId: listed.deferralId }).then(summaryOf, () => undefined);
          return summary && { ...summary, ...(listed.parentRunId ? { parentRunId: listed.parentRunId } : {}) };
        }),
      );
      approvals = summaries
        .flatMap((summary) => (summary ? [summary] : []))
        .filter((s) => options.requires === undefined || (Array.isArray(s.meta.requires) && s.meta.requires.includes(options.requires)));
      cursor = page.cursor;
      if (approvals.length > 0 || !cursor || pages >= MAX_EMPTY_PAGES) break;
    }
    return { approvals, ...(cursor ? { cursor } : {}) };
  }

  /**
   * One request, as the inbox shows it, with who the run acts for (`actsFor`) and why the
   * agent asks (`context`). RC5046 when there is none, AI1013 when the hook refuses
   * `deferral.get`. The context is read with the record, in the one query `get` makes (a
   * billed action); the hook is then asked `approval.context` with the calls and meta, and a
   * refusal leaves `context` out (the call alone, no error).
   */
  async get(options: { approvalId: string } & Caller): Promise<ApprovalDetail> {
    const { context, ...record } = await this.readWithContext({ ...options, approvalId: approvalIdOf(options, "approvals.get()") });
    return { ...summaryOf(record), ...(record.principal ? { actsFor: record.principal } : {}), ...(context ? { context } : {}) };
  }

  /** @internal The record as `get` reads it (one query, `deferral.get`), with `context` only where `approval.context` allows it: the inbox page's read. */
  async readWithContext(options: { approvalId: string } & Caller): Promise<ApprovalRecord> {
    const { context, ...record } = await this.deps.deferrals.getApprovalRecord({ ...options, deferralId: options.approvalId });
    return context ? await withAllowedContext(this.deps.deferrals, record, context, options.principal) : record;
  }

  /**
   * The life of one request, oldest first: made (with its calls and `requires`), reminded,
   * escalated, decided call by call (who, when, on what `callFingerprint`, an edit as the
   * changes it made to the model's input, the note, reason or response), expired or denied.
   * Read from the request's record as `get` reads it: authorized as `deferral.get` (AI1013,
   * asked before anything is read), RC5046 for an id that names none, one query (a billed
   * action, as `get`), decoded by the client's codec like every payload.
   */
  async history(options: { approvalId: string } & Caller): Promise<ApprovalHistory>;
  /**
   * The life of every approval request of one run or thread (`runId`: its workflow id, as a
   * row's `runId`), oldest first, each as `history({ approvalId })` reads it; with `since`,
   * only the entries at or after it (and the requests that have one). Authorized as
   * `run.state` on `runId` before anything is read (AI1013); AI1010 for an id that names no
   * run. One query per 100 requests (a billed action each), decoded by the client's codec.
   */
  async history(options: RunApprovalHistoryOptions & Caller): Promise<RunApprovalHistory>;
  /**
   * The requests a principal took part in since `since`, across the client's task queue's
   * runs and threads: those `decidedBy` decided a call of (or denied, or revoked a grant of),
   * those made on behalf of `actingFor`, or (both given) those that are both; each with its
   * entries at or after `since`, oldest first within a page. A page reads one visibility
   * listing (free) of the runs and threads that ever deferred and were open since `since`,
   * then each one the hook allows as `run.state` (a refused one is left out, with no error)
   * with one query per 100 requests (a billed action each); with `actingFor`, a run whose
   * memo shows it acts for someone else is not read. `limit` runs and threads per page,
   * `cursor` for the next. AI1001 for a missing or bad `since`, an id that is not one, a
   * `limit` out of range or a cursor this client did not hand out for these filters.
   */
  async history(options: PrincipalApprovalHistoryOptions & Caller): Promise<PrincipalApprovalHistory>;
  async history(options: ({ approvalId: string } | RunApprovalHistoryOptions | PrincipalApprovalHistoryOptions) & Caller): Promise<ApprovalHistory | RunApprovalHistory | PrincipalApprovalHistory> {
    const shape = options && typeof options === "object" ? options : ({} as Record<string, unknown>);
    const byPrincipal = "decidedBy" in shape || "actingFor" in shape;
    if ([byPrincipal, "runId" in shape, "threadId" in shape, "approvalId" in shape].filter(Boolean).length > 1) {
      throw new InvalidDefinitionError({ subject: "approvals.history()", problem: "give one of approvalId, runId, threadId, or decidedBy/actingFor" });
    }
    if (byPrincipal) return principalHistory({ ...this.deps, historyOf }, options as PrincipalApprovalHistoryOptions & Caller);
    if ("runId" in shape || "threadId" in shape) return this.#runHistory(options as RunApprovalHistoryOptions & Caller);
    const record = await this.deps.deferrals.getRecord({ ...options, deferralId: approvalIdOf(options as { approvalId: string }, "approvals.history()") });
    return historyOf(record);
  }

  async #runHistory(options: RunApprovalHistoryOptions & Caller): Promise<RunApprovalHistory> {
    const runId = options.runId ?? options.threadId;
    const named = options.runId !== undefined ? "runId" : "threadId";
    if (typeof runId !== "string" || runId.length === 0 || runId.length > 1000) throw new InvalidDefinitionError({ subject: "approvals.history()", problem: `${named} must be a run's or a thread's workflow id` });
    const since = sinceOf(options.since, false);
    await authorizeRunRead(this.deps.deferrals, runId, options.principal);
    let records: DeferralRecord[];
    try {
      records = await recordsOf(this.deps.client, runId);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new RunNotFoundError({ runId });
      throw err;
    }
    return { runId, requests: historiesSince(records, since, historyOf) };
  }

  /**
   * The standing permissions granted in a run or thread (docs/approvals.md, "Standing
   * permissions"), oldest first, revoked and lapsed ones included (`revoked`, `until`).
   * Authorized as `permission.list` (AI1013, asked before anything is read); one query (a
   * billed action), answered by a worker; decoded by the client's codec. AI1010 (AI1020 for
   * `threadId`) when there is no such run (thread).
   */
  async permissions(options: PermissionsTarget): Promise<StandingPermission[]> {
    const { id, host } = hostOf(options, "approvals.permissions()");
    await authorizeRun(this.deps.authorize, { operation: "permission.list", principal: options.principal, runId: id, host });
    const handle = this.deps.client.workflow.getHandle(id);
    try {
      return await boundedQuery(this.deps.client, this.deps.reads ?? { timeoutMs: DEFAULT_QUERY_TIMEOUT_MS }, id, () => handle.query(permissionsQuery));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw notFound(id, host);
      throw err;
    }
  }

  /**
   * Ends a standing permission: later calls it would have let through ask again (a call the
   * worker let through while the model wrote, that has not run yet, runs nothing). Kept on
   * the record of the request that granted it (`approvals.history`: a `revoked` entry, with
   * `principal` as who). Authorized as `permission.revoke` (AI1013); AI1032, nothing
   * changed, when no permission with that id is in force (a run or thread that ended holds
   * none); AI1010 / AI1020 when there is no such run or thread. One update (a billed action).
   */
  async revoke(options: PermissionsTarget & RevokePermissionOptions): Promise<StandingPermission> {
    const { id, host } = hostOf(options, "approvals.revoke()");
    const permissionId = options.permissionId;
    if (typeof permissionId !== "string" || permissionId === "" || permissionId.length > 1_000) {
      throw new InvalidDefinitionError({ subject: "approvals.revoke()", problem: "permissionId must be a permission's id, as approvals.permissions() lists it" });
    }
    await authorizeRun(this.deps.authorize, { operation: "permission.revoke", principal: options.principal, runId: id, host, permissionId });
    try {
      return await this.deps.client.workflow.getHandle(id).executeUpdate(revokePermissionUpdate, { args: [{ permissionId, ...(options.principal ? { by: options.principal } : {}) }] });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw unwrapFailure(err);
      if (err instanceof WorkflowNotFoundError) {
        // A run or thread that ended keeps no permission in force; one that never was is named so.
        const exists = await this.deps.client.workflow.getHandle(id).describe().then(() => true, () => false);
        throw exists ? new PermissionNotFoundError({ permissionId, runId: id }) : notFound(id, host);
      }
      throw err;
    }
  }

  /**
   * Decides an approval request, one decision per call it lists: the client mints the
   * request's token with its secret and resumes with `{ decisions }`. The request is read as
   * `approvals.get` reads it (`deferral.get` is asked first: AI1013, nothing read, whether or
   * not the id exists), then the checks of any resume apply (authorize as `resume`, denied,
   * expired, RC5049 for decisions that do not fit, token unspent), and a second decision
   * reads the first's outcome as `duplicate`.
   */
  async decide(options: DecideOptions & Caller): Promise<ResumeResult> {
    const approvalId = approvalIdOf(options, "approvals.decide()");
    const { decisions } = options;
    const secret = this.deps.secrets?.[0];
    if (!secret) throw new DeferralSecretError({ reason: "the client was made without deferral: { secret }, which approvals.decide() mints the request's token with" });
    // Read as the caller (`deferral.get`, asked before the read): whether a request with this
    // id exists is what reading it shows, so a caller refused it learns nothing from the id.
    const record = await this.deps.deferrals.getRecord({ deferralId: approvalId, ...(options.principal !== undefined ? { principal: options.principal } : {}) });
    if (!record.approval) {
      throw new ResumePayloadError({ deferralId: approvalId, issues: ["this deferral is not an approval request: answer it with resume({ token, payload }) and a payload its schema accepts"] });
    }
    const token = await requestToken(this.deps.client, secret, record);
    return this.deps.resume({
      token,
      payload: { decisions: decisionList(decisions) } as never,
      ...(options.principal !== undefined ? { principal: options.principal } : {}),
      ...(options.shown !== undefined ? { shown: options.shown } : {}),
    });
  }
}

/** AI1010 or AI1020 for a run or thread that does not exist. */
function notFound(id: string, host: "run" | "thread"): Error {
  return host === "run" ? new RunNotFoundError({ runId: id }) : new ThreadNotFoundError({ threadId: id });
}

/** Where standing permissions are listed or revoked: a run's or a thread's, for whom. */
export type PermissionsTarget = ({ runId: string; threadId?: never } | { threadId: string; runId?: never }) & Caller;

/** Reads a standing permission's host: its workflow id and kind; AI1001 for neither or both. */
function hostOf(options: PermissionsTarget, subject: string): { id: string; host: "run" | "thread" } {
  const { runId, threadId } = (options ?? {}) as { runId?: unknown; threadId?: unknown };
  if ((runId === undefined) === (threadId === undefined) || typeof (runId ?? threadId) !== "string" || (runId ?? threadId) === "") {
    throw new InvalidDefinitionError({ subject, problem: "give exactly one of runId or threadId (a non-empty string)" });
  }
  return { id: (runId ?? threadId) as string, host: runId !== undefined ? "run" : "thread" };
}

export interface RevokePermissionOptions {
  /** As `approvals.permissions()` lists it (`<approvalId>#<toolCallId>`). */
  permissionId: string;
}

/** `record` with `context` when the hook allows `principal` to see it (`approval.context`, asked with the calls and meta), else the record alone. */
export async function withAllowedContext(store: DeferralStore, record: DeferralRecord, context: ApprovalRequestContext, principal: Principal | undefined): Promise<ApprovalRecord> {
  return (await allowsApprovalContext(store, record, inboxRowOf(record).calls, principal)) ? { ...record, context } : record;
}

function historyOf(record: DeferralRecord): ApprovalHistory {
  return { approvalId: record.id, runId: record.runId, ...(record.agentId ? { agentId: record.agentId } : {}), status: record.status, entries: approvalTrail(record) };
}

function summaryOf(record: DeferralRecord): ApprovalSummary {
  return { ...summaryOfRow(inboxRowOf(record), record.runId), status: record.status };
}

function summaryOfRow(row: InboxRow, runId: string): Omit<ApprovalSummary, "status"> {
  const { id, ...rest } = row;
  return { approvalId: id, runId, ...rest };
}
