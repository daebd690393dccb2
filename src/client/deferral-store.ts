import { QueryNotRegisteredError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from "@temporalio/client";
import type { Payload, QueryDefinition } from "@temporalio/common";
import { DEFERRAL_STATUSES, type DeferralRecord, type DeferralStatus, type DeferralView, type DenyReply, type DenyRequest, type ReplaceStepStateReply, type StepState } from "../core/deferral-record.js";
import { approvalRecordQuery, deferralQuery, deferralRecordQuery, denyUpdate, replaceStepStateUpdate } from "../core/wire/run.js";
import type { ApprovalRecord } from "../core/approval-context.js";
import { denyRequestProblem } from "../core/request-shapes.js";
import { DeferralAlreadyResumedError, DeferralDeniedError, DeferralExpiredError, DeferralNotFoundError } from "../core/errors/deferrals.js";
import { AgentIdKey, DeferralExpiresAtKey, DeferralIdKey, DeferralStatusKey } from "../core/search-attributes.js";
import { decodePayloadAt, typedSearchAttributesOf } from "./data-converter.js";
import { INBOX_MEMO_KEY, inboxRowFrom, type InboxRow } from "../core/inbox-row.js";
import { parseDeferralId } from "../core/deferral-id.js";
import { PayloadTooLargeError } from "../core/errors/limits.js";
import { MAX_PAYLOAD_BYTES } from "../core/payload-size.js";
import { unwrapFailure } from "../core/errors/from-failure.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import type { Principal } from "../core/json.js";
import { askAuthorize, authorizeRun, type AuthorizeHook, type Caller } from "./authorize.js";
import { boundedQuery, DEFAULT_QUERY_TIMEOUT_MS, type QueryDeadline } from "./bounded-query.js";

const STATUSES = DEFERRAL_STATUSES;

/** Which deferral a `DeferralStore` method acts on, and for whom (`authorize` is asked about `principal`). */
export interface DeferralTarget extends Caller {
  /** The deferral's id (`ctx.deferralId`, an acknowledgment's `deferralId`, a listing's row). */
  deferralId: string;
}

/** `replaceStepState`: the swap, and whether its caller vouches for the new transcript. */
export interface ReplaceStepStateOptions {
  /** The `fingerprint` of the record the new step state was made from: the swap wins only while it is current. */
  expectedFingerprint: string;
  stepState: StepState;
  /**
   * Vouches for the new transcript: it was built by your server code, so tool calls, tool
   * results and system messages the run did not have are taken as the model's, the tools'
   * and the operator's own (see `ReplaceDeferredThreadOptions.trustTranscript`).
   */
  trustTranscript?: boolean;
}

/** `deny`: why. */
export interface DenyOptions {
  /** Why the deferral is denied: the model reads it. */
  reason: string;
}

export interface ListDeferralsOptions extends Caller {
  /** Only records in these states (default: all). */
  status?: DeferralStatus | DeferralStatus[];
  /** Only deferrals of this agent. */
  agentId?: string;
  /** Only deferrals whose TTL ends before this instant. */
  expiringBefore?: Date | string;
  /** Only deferrals of runs and threads on this task queue (default: every queue in the namespace). */
  taskQueue?: string;
  /** Rows to look at for this page: 1 to 1,000, default 100. */
  limit?: number;
  /** From the previous page. */
  cursor?: string;
}

/** One row of a listing: a run's latest deferral, as Temporal visibility indexes it. */
export interface DeferralSummary {
  deferralId: string;
  runId: string;
  agentId?: string;
  status: DeferralStatus;
  expiresAt?: string;
  /** The run that waits on this one, when it is a sub-agent's run (the parent parks with it). */
  parentRunId?: string;
}

export interface DeferralPage {
  /** The rows of this page the authorize hook allowed (`deferral.list`): a page may hold fewer than `limit`, even none, and still have a next one. */
  deferrals: DeferralSummary[];
  /** Pass it for the next page; absent on the last one. */
  cursor?: string;
}

// What each store asks, and its hook-free twin for operations authorized as a whole (a
// resume reads the record it authorizes; replaceDeferredThread reads what it rewrites).
// Kept off the class so neither is part of its public surface.
const hooks = new WeakMap<DeferralStore, AuthorizeHook>();
const twins = new WeakMap<DeferralStore, DeferralStore>();

/**
 * Deferral records, read and rewritten through the run that holds them. Records never
 * contain tokens. Listing goes through Temporal visibility, which trails writes by a moment.
 * Every method asks the client's `authorize` hook first (`deferral.get`, `deferral.list`
 * per row, `deferral.replace`) with the caller's `principal`.
 */
export class DeferralStore {
  /**
   * @internal Made by `AgentClient` (`agents.deferrals`). `authorize`: the client's hook;
   * `reads`: how long `get()` waits for a worker to answer (default 5 s), then AI1015.
   */
  constructor(
    private readonly client: Client,
    authorize?: AuthorizeHook,
    private readonly reads: QueryDeadline = { timeoutMs: DEFAULT_QUERY_TIMEOUT_MS },
  ) {
    if (authorize) {
      hooks.set(this, authorize);
      twins.set(this, new DeferralStore(client, undefined, reads));
    }
  }

  /** The record with its `meta`, fingerprint and, while waiting, its step state; RC5046 when there is none, AI1013 when the hook refuses. */
  async get(options: DeferralTarget): Promise<DeferralView> {
    return this.#read(options, deferralQuery);
  }

  /**
   * The record without its step state (no transcript, no fingerprint): what a resume, an
   * acknowledgment or a listing needs, at a size that does not grow with the run's
   * transcript. RC5046 when there is none, AI1013 when the hook refuses `deferral.get`.
   */
  async getRecord(options: DeferralTarget): Promise<DeferralRecord> {
    try {
      return await this.#read(options, deferralRecordQuery);
    } catch (err) {
      if (!(err instanceof QueryNotRegisteredError) || isOversized(err)) throw err;
      // A worker older than the record query: the whole view, less what a record is not.
      const { stepState: _steps, fingerprint: _fingerprint, ...record } = await this.#read(options, deferralQuery);
      return record;
    }
  }

  /**
   * @internal The record as `getRecord` reads it, with what led to the request (the run's
   * bounded `context`), in the same one query; authorized as `deferral.get`. A worker
   * older than that query answers the record alone.
   */
  async getApprovalRecord(options: DeferralTarget): Promise<ApprovalRecord> {
    try {
      return await this.#read(options, approvalRecordQuery);
    } catch (err) {
      if (!(err instanceof QueryNotRegisteredError) || isOversized(err)) throw err;
      return this.getRecord(options);
    }
  }

  async #read<T extends DeferralRecord>(options: DeferralTarget, query: QueryDefinition<T | null, [string]>): Promise<T> {
    const deferralId = options?.deferralId;
    const located = parseDeferralId(deferralId);
    if (!located) throw new DeferralNotFoundError({ deferralId: String(deferralId) });
    await authorizeDeferral(this, "deferral.get", deferralId, options?.principal);
    let view: T | null;
    try {
      view = await boundedQuery(this.client, this.reads, located.runId, () => this.client.workflow.getHandle(located.runId).query(query, deferralId));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new DeferralNotFoundError({ deferralId });
      // Temporal refuses an answer over its blob limit (the client reports it as an unknown query).
      if (isOversized(err)) {
        throw new PayloadTooLargeError({
          what: `Deferral "${deferralId}" with its step state`,
          bytes: MAX_PAYLOAD_BYTES + 1,
          limitBytes: MAX_PAYLOAD_BYTES,
          hint: "Its transcript is too large to read in one answer: read the record with deferrals.getRecord() and the transcript a page at a time with agents.listMessages({ runId }).",
        });
      }
      throw err;
    }
    if (!view) throw new DeferralNotFoundError({ deferralId });
    return view;
  }


  /** Pages through runs' latest deferrals, filtered by status, agent and expiry, and by the hook (`deferral.list`, asked per row). */
  async list(options: ListDeferralsOptions = {}): Promise<DeferralPage> {
    const statuses = options.status === undefined ? STATUSES : [options.status].flat();
    const limit = options.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new InvalidDefinitionError({ subject: "deferrals.list()", problem: "limit must be a whole number from 1 to 1000" });
    for (const status of statuses) {
      if (!STATUSES.includes(status)) {
        throw new InvalidDefinitionError({ subject: "deferrals.list()", problem: `unknown status "${String(status)}"` });
      }
    }
    const clauses = [`DeferralStatus IN (${statuses.map(quote).join(", ")})`];
    if (options.agentId !== undefined) clauses.push(`AgentId = ${quote(options.agentId)}`);
    if (options.taskQueue !== undefined) clauses.push(`TaskQueue = ${quote(options.taskQueue)}`);
    if (options.expiringBefore !== undefined) {
      const before = new Date(options.expiringBefore);
      if (Number.isNaN(before.getTime())) {
        throw new InvalidDefinitionError({ subject: "deferrals.list()", problem: "expiringBefore is not a date" });
      }
      clauses.push(`DeferralExpiresAt < ${quote(before.toISOString())}`);
    }
    const response = await this.client.workflowService.listWorkflowExecutions({
      namespace: this.client.options.namespace,
      query: clauses.join(" AND "),
      pageSize: limit,
      nextPageToken: options.cursor ? Buffer.from(options.cursor, "base64url") : Buffer.alloc(0),
    });
    const rows = await Promise.all((response.executions ?? []).map((execution) => this.#memoRow(execution.memo?.fields?.[INBOX_MEMO_KEY])));
    const deferrals = (response.executions ?? []).flatMap((execution, i): DeferralSummary[] => {
      const attrs = typedSearchAttributesOf(execution.searchAttributes?.indexedFields, [DeferralIdKey, AgentIdKey, DeferralExpiresAtKey, DeferralStatusKey]);
      const deferralId = attrs.get(DeferralIdKey) ?? "";
      const runId = execution.execution?.workflowId ?? "";
      // A run parked with its sub-agent lists the sub-agent's deferral: the sub-agent's own row stands for it.
      const owner = parseDeferralId(deferralId)?.runId;
      if (owner !== undefined && owner !== runId) return [];
      const agentId = attrs.get(AgentIdKey);
      const expiresAt = attrs.get(DeferralExpiresAtKey);
      const parentRunId = execution.parentExecution?.workflowId;
      const summary: DeferralSummary = {
        deferralId,
        runId,
        ...(agentId ? { agentId } : {}),
        status: attrs.get(DeferralStatusKey) as DeferralStatus,
        ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
        ...(parentRunId ? { parentRunId } : {}),
      };
      const row = inboxRowFrom(rows[i], deferralId);
      if (row) inboxRows.set(summary, row);
      return [summary];
    });
    const allowed = await this.#allowed(deferrals, options.principal);
    const token = response.nextPageToken;
    return token && token.length > 0 ? { deferrals: allowed, cursor: Buffer.from(token).toString("base64url") } : { deferrals: allowed };
  }

  // A memo this client cannot decode (another codec) is no row: the inbox reads the record, which names the problem.
  async #memoRow(payload: Payload | null | undefined): Promise<unknown> {
    if (!payload) return undefined;
    return decodePayloadAt<unknown>(this.client.options.loadedDataConverter, 0, [payload]).catch(() => undefined);
  }

  async #allowed(rows: DeferralSummary[], principal: Principal | undefined): Promise<DeferralSummary[]> {
    const hook = hooks.get(this);
    if (!hook) return rows;
    const verdicts = await Promise.all(
      rows.map((row) =>
        askAuthorize(() =>
          hook({
            operation: "deferral.list",
            principal,
            runId: row.runId,
            deferralId: row.deferralId,
            ...(row.agentId !== undefined ? { agentId: row.agentId } : {}),
            status: row.status,
          }),
        ),
      ),
    );
    return rows.filter((_, i) => verdicts[i]!.allowed);
  }

  /**
   * Compare-and-swap of a waiting record's step state (only its messages change): wins
   * when `expectedFingerprint` is still current. Losing is `{ won: false }` with the record
   * as it now stands. AI1008 for a thread the run could not continue from, one that changes
   * the deferred call, or (without `trustTranscript`) one with tool calls, tool results or
   * system messages the run did not have; AI1007 for another agent's or call's state, or a
   * changed budget. AI1013 when the hook refuses `deferral.replace`.
   */
  async replaceStepState(options: DeferralTarget & ReplaceStepStateOptions): Promise<ReplaceStepStateReply> {
    const { deferralId, expectedFingerprint, stepState } = options ?? {};
    const located = parseDeferralId(deferralId);
    if (!located) throw new DeferralNotFoundError({ deferralId: String(deferralId) });
    const trusted = options?.trustTranscript === true;
    await authorizeDeferral(this, "deferral.replace", deferralId, options?.principal, trusted);
    try {
      return await this.client.workflow
        .getHandle(located.runId)
        .executeUpdate(replaceStepStateUpdate, { args: [{ deferralId, expectedFingerprint, stepState, ...(trusted ? { trustTranscript: true } : {}) }] });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw unwrapFailure(err);
      if (err instanceof WorkflowNotFoundError) {
        // The run has closed since: the swap lost to whatever closed it.
        return { won: false, deferral: await unguarded(this).get({ deferralId }) };
      }
      throw err;
    }
  }

  /**
   * Denies a waiting deferral on purpose: its tokens read RC5050 from then on, and the run
   * goes on with the model told it was denied, and why (a plain workflow's `defer()` throws
   * RC5050). Refused, changing nothing: AI1013 when the hook refuses `deferral.deny`, RC5046
   * unknown, RC5050 already denied, RC5047 expired, RC5057 already resumed. `principal` is
   * recorded as who denied it.
   */
  async deny(options: DeferralTarget & DenyOptions): Promise<DenyReply> {
    const deferralId = options?.deferralId;
    const located = parseDeferralId(deferralId);
    if (!located) throw new DeferralNotFoundError({ deferralId: String(deferralId) });
    await authorizeDeferral(this, "deferral.deny", deferralId, options?.principal);
    const request: DenyRequest = { deferralId, reason: options?.reason, ...(options?.principal ? { deniedBy: options.principal } : {}) };
    const problem = denyRequestProblem(request);
    if (problem) throw new InvalidDefinitionError({ subject: "deferrals.deny()", problem });
    try {
      return await this.client.workflow.getHandle(located.runId).executeUpdate(denyUpdate, { args: [request] });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw unwrapFailure(err);
      // A closed run waits on nothing: the record says what became of it.
      if (err instanceof WorkflowNotFoundError) throw await closedRefusal(unguarded(this), deferralId);
      throw err;
    }
  }
}

