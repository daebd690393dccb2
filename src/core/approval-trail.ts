import { decisionFor, requiresOf } from "./approval.js";
import { permissionIdOf, type PermissionGrant } from "./approval-permissions.js";
import type { DeferralRecord } from "./deferral-record.js";
import type { JsonObject, JsonValue, Principal } from "./json.js";

/** One change an approver made to a call's input: at `path` (a JSON Pointer), `from` what the model wrote `to` what ran. */
export interface InputChange {
  path: string;
  /** Absent when the approver added it. */
  from?: JsonValue;
  /** Absent when the approver removed it. */
  to?: JsonValue;
}

/**
 * One moment of an approval request's life, oldest first (`approvals.history`). Who (`by`)
 * is the principal the decision or denial was made as, when one was given.
 */
export type ApprovalTrailEntry =
  | { type: "asked"; at: string; calls: Array<{ toolCallId: string; toolName: string; arguments: string }>; requires?: string[]; principal?: Principal }
  | { type: "reminded"; at: string; reminder: number }
  | { type: "escalated"; at: string; from: string[]; to: string[] }
  | {
      type: "decided";
      at: string;
      by?: Principal;
      toolCallId: string;
      toolName: string;
      decision: "approved" | "rejected" | "responded";
      /** The request's `callFingerprint`: what the decision was taken on (its calls and their arguments as the model wrote them). */
      shown?: string;
      /** An approval's edits of the model's input, as changes (empty or absent: it ran as written). */
      changes?: InputChange[];
      note?: string;
      reason?: string;
      /** A response in the tool's place. */
      response?: JsonValue;
      /** The standing permission the approval granted, as the approver gave it, with its id. */
      grant?: PermissionGrant & { permissionId: string };
    }
  /** A standing permission this request's decision granted was revoked (`approvals.revoke()`). */
  | { type: "revoked"; at: string; by?: Principal; permissionId: string }
  | { type: "expired"; at: string }
  /** Someone denied it (`deferrals.deny()`), or it was withdrawn (a thread moved on, a run was cancelled): `reason` says which. */
  | { type: "denied"; at?: string; by?: Principal; reason: string };

/**
 * The life of an approval request, read from its record: made, reminded, escalated, decided
 * call by call, expired or denied. Everything is kept on the record (which a thread carries
 * across continue-as-new, and a codec encrypts like any payload), so this reads nothing else.
 */
export function approvalTrail(record: DeferralRecord): ApprovalTrailEntry[] {
  const calls = record.approval?.calls ?? [{ toolCallId: record.toolCallId, toolName: record.toolName ?? "", arguments: record.toolArguments ?? "" }];
  const schedule = record.approval?.schedule;
  const firstRequires = schedule?.escalated?.from ?? requiresOf(record.meta);
  const entries: ApprovalTrailEntry[] = [
    {
      type: "asked",
      at: record.deferredAt,
      calls: calls.map(({ toolCallId, toolName, arguments: args }) => ({ toolCallId, toolName, arguments: args })),
      ...(firstRequires.length > 0 ? { requires: firstRequires } : {}),
      ...(record.principal ? { principal: record.principal } : {}),
    },
  ];
  (schedule?.remindedAt ?? []).forEach((at, i) => entries.push({ type: "reminded", at, reminder: i + 1 }));
  if (schedule?.escalated) entries.push({ type: "escalated", at: schedule.escalated.at, from: schedule.escalated.from, to: requiresOf(record.meta) });
  if (record.approval) {
    for (const call of record.approval.calls) {
      // A call decided on its own keeps who and when; the rest were decided by the resume that claimed the request.
      const alone = record.approval.decided?.find((d) => d.decision.toolCallId === call.toolCallId);
      const decision = alone?.decision ?? (record.resumedAt ? decisionFor(record.payload, call.toolCallId) : undefined);
      if (!decision) continue;
      const by = alone ? alone.by : record.resumedBy;
      const base = { type: "decided" as const, at: alone?.at ?? record.resumedAt!, ...(by ? { by } : {}), toolCallId: call.toolCallId, toolName: call.toolName, ...(record.callFingerprint ? { shown: record.callFingerprint } : {}) };
      if ("respond" in decision) entries.push({ ...base, decision: "responded", response: decision.respond, ...(decision.note !== undefined ? { note: decision.note } : {}) });
      else if (decision.approved) {
        const changes = decision.input === undefined ? [] : inputChanges(parsed(call.arguments), decision.input);
        const grant = decision.grant ? { grant: { ...decision.grant, permissionId: permissionIdOf(record.id, call.toolCallId) } } : {};
        entries.push({ ...base, decision: "approved", ...(changes.length > 0 ? { changes } : {}), ...(decision.note !== undefined ? { note: decision.note } : {}), ...grant });
      } else entries.push({ ...base, decision: "rejected", ...(decision.reason !== undefined ? { reason: decision.reason } : {}) });
    }
  }
  for (const r of record.approval?.revoked ?? []) entries.push({ type: "revoked", at: r.at, ...(r.by ? { by: r.by } : {}), permissionId: r.permissionId });
  if (record.status === "expired") entries.push({ type: "expired", at: record.expiresAt });
  if (record.status === "denied") {
    const at = record.denial?.at ?? record.deniedAt;
    const by = record.denial?.by;
    entries.push({ type: "denied", ...(at ? { at } : {}), ...(by ? { by } : {}), reason: record.denial?.reason ?? record.deniedReason ?? "denied" });
  }
  // Oldest first; entries of one moment keep the order of a request's life.
  return entries.map((entry, i) => ({ entry, i })).sort((a, b) => (Date.parse(a.entry.at ?? "") || Infinity) - (Date.parse(b.entry.at ?? "") || Infinity) || a.i - b.i).map(({ entry }) => entry);
}

/** How `to` differs from `from`, as changes at JSON Pointers: objects compared key by key, anything else whole. */
export function inputChanges(from: JsonValue | undefined, to: JsonValue | undefined, path = ""): InputChange[] {
  if (isObject(from) && isObject(to)) {
    const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])];
    return keys.flatMap((key) => inputChanges(own(from, key), own(to, key), `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`));
  }
  if (JSON.stringify(from) === JSON.stringify(to)) return [];
  return [{ path, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) }];
}

function own(object: JsonObject, key: string): JsonValue | undefined {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parsed(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
