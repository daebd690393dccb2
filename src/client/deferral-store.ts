import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from "@temporalio/client";
import { decodeTypedSearchAttributes } from "@temporalio/common/lib/converter/payload-search-attributes.js";
import type { DeferralStatus, DeferralView, ReplaceStepStateReply, StepState } from "../core/deferral-record.js";
import { deferralQuery, replaceStepStateUpdate } from "../core/wire/run.js";
import { AgentIdKey, DeferralExpiresAtKey, DeferralIdKey, DeferralStatusKey } from "../core/search-attributes.js";
import { parseDeferralId } from "../core/deferral-id.js";
import { DeferralNotFoundError } from "../core/errors/deferral-not-found.js";
import { unwrapFailure } from "../core/errors/from-failure.js";
import { InvalidDefinitionError } from "../core/errors/invalid-definition.js";
import { boundedQuery, DEFAULT_QUERY_TIMEOUT_MS, type QueryDeadline } from "./bounded-query.js";

const STATUSES: DeferralStatus[] = ["deferred", "needs-compaction", "resumed", "expired", "denied"];

export interface ListDeferralsOptions {
  /** Only records in these states (default: all). */
  status?: DeferralStatus | DeferralStatus[];
  /** Only deferrals of this agent. */
  agentId?: string;
  /** Only deferrals whose TTL ends before this instant. */
  expiringBefore?: Date | string;
  /** Default 100. */
  pageSize?: number;
  /** From the previous page. */
  nextPageToken?: string;
}

/** One row of a listing: a run's latest deferral, as Temporal visibility indexes it. */
export interface DeferralSummary {
  deferralId: string;
  runId: string;
  agentId?: string;
  status: DeferralStatus;
  expiresAt?: string;
}

export interface DeferralPage {
  deferrals: DeferralSummary[];
  /** Absent on the last page. */
  nextPageToken?: string;
}

/**
 * Deferral records, read and rewritten through the run that holds them. Records never
 * contain tokens. Listing goes through Temporal visibility, which trails writes by a moment.
 */
export class DeferralStore {
  /** `reads`: how long `get()` waits for a worker to answer (default 5 s), then AI1015. */
  constructor(
    private readonly client: Client,
    private readonly reads: QueryDeadline = { timeoutMs: DEFAULT_QUERY_TIMEOUT_MS },
  ) {}

  /** The record with its `meta`, fingerprint and, while waiting, its step state; RC5046 when there is none. */
  async get(deferralId: string): Promise<DeferralView> {
    const located = parseDeferralId(deferralId);
    if (!located) throw new DeferralNotFoundError({ deferralId: String(deferralId) });
    let view: DeferralView | null;
    try {
      view = await boundedQuery(this.client, this.reads, located.runId, () => this.client.workflow.getHandle(located.runId).query(deferralQuery, deferralId));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new DeferralNotFoundError({ deferralId });
      throw err;
    }
    if (!view) throw new DeferralNotFoundError({ deferralId });
    return view;
  }

  /** Pages through runs' latest deferrals, filtered by status, agent and expiry. */
  async list(options: ListDeferralsOptions = {}): Promise<DeferralPage> {
    const statuses = options.status === undefined ? STATUSES : [options.status].flat();
    for (const status of statuses) {
      if (!STATUSES.includes(status)) {
        throw new InvalidDefinitionError({ subject: "deferrals.list()", problem: `unknown status "${String(status)}"` });
      }
    }
    const clauses = [`DeferralStatus IN (${statuses.map(quote).join(", ")})`];
    if (options.agentId !== undefined) clauses.push(`AgentId = ${quote(options.agentId)}`);
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
      pageSize: options.pageSize ?? 100,
      nextPageToken: options.nextPageToken ? Buffer.from(options.nextPageToken, "base64url") : Buffer.alloc(0),
    });
    const deferrals = (response.executions ?? []).map((execution): DeferralSummary => {
      const attrs = decodeTypedSearchAttributes(execution.searchAttributes?.indexedFields);
      const agentId = attrs.get(AgentIdKey);
      const expiresAt = attrs.get(DeferralExpiresAtKey);
      return {
        deferralId: attrs.get(DeferralIdKey) ?? "",
        runId: execution.execution?.workflowId ?? "",
        ...(agentId ? { agentId } : {}),
        status: attrs.get(DeferralStatusKey) as DeferralStatus,
        ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
      };
    });
    const token = response.nextPageToken;
    return token && token.length > 0 ? { deferrals, nextPageToken: Buffer.from(token).toString("base64url") } : { deferrals };
  }

  /**
   * Compare-and-swap of a waiting record's step state (only its messages change): wins
   * when `expectedFingerprint` is still current. Losing is `{ won: false }` with the record
   * as it now stands. AI1008 for a thread the run could not continue from, AI1007 for
   * another agent's or call's state, or a changed budget.
   */
  async replaceStepState(deferralId: string, expectedFingerprint: string, stepState: StepState): Promise<ReplaceStepStateReply> {
    const located = parseDeferralId(deferralId);
    if (!located) throw new DeferralNotFoundError({ deferralId: String(deferralId) });
    try {
      return await this.client.workflow
        .getHandle(located.runId)
        .executeUpdate(replaceStepStateUpdate, { args: [{ deferralId, expectedFingerprint, stepState }] });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw unwrapFailure(err);
      if (err instanceof WorkflowNotFoundError) {
        // The run has closed since: the swap lost to whatever closed it.
        return { won: false, deferral: await this.get(deferralId) };
      }
      throw err;
    }
  }
}

function quote(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}
