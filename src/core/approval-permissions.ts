/**
 * Standing permissions: an approver, approving a call, may let later calls of the same tool
 * in the same run or thread go without asking ("always allow this tool in this
 * conversation", "refunds under 50 € until Friday"). A permission is part of the decision
 * that granted it, so it lives where the decision does: in the request's record, which the
 * run or thread carries across continue-as-new and a codec encrypts like any payload. A
 * revocation is kept on that record too. Nothing here costs an action: the worker is handed
 * the live permissions with the model call it makes anyway, and the workflow checks them
 * again against its own state and clock before the call runs. Sandbox-safe.
 */
import { Validator } from "@cfworker/json-schema";
import type { DeferralRecord } from "./deferral-record.js";
import type { PermissionGrant } from "./approval-types.js";
import { jsonSchemaProblem } from "./json-schema-check.js";
import type { JsonObject, JsonValue, Principal } from "./json.js";
import { plainJsonProblem } from "./json-check.js";
import type { ToolCall } from "./messages.js";
import { jsonBytes } from "./payload-size.js";

export type { PermissionGrant } from "./approval-types.js";

/** A permission as `approvals.permissions()` lists it and the workflow checks it. */
export interface StandingPermission {
  /** `<approvalId>#<toolCallId>`: the request and call whose approval granted it. */
  permissionId: string;
  approvalId: string;
  tool: string;
  grantedAt: string;
  grantedBy?: Principal;
  /** When it lapses (ISO); absent: never on its own. */
  until?: string;
  match?: JsonObject;
  for: "anyone" | "principal";
  /** With `for: "principal"`: the principal later calls must be made for. */
  principal?: Principal;
  /** Set once revoked. */
  revoked?: { at: string; by?: Principal };
}

/** How far ahead a grant's `until` may reach: 90 days. A longer standing permission belongs in the tool's `needsApproval` policy. */
export const MAX_PERMISSION_MS = 90 * 24 * 3600 * 1000;

/**
 * The most a grant may weigh as JSON (its `match` schema mostly): 4 KiB. The permissions in
 * force ride in every model call's input, so together they stay under
 * `MAX_PERMISSIONS × MAX_GRANT_BYTES` (80 KiB).
 */
export const MAX_GRANT_BYTES = 4_096;

/** The most permissions in force in one run or thread; a grant beyond it is refused (RC5049): revoke one first. */
export const MAX_PERMISSIONS = 20;

/** The id of the permission granted by the approval of `toolCallId` in request `approvalId`. */
export function permissionIdOf(approvalId: string, toolCallId: string): string {
  return `${approvalId}#${toolCallId}`;
}

/**
 * Where `grant` fails (each issue prefixed with `at`), for an approval of a call of
 * `toolName` decided at `nowMs`, in a run or thread acting for `principal`. Empty when it may be granted.
 */
export function grantIssues(grant: unknown, toolName: string, nowMs: number, at: string, principal?: Principal): string[] {
  if (typeof grant !== "object" || grant === null || Array.isArray(grant)) return [`${at} must be an object { tool?, until?, match?, for? }`];
  const problem = plainJsonProblem(grant);
  if (problem) return [`${at} is not plain JSON at ${problem.path}: ${problem.problem}`];
  if (jsonBytes(grant, MAX_GRANT_BYTES + 1) > MAX_GRANT_BYTES) return [`${at} weighs over ${MAX_GRANT_BYTES} bytes: grant a shorter match schema`];
  const issues: string[] = [];
  const g = grant as Record<string, unknown>;
  for (const key of Object.keys(g)) if (!["tool", "until", "match", "for"].includes(key)) issues.push(`${at}.${key} is not a grant's field (tool, until, match, for)`);
  if (g.tool !== undefined && g.tool !== toolName) issues.push(`${at}.tool must be the approved call's tool ("${toolName}"): a decision grants nothing for a call its approver was not shown`);
  if (g.for !== undefined && g.for !== "anyone" && g.for !== "principal") issues.push(`${at}.for must be "anyone" or "principal"`);
  // Bound to nobody, it could never let a call through: refused rather than kept useless.
  if (g.for === "principal" && !principal) issues.push(`${at}.for is "principal", but this run or thread acts for nobody: grant for "anyone", or start it with a principal`);
  if (g.until !== undefined) {
    const until = typeof g.until === "string" ? untilMs(g.until, nowMs) : undefined;
    if (until === undefined) issues.push(`${at}.until must be a duration ("8h", "7d") or an ISO time`);
    else if (until <= nowMs) issues.push(`${at}.until is past`);
    else if (until - nowMs > MAX_PERMISSION_MS) issues.push(`${at}.until is more than 90 days ahead: a lasting rule belongs in the tool's needsApproval policy`);
  }
  if (g.match !== undefined) {
    const notSchema = jsonSchemaProblem(g.match);
    if (notSchema) issues.push(`${at}.match is not a JSON Schema the call's arguments can be checked with: ${notSchema}`);
  }
  return issues;
}