/** A query answer Temporal refused for its size. */
function isOversized(err: unknown): boolean {
  return err instanceof Error && /size exceeds limit/i.test(err.message);
}

/** Why a deferral of a closed run cannot be denied, from its record. */
async function closedRefusal(store: DeferralStore, deferralId: string): Promise<Error> {
  const record = await store.getRecord({ deferralId });
  if (record.status === "denied") return new DeferralDeniedError({ deferralId, reason: record.deniedReason ?? "denied" });
  if (record.status === "expired") return new DeferralExpiredError({ deferralId, expiresAt: record.expiresAt });
  if (record.status === "resumed" || record.status === "needs-compaction") return new DeferralAlreadyResumedError({ deferralId });
  // Still "deferred" in a closed run (terminated, or timed out by Temporal): nothing waits on it.
  return new DeferralDeniedError({ deferralId, reason: "its run has ended" });
}

/** Asks `store`'s hook about a deferral operation (AI1013 unless exactly `true`); the id must parse. `trusted`: a vouched-for rewrite. */
export async function authorizeDeferral(
  store: DeferralStore,
  operation: "deferral.get" | "deferral.replace" | "deferral.deny",
  deferralId: string,
  principal: Principal | undefined,
  trusted = false,
): Promise<void> {
  const located = parseDeferralId(deferralId);
  if (!located) throw new DeferralNotFoundError({ deferralId: String(deferralId) });
  const request = { operation, principal, runId: located.runId, deferralId };
  await authorizeRun(hooks.get(store), operation === "deferral.replace" && trusted ? { ...request, operation, trustTranscript: true } : request);
}

