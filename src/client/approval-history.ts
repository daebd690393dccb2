import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { isGrpcServiceError, WorkflowNotFoundError, type Client } from "@temporalio/client";
import type { ApprovalTrailEntry } from "../core/approval-trail.js";
import { DEFERRAL_STATUSES, type DeferralRecord, type DeferralStatus } from "../core/deferral-record.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import { INBOX_MEMO_KEY, inboxRowFrom } from "../core/inbox-row.js";
import type { Principal } from "../core/json.js";
import { DeferralIdKey } from "../core/search-attributes.js";
import { deferralRecordsQuery } from "../core/wire/run.js";
import { decodePayloadAt, typedSearchAttributesOf } from "./data-converter.js";
import { authorizeRunRead, visibilityLiteral, type DeferralStore } from "./deferral-store.js";

/** An approval request's life (`approvals.history`). */
export interface ApprovalHistory {
  approvalId: string;
  /** The run's (or thread's) workflow id. */
  runId: string;
  agentId?: string;
  /** Where it stands now. */
  status: DeferralStatus;
  /** Oldest first. */
  entries: ApprovalTrailEntry[];
}

/**
 * `approvals.history({ decidedBy | actingFor, since })`: the requests a principal took part in,
 * across the client's runs and threads. Give `decidedBy`, `actingFor`, or both (a request must
 * then match both). Principals are matched by `id`.
 */
export interface PrincipalApprovalHistoryOptions {
  /** Only requests this principal decided a call of, denied, or revoked a standing permission of, at or after `since` (the `by` of a `decided`, `denied` or `revoked` entry). */
  decidedBy?: string;
  /** Only requests made on behalf of this principal: the one the run or thread acted for when it asked (the `principal` of its `asked` entry), with an entry at or after `since`. */
  actingFor?: string;
  /**
   * Required. Only entries at or after this instant, read from the runs and threads still
   * open then (running, or closed at or after it): the older ones are not read at all.
   */
  since: Date | string;
  /** From the previous page (`cursor`), with the same `decidedBy`, `actingFor` and `since`. */
  cursor?: string;
  /** Runs and threads to read for this page: 1 to 100, default 20. A page may hold fewer requests, even none, and still have a next. */
  limit?: number;
}

/** A page of `approvals.history({ decidedBy | actingFor, since })`. */
export interface PrincipalApprovalHistory {
  /** The matching requests of this page's runs and threads, oldest first by their first entry since `since`, each with its entries since then. */
  requests: ApprovalHistory[];
  /** Pass it for the next page; absent on the last one. */
  cursor?: string;
}

/** Runs and threads one page reads, at most. */
export const MAX_HISTORY_PAGE = 100;
const DEFAULT_HISTORY_PAGE = 20;
/** Queries in flight at once while a page is read: each may make a worker replay a closed run. */
const READS_AT_ONCE = 8;
const MAX_ID = 1000;
const MAX_CURSOR = 4096;
const SUBJECT = "approvals.history()";
const GRPC_INVALID_ARGUMENT = 3;

/** Every approval record a run or thread (one execution, or its latest) keeps, read by queries of 100 records each; AI1010-free: a missing one throws `WorkflowNotFoundError`. */
export async function recordsOf(client: Client, workflowId: string, executionRunId?: string): Promise<DeferralRecord[]> {
  const handle = client.workflow.getHandle(workflowId, executionRunId);
  const records: DeferralRecord[] = [];
  for (let total = Infinity; records.length < total; ) {
    const page = await handle.query(deferralRecordsQuery, { offset: records.length });
    if (page.records.length === 0) break;
    records.push(...page.records);
    total = page.total;
  }
  return records;
}

/** `since` as a date; AI1001 when it is missing (and `required`) or not a date. */
export function sinceOf(since: unknown, required: boolean): Date | undefined {
  if (since === undefined && !required) return undefined;
  const date = since instanceof Date ? since : typeof since === "string" && since.length <= 100 ? new Date(since) : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    throw new InvalidDefinitionError({ subject: SUBJECT, problem: since === undefined ? "since is required with decidedBy or actingFor (an instant: only runs and threads open since are read)" : "since is not a date" });
  }
  return date;
}