/** `until` as ms since the epoch: a duration from `fromMs`, or an ISO time; undefined when it is neither. */
function untilMs(until: string, fromMs: number): number | undefined {
  const m = /^(\d{1,9})(ms|s|m|h|d)$/.exec(until.trim());
  if (m) return fromMs + Number(m[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "ms"];
  if (!/^\d{4}-\d{2}-\d{2}T/.test(until)) return undefined;
  const ms = Date.parse(until);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Every permission granted in `records` (a run's or thread's), revoked and lapsed ones included, oldest first. */
export function permissionsOf(records: readonly DeferralRecord[]): StandingPermission[] {
  const out: StandingPermission[] = [];
  for (const record of records) {
    if (!record.approval) continue;
    const whole = record.resumedAt !== undefined && (record.status === "resumed" || record.status === "needs-compaction");
    const decisions = whole ? (record.payload as { decisions?: unknown } | null | undefined)?.decisions : undefined;
    for (const call of record.approval.calls) {
      // A call decided on its own grants from its own decision, by its decider, at once (the
      // request may still wait for its other calls); else from the decision that closed the request.
      const alone = record.approval.decided?.find((d) => d.decision.toolCallId === call.toolCallId);
      const decision = (alone?.decision ??
        (Array.isArray(decisions) ? decisions.find((d: { toolCallId?: unknown }) => d?.toolCallId === call.toolCallId) : undefined)) as
        | { approved?: unknown; grant?: PermissionGrant }
        | undefined;
      if (decision?.approved !== true || !decision.grant) continue;
      const grantedAt = alone ? alone.at : record.resumedAt!;
      const grantedBy = alone ? alone.by : record.resumedBy;
      const permissionId = permissionIdOf(record.id, call.toolCallId);
      const { grant } = decision;
      const until = grant.until !== undefined ? untilMs(grant.until, Date.parse(grantedAt)) : undefined;
      const revoked = record.approval.revoked?.find((r) => r.permissionId === permissionId);
      const forWhom = grant.for ?? "anyone";
      out.push({
        permissionId,
        approvalId: record.id,
        tool: call.toolName,
        grantedAt,
        ...(grantedBy ? { grantedBy } : {}),
        ...(until !== undefined ? { until: new Date(until).toISOString() } : {}),
        ...(grant.match ? { match: grant.match } : {}),
        for: forWhom,
        ...(forWhom === "principal" && record.principal ? { principal: record.principal } : {}),
        ...(revoked ? { revoked: { at: revoked.at, ...(revoked.by ? { by: revoked.by } : {}) } } : {}),
      });
    }
  }
  return out;
}

/** The permissions of `records` in force at `nowMs`: not revoked, not lapsed. */
export function livePermissions(records: readonly DeferralRecord[], nowMs: number): StandingPermission[] {
  return permissionsOf(records).filter((p) => !p.revoked && (p.until === undefined || Date.parse(p.until) > nowMs));
}

/**
 * The first of `permissions` that lets `call` run without asking, made while the host acts
 * for `principal`, at `nowMs`: its tool, its principal (for `for: "principal"`), not lapsed,
 * and its `match` satisfied by the arguments as the model wrote them. Undefined when none does.
 */
export function permitting(permissions: readonly StandingPermission[] | undefined, call: ToolCall, principal: Principal | undefined, nowMs: number): StandingPermission | undefined {
  if (!permissions || permissions.length === 0) return undefined;
  let args: JsonValue | undefined;
  try {
    args = JSON.parse(call.function.arguments) as JsonValue;
  } catch {
    return undefined;
  }
  return permissions.find((p) => {
    if (p.revoked || p.tool !== call.function.name) return false;
    if (p.until !== undefined && !(Date.parse(p.until) > nowMs)) return false;
    if (p.for === "principal" && (!p.principal || !principal || p.principal.id !== principal.id)) return false;
    if (!p.match) return true;
    try {
      return new Validator(p.match as never, "2020-12", false).validate(args).valid;
    } catch {
      return false;
    }
  });
}

/** What the model reads for a call the worker let through on a permission that was revoked or lapsed before it could run: nothing ran. */
export function permissionGoneResult(toolName: string, permissionId: string): string {
  return `Error: "${toolName}" was not run: the standing permission it was allowed by (${permissionId}) was revoked or lapsed before it could run. Call it again to ask for a decision.`;
}
