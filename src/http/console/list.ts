import type { Payload } from "@temporalio/common";
import type { AgentClient } from "../../client/agent-client.js";
import { decodePayloadAt, typedSearchAttributesOf } from "../../client/data-converter.js";
import { authorizeRunRead } from "../../client/deferral-store.js";
import { threadAccessOf } from "../../client/threads/threads-client.js";
import type { ThreadsClient } from "../../client/threads/threads-client.js";
import { INBOX_MEMO_KEY, inboxRowFrom } from "../../core/inbox-row.js";
import type { Principal } from "../../core/json.js";
import { AgentIdKey, DeferralIdKey, DeferralStatusKey } from "../../core/search-attributes.js";
import type { ConsoleStatus } from "./history.js";

/** The statuses the console's list filters by: a workflow's, and `waiting` (running, parked on a request). */
export const LIST_STATUSES = ["running", "waiting", "completed", "failed", "cancelled", "terminated", "timed-out"] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];

/** One row of the console's list, from Temporal visibility alone (no query, no billed action). */
export interface ConsoleRow {
  kind: "run" | "thread";
  id: string;
  agentId?: string;
  status: ConsoleStatus;
  /** What a running run or thread waits on: an approval request or a `ctx.defer()` deferral (with its id). */
  waiting?: { on: "approval" | "deferral"; id: string };
  /** Who it acts for, as its waiting request's row keeps it (the memo); absent otherwise. */
  principal?: Principal;
  startedAt: string;
  closedAt?: string;
  /** The run that started this one as a sub-agent. */
  parentId?: string;
  /** Events in its current execution's history, as visibility reports it with the row (free). */
  events?: number;
}

export interface ConsoleListOptions {
  principal?: Principal;
  status?: ListStatus;
  agentId?: string;
  kind?: "run" | "thread";
  /** Ids starting with this (visibility's `STARTS_WITH`). */
  idPrefix?: string;
  /** Started at or after / before these times (visibility's `StartTime`). */
  startedAfter?: Date;
  startedBefore?: Date;
  /**
   * Acting for this principal id: only a waiting request's row (the memo) says whom a run
   * acts for, and visibility cannot filter on a memo, so this lists what waits and keeps the
   * rows of the one page read that match: a page may show fewer rows, never reads more.
   */
  actingFor?: string;
  cursor?: string;
  limit: number;
}

// Temporal's ExecutionStatus values, by the console's words.
const EXECUTION_STATUS: Record<Exclude<ListStatus, "waiting">, string> = {
  running: "Running",
  completed: "Completed",
  failed: "Failed",
  cancelled: "Canceled",
  terminated: "Terminated",
  "timed-out": "TimedOut",
};
const FROM_EXECUTION: Record<number, ConsoleStatus> = { 1: "running", 2: "completed", 3: "failed", 4: "cancelled", 5: "terminated", 6: "running", 7: "timed-out" };

const quote = (value: string) => `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/**
 * A page of the client's task queue's runs and threads, newest first: one visibility
 * listing (free), each row's memo decoded through the client's data converter, and the hook
 * asked per row (`run.state` for a run, `thread.list` for a thread): a refused row is left
 * out, as the inbox leaves out requests.
 */
export async function listConsole(agents: AgentClient, threads: ThreadsClient, options: ConsoleListOptions): Promise<{ rows: ConsoleRow[]; cursor?: string }> {
  const client = agents.client;
  const types = options.kind === "run" ? ['"agentRun"'] : options.kind === "thread" ? ['"agentThread"'] : ['"agentRun"', '"agentThread"'];
  const clauses = [`WorkflowType IN (${types.join(", ")})`, `TaskQueue = ${quote(agents.taskQueue)}`];
  if (options.agentId !== undefined) clauses.push(`AgentId = ${quote(options.agentId)}`);
  if (options.idPrefix !== undefined) clauses.push(`WorkflowId STARTS_WITH ${quote(options.idPrefix)}`);
  if (options.startedAfter !== undefined) clauses.push(`StartTime >= ${quote(options.startedAfter.toISOString())}`);
  if (options.startedBefore !== undefined) clauses.push(`StartTime < ${quote(options.startedBefore.toISOString())}`);
  if (options.status === "waiting" || (options.actingFor !== undefined && options.status === undefined)) clauses.push(`ExecutionStatus = "Running" AND DeferralStatus = "deferred"`);
  else if (options.status !== undefined) clauses.push(`ExecutionStatus = ${quote(EXECUTION_STATUS[options.status])}`);
  const response = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query: clauses.join(" AND "),
    pageSize: options.limit,
    ...(options.cursor ? { nextPageToken: Buffer.from(options.cursor, "base64url") } : {}),
  });
  const access = threadAccessOf(threads);
  const rows = await Promise.all(
    (response.executions ?? []).map(async (execution): Promise<ConsoleRow | undefined> => {
      const id = execution.execution?.workflowId;
      if (!id) return undefined;
      const kind = execution.type?.name === "agentThread" ? "thread" : "run";
      const attrs = typedSearchAttributesOf(execution.searchAttributes?.indexedFields, [AgentIdKey, DeferralIdKey, DeferralStatusKey]);
      const agentId = attrs.get(AgentIdKey);
      const allowed =
        kind === "thread"
          ? await access.allowed({ operation: "thread.list", principal: options.principal, threadId: id, ...(agentId ? { agentId } : {}) })
          : await authorizeRunRead(agents.deferrals, id, options.principal).then(
              () => true,
              () => false,
            );
      if (!allowed) return undefined;
      const status = FROM_EXECUTION[execution.status ?? 1] ?? "running";
      const deferralId = attrs.get(DeferralIdKey);
      const parked = status === "running" && attrs.get(DeferralStatusKey) === "deferred" && deferralId !== undefined;
      const row = parked ? inboxRowFrom(await memoOf(agents, execution.memo?.fields?.[INBOX_MEMO_KEY]), deferralId) : undefined;
      const parentId = execution.parentExecution?.workflowId;
      return {
        kind,
        id,
        ...(agentId ? { agentId } : {}),
        status,
        ...(parked ? { waiting: { on: row?.kind ?? "approval", id: deferralId } } : {}),
        ...(row?.principal ? { principal: row.principal } : {}),
        startedAt: isoOf(execution.startTime),
        ...(execution.closeTime ? { closedAt: isoOf(execution.closeTime) } : {}),
        ...(parentId ? { parentId } : {}),
        ...(execution.historyLength ? { events: Number(execution.historyLength) } : {}),
      };
    }),
  );
  const token = response.nextPageToken;
  const shown = rows.filter((r): r is ConsoleRow => r !== undefined && (options.actingFor === undefined || r.principal?.id === options.actingFor));
  return { rows: shown, ...(token && token.length > 0 ? { cursor: Buffer.from(token).toString("base64url") } : {}) };
}

/** A run's memo, decoded through the client's converter; a memo this client cannot decode (another codec) is none: the page shows the run without it. */
export async function memoOf(agents: AgentClient, payload: Payload | null | undefined): Promise<unknown> {
  if (!payload) return undefined;
  return decodePayloadAt<unknown>(agents.client.options.loadedDataConverter, 0, [payload]).catch(() => undefined);
}

function isoOf(t: { seconds?: unknown; nanos?: number | null } | null | undefined): string {
  const ms = t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
  return new Date(ms).toISOString();
}