// The inbox's row of a listed deferral, read from its run's memo with the listing (no query).
const inboxRows = new WeakMap<DeferralSummary, InboxRow>();

/** The inbox's row a listing found for `summary` in its run's memo; undefined for a run that keeps none (made before rows were kept). Internal. */
export function listedRow(summary: DeferralSummary): InboxRow | undefined {
  return inboxRows.get(summary);
}

/** Asks `store`'s hook whether `principal` may read run (or thread) `runId` as a whole (`run.state`): AI1013 unless exactly `true`. Internal. */
export async function authorizeRunRead(store: DeferralStore, runId: string, principal: Principal | undefined): Promise<void> {
  await authorizeRun(hooks.get(store), { operation: "run.state", principal, runId });
}

/** Whether `store`'s hook lets `principal` see what led to `record` (`approval.context`): only an exact `true` does; no hook lets everyone. */
export async function allowsApprovalContext(store: DeferralStore, record: DeferralRecord, calls: Array<{ toolCallId: string; toolName: string; arguments: string }>, principal: Principal | undefined): Promise<boolean> {
  const hook = hooks.get(store);
  if (!hook) return true;
  const verdict = await askAuthorize(() =>
    hook({ operation: "approval.context", principal, runId: record.runId, deferralId: record.id, ...(record.agentId !== undefined ? { agentId: record.agentId } : {}), calls, meta: record.meta }),
  );
  return verdict.allowed;
}

/** The same store without its hook: for operations that were authorized as a whole. Internal, not exported by the package. */
export function unguarded(store: DeferralStore): DeferralStore {
  return twins.get(store) ?? store;
}

/** `value` as a string literal of a visibility query. Internal. */
export function visibilityLiteral(value: string): string {
  return quote(value);
}

function quote(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}
