import type { ApprovalCall } from "./approval.js";
import type { DeferralRecord } from "./deferral-record.js";
import type { JsonObject, Principal } from "./json.js";
import { jsonBytes } from "./payload-size.js";

/**
 * The memo field a waiting request's row is kept in. Temporal's list and describe return a
 * run's memo with no worker involved (no query, no billed action), and the memo is a payload:
 * a codec encrypts it like the record itself. Search attributes stay ids, status and expiry.
 */
export const INBOX_MEMO_KEY = "durableAgentsInbox";

/**
 * Rows heavier than this (calls with large arguments) are not copied into the memo: the memo
 * says so (`omitted`) and the inbox reads that row from the run, as it did every row before.
 * Far under Temporal's memo limit (2 MiB by default), whatever a codec adds.
 */
export const MAX_INBOX_ROW_BYTES = 32_768;

/** What the inbox shows of a request, as the memo keeps it (status and parent come from visibility). */
export interface InboxRow {
  /** The request's id: a memo left by an earlier request of the same run is told apart by it. */
  id: string;
  kind: "approval" | "deferral";
  agentId?: string;
  calls: Array<Pick<ApprovalCall, "toolCallId" | "toolName" | "arguments" | "resultSchema">>;
  meta: JsonObject;
  deferredAt: string;
  expiresAt: string;
  principal?: Principal;
  callFingerprint?: string;
  /** The ids of its calls decided one at a time already (a record read; the memo is written when the request is made, before any). */
  decided?: string[];
}

/** The memo's value: the row, or only its id when the row was too heavy to copy. */
export type InboxMemo = InboxRow | { id: string; omitted: true };

/** The row of a record as a record read shows it (with its deferred call's arguments and `callFingerprint`). */
export function inboxRowOf(record: DeferralRecord): InboxRow {
  const calls = record.approval
    ? record.approval.calls.map(({ toolCallId, toolName, arguments: args, resultSchema }) => ({ toolCallId, toolName, arguments: args, ...(resultSchema ? { resultSchema } : {}) }))
    : [{ toolCallId: record.toolCallId, toolName: record.toolName ?? "", arguments: record.toolArguments ?? "" }];
  return {
    id: record.id,
    kind: record.approval ? "approval" : "deferral",
    ...(record.agentId ? { agentId: record.agentId } : {}),
    calls,
    meta: record.meta,
    deferredAt: record.deferredAt,
    expiresAt: record.expiresAt,
    ...(record.principal ? { principal: record.principal } : {}),
    ...(record.callFingerprint ? { callFingerprint: record.callFingerprint } : {}),
    ...(record.approval?.decided?.length ? { decided: record.approval.decided.map((d) => d.decision.toolCallId) } : {}),
  };
}

/** The memo for `record`: its row, or its id alone past `MAX_INBOX_ROW_BYTES`. */
export function inboxMemoOf(record: DeferralRecord): InboxMemo {
  const row = inboxRowOf(record);
  return jsonBytes(row, MAX_INBOX_ROW_BYTES + 1) > MAX_INBOX_ROW_BYTES ? { id: record.id, omitted: true } : row;
}

/**
 * The row a memo holds for `deferralId`, or undefined when the memo is absent (a request made
 * before rows were kept), names another request, was omitted, or is not a row's shape: the
 * inbox then reads the request from its run.
 */
export function inboxRowFrom(memo: unknown, deferralId: string): InboxRow | undefined {
  if (typeof memo !== "object" || memo === null) return undefined;
  const row = memo as Partial<InboxRow> & { omitted?: unknown };
  if (row.id !== deferralId || row.omitted !== undefined) return undefined;
  if ((row.kind !== "approval" && row.kind !== "deferral") || !Array.isArray(row.calls) || typeof row.meta !== "object" || row.meta === null) return undefined;
  if (typeof row.deferredAt !== "string" || typeof row.expiresAt !== "string") return undefined;
  return row as InboxRow;
}