/** Requests' histories of `records`, their entries cut to those at or after `since`, those left with none dropped. */
export function historiesSince(records: DeferralRecord[], since: Date | undefined, historyOf: (record: DeferralRecord) => ApprovalHistory): ApprovalHistory[] {
  return records
    .filter((record) => record.approval)
    .map(historyOf)
    .map((h) => (since ? { ...h, entries: h.entries.filter((e) => e.at !== undefined && Date.parse(e.at) >= since.getTime()) } : h))
    .filter((h) => h.entries.length > 0);
}

interface PageCursor {
  /** Temporal's visibility page token, base64url. */
  t: string;
  /** Its seal: an HMAC over the filters it continues and `t`. */
  s: string;
}

/** Seals cursors of a client made without a deferral secret: they continue only in this process. */
const PROCESS_KEY = randomBytes(32);

/**
 * The requests `decidedBy` decided and/or made `actingFor`, since `since`: one visibility
 * page of the task queue's runs and threads that ever deferred and were open since (free),
 * each allowed as `run.state` read with one query per 100 of its requests (a billed action),
 * then filtered here. A run whose memo shows it acts for someone else is not read
 * (`actingFor`). Runs the hook refuses are left out, as if they were not there.
 */
export async function principalHistory(
  deps: { client: Client; taskQueue: string; deferrals: DeferralStore; secrets: Buffer[] | undefined; historyOf: (record: DeferralRecord) => ApprovalHistory },
  options: PrincipalApprovalHistoryOptions & { principal?: Principal },
): Promise<PrincipalApprovalHistory> {
  const { decidedBy, actingFor } = options;
  for (const [name, id] of [["decidedBy", decidedBy], ["actingFor", actingFor]] as const) {
    if (id !== undefined && (typeof id !== "string" || id.length === 0 || id.length > MAX_ID)) {
      throw new InvalidDefinitionError({ subject: SUBJECT, problem: `${name} must be a principal's id: a string of 1 to ${MAX_ID} characters` });
    }
  }
  if (decidedBy === undefined && actingFor === undefined) throw new InvalidDefinitionError({ subject: SUBJECT, problem: "give decidedBy, actingFor or both" });
  const since = sinceOf(options.since, true)!;
  const limit = options.limit ?? DEFAULT_HISTORY_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_PAGE) throw new InvalidDefinitionError({ subject: SUBJECT, problem: `limit must be a whole number from 1 to ${MAX_HISTORY_PAGE}` });
  // A cursor is sealed to these filters (with the deferral secret, else this process's key):
  // Temporal is never handed a token this client did not hand out for them.
  const keys = deps.secrets && deps.secrets.length > 0 ? deps.secrets : [PROCESS_KEY];
  const filters = JSON.stringify([deps.client.options.namespace, deps.taskQueue, decidedBy ?? null, actingFor ?? null, since.toISOString()]);
  const token = options.cursor === undefined ? undefined : tokenOf(options.cursor, filters, keys);

  // What visibility can say for free: the queue's runs and threads that ever deferred, not
  // superseded by a continue-as-new (the latest carries the records), open at or after `since`.
  const query = [
    `TaskQueue = ${visibilityLiteral(deps.taskQueue)}`,
    `WorkflowType IN ("agentRun", "agentThread")`,
    `DeferralStatus IN (${DEFERRAL_STATUSES.map(visibilityLiteral).join(", ")})`,
    `ExecutionStatus != "ContinuedAsNew"`,
    `(ExecutionStatus = "Running" OR CloseTime >= ${visibilityLiteral(since.toISOString())})`,
  ].join(" AND ");
  let response;
  try {
    response = await deps.client.workflowService.listWorkflowExecutions({
      namespace: deps.client.options.namespace,
      query,
      pageSize: limit,
      nextPageToken: token ?? Buffer.alloc(0),
    });
  } catch (err) {
    if (token && isGrpcServiceError(err) && err.code === GRPC_INVALID_ARGUMENT) throw badCursor();
    throw err;
  }

  const executions = response.executions ?? [];
  const read = async (i: number): Promise<ApprovalHistory[]> => {
    const execution = executions[i]!;
    const workflowId = execution.execution?.workflowId;
    if (!workflowId) return [];
    if (actingFor !== undefined && execution.type?.name === "agentRun" && (await actsForSomeoneElse(deps.client, execution, actingFor))) return [];
    const allowed = await authorizeRunRead(deps.deferrals, workflowId, options.principal).then(
      () => true,
      () => false,
    );
    if (!allowed) return [];
    let records: DeferralRecord[];
    try {
      records = await recordsOf(deps.client, workflowId, execution.execution?.runId ?? undefined);
    } catch (err) {
      // Deleted (or past retention) since it was listed: nothing of it is left to show.
      if (err instanceof WorkflowNotFoundError) return [];
      throw err;
    }
    // Who a request was made for is its `asked` entry's, which may be older than `since`.
    const madeFor = new Set(actingFor === undefined ? [] : records.filter((r) => r.principal?.id === actingFor).map((r) => r.id));
    return historiesSince(records, since, deps.historyOf).filter((h) => (actingFor === undefined || madeFor.has(h.approvalId)) && (decidedBy === undefined || decidedIn(h.entries, decidedBy)));
  };
  const found: ApprovalHistory[][] = new Array(executions.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(READS_AT_ONCE, executions.length) }, async () => {
      for (let i = next++; i < executions.length; i = next++) found[i] = await read(i);
    }),
  );
  const requests = found.flat().sort((a, b) => Date.parse(a.entries[0]!.at ?? "") - Date.parse(b.entries[0]!.at ?? "") || (a.approvalId < b.approvalId ? -1 : 1));
  const nextToken = response.nextPageToken;
  return nextToken && nextToken.length > 0 ? { requests, cursor: cursorOf(Buffer.from(nextToken).toString("base64url"), filters, keys[0]!) } : { requests };
}

/** Whether `decidedBy` decided a call, denied or revoked anything in `entries`. */
function decidedIn(entries: ApprovalTrailEntry[], decidedBy: string): boolean {
  return entries.some((e) => (e.type === "decided" || e.type === "denied" || e.type === "revoked") && e.by?.id === decidedBy);
}

/**
 * A run (not a thread) acts for one principal all its life, and its memo's inbox row names
 * it: a run that acts for someone else is left unread (no query). A memo this client cannot
 * decode, or that keeps no row, says nothing: the run is read.
 */
async function actsForSomeoneElse(client: Client, execution: { memo?: { fields?: Record<string, unknown> | null } | null; searchAttributes?: { indexedFields?: Record<string, unknown> | null } | null }, actingFor: string): Promise<boolean> {
  const payload = execution.memo?.fields?.[INBOX_MEMO_KEY];
  if (!payload) return false;
  const memo = await decodePayloadAt<unknown>(client.options.loadedDataConverter, 0, [payload as never]).catch(() => undefined);
  const deferralId = typedSearchAttributesOf(execution.searchAttributes?.indexedFields as never, [DeferralIdKey]).get(DeferralIdKey);
  const row = deferralId ? inboxRowFrom(memo, deferralId) : undefined;
  return row !== undefined && row.principal?.id !== actingFor;
}

function sealOf(key: Uint8Array, filters: string, token: string): string {
  return createHmac("sha256", key).update(`durable-agents/approval-history-cursor/v1\n${filters}\n${token}`).digest("base64url");
}

function cursorOf(token: string, filters: string, key: Uint8Array): string {
  const cursor: PageCursor = { t: token, s: sealOf(key, filters, token) };
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

/** The visibility token a cursor carries; AI1001 for anything this client did not hand out for these filters. */
function tokenOf(cursor: unknown, filters: string, keys: Uint8Array[]): Buffer {
  if (typeof cursor !== "string" || cursor.length === 0 || cursor.length > MAX_CURSOR || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw badCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw badCursor();
  }
  const { t, s } = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Partial<PageCursor>;
  if (typeof t !== "string" || t.length === 0 || typeof s !== "string") throw badCursor();
  const given = Buffer.from(s);
  const sealed = keys.some((key) => {
    const expected = Buffer.from(sealOf(key, filters, t));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!sealed) throw badCursor();
  return Buffer.from(t, "base64url");
}

function badCursor(): InvalidDefinitionError {
  return new InvalidDefinitionError({ subject: SUBJECT, problem: "cursor is not one a page of approvals.history() returned for these decidedBy, actingFor and since: start again without it" });
}
