/**
 * Standing permissions as the worker and the workflow judge them from a run's or thread's
 * records: a grant is checked when it is decided (RC5049 issues), and a later call runs
 * without asking only while a permission that fits it is in force (not revoked, not lapsed,
 * its tool, its principal, its `match`). The property: grants and revocations interleaved
 * with calls and time passing never let a call through that no live grant allowed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decisionIssues, type ApprovalCall } from "../../src/core/approval.js";
import { approvalTrail } from "../../src/core/approval-trail.js";
import { livePermissions, MAX_GRANT_BYTES, MAX_PERMISSIONS, permissionsOf, permitting, type PermissionGrant } from "../../src/core/approval-permissions.js";
import type { DeferralRecord } from "../../src/core/deferral-record.js";
import type { ToolCall } from "../../src/core/messages.js";

const T0 = Date.parse("2026-12-01T10:00:00.000Z");
const sam = { id: "sam" };

function granted(id: string, grants: Record<string, PermissionGrant | undefined>, at = T0, principal: { id: string } | undefined = sam): DeferralRecord {
  const calls = Object.keys(grants).map((toolCallId) => ({ toolCallId, toolName: "refund", arguments: "{}" }));
  return {
    id,
    runId: "run-1",
    toolCallId: calls[0]!.toolCallId,
    toolName: "refund",
    status: "resumed",
    meta: {},
    deferredAt: new Date(at - 1000).toISOString(),
    expiresAt: new Date(at + 3_600_000).toISOString(),
    resumedAt: new Date(at).toISOString(),
    resumedBy: { id: "fiona" },
    ...(principal ? { principal } : {}),
    payload: { decisions: calls.map(({ toolCallId }) => ({ toolCallId, approved: true, ...(grants[toolCallId] ? { grant: grants[toolCallId] } : {}) })) } as never,
    approval: { calls },
  } as DeferralRecord;
}

const call = (amount: number, name = "refund"): ToolCall => ({ id: `c-${amount}`, type: "function", function: { name, arguments: JSON.stringify({ amount }) } });
const under50: PermissionGrant = { match: { type: "object", properties: { amount: { type: "number", maximum: 50 } }, required: ["amount"] } };

describe("a grant, as a decision carries it", () => {
  const calls: ApprovalCall[] = [{ toolCallId: "a", toolName: "refund", arguments: "{}" }];
  const issuesOf = (grant: unknown, principal: { id: string } | null = sam) => decisionIssues(calls, { decisions: [{ toolCallId: "a", approved: true, grant }] }, { nowMs: T0, live: 0, ...(principal ? { principal } : {}) });

  it("takes a tool's own name, a duration or ISO time within 90 days, a schema, and who it is for", () => {
    expect(issuesOf({})).toBeUndefined();
    expect(issuesOf({ tool: "refund", until: "8h", match: under50.match, for: "principal" })).toBeUndefined();
    expect(issuesOf({ until: "2026-12-05T17:00:00Z", for: "anyone" })).toBeUndefined();
  });

  it.each<[string, unknown, RegExp]>([
    ["another tool", { tool: "sendPayout" }, /tool must be the approved call's tool/],
    ["a past until", { until: "2026-11-01T00:00:00Z" }, /until is past/],
    ["an until too far", { until: "91d" }, /more than 90 days/],
    ["an until that is no time", { until: "friday" }, /until must be a duration/],
    ["a match that is not a schema", { match: { type: 42 } }, /match is not a JSON Schema.*type names no JSON type/],
    ["a match that is a string", { match: "amount < 50" }, /match is not a JSON Schema/],
    ["a match with a bad pattern", { match: { properties: { memo: { pattern: "(" } } } }, /pattern is not a regular expression/],
    ["an unknown field", { forever: true }, /forever is not a grant's field/],
    ["a for nobody knows", { for: "everyone" }, /for must be "anyone" or "principal"/],
    ["a grant that is no object", ["refund"], /must be an object/],
    ["a huge match", { match: { enum: ["x".repeat(MAX_GRANT_BYTES)] } }, /weighs over 4096 bytes/],
  ])("refuses %s (RC5049)", (_what, grant, issue) => {
    expect(issuesOf(grant)?.join("\n")).toMatch(issue);
  });

  it("refuses a grant on a rejection or a response, and for a principal in a run that acts for nobody", () => {
    expect(decisionIssues(calls, { decisions: [{ toolCallId: "a", approved: false, grant: {} }] }, { nowMs: T0, live: 0 })?.join()).toMatch(/grant is for an approval/);
    expect(decisionIssues(calls, { decisions: [{ toolCallId: "a", respond: "ok", grant: {} }] }, { nowMs: T0, live: 0 })?.join()).toMatch(/grant is for an approval/);
    expect(issuesOf({ for: "principal" }, null)?.join()).toMatch(/acts for nobody/);
  });

  it(`refuses a grant beyond ${MAX_PERMISSIONS} in force`, () => {
    expect(decisionIssues(calls, { decisions: [{ toolCallId: "a", approved: true, grant: {} }] }, { nowMs: T0, live: MAX_PERMISSIONS })?.join()).toMatch(/at most 20 may be in force: revoke one first/);
    expect(decisionIssues(calls, { decisions: [{ toolCallId: "a", approved: true }] }, { nowMs: T0, live: MAX_PERMISSIONS })).toBeUndefined();
  });
});

describe("a permission in force", () => {
  it("lets through a call of its tool that fits its match, and no other", () => {
    const live = livePermissions([granted("r1", { a: under50 })], T0);
    expect(live).toEqual([expect.objectContaining({ permissionId: "r1#a", tool: "refund", approvalId: "r1", grantedBy: { id: "fiona" }, for: "anyone" })]);
    expect(permitting(live, call(30), sam, T0)?.permissionId).toBe("r1#a");
    expect(permitting(live, call(80), sam, T0)).toBeUndefined();
    expect(permitting(live, call(30, "sendPayout"), sam, T0)).toBeUndefined();
    expect(permitting(live, { ...call(30), function: { name: "refund", arguments: "{not json" } }, sam, T0)).toBeUndefined();
  });

  it("lapses at its until, measured from the decision", () => {
    const records = [granted("r1", { a: { until: "2h" } })];
    expect(permissionsOf(records)[0]!.until).toBe("2026-12-01T12:00:00.000Z");
    expect(permitting(livePermissions(records, T0 + 7_199_999), call(1), sam, T0 + 7_199_999)).toBeDefined();
    expect(livePermissions(records, T0 + 7_200_000)).toEqual([]);
    // The worker's list is checked against the time of the check too.
    expect(permitting(permissionsOf(records), call(1), sam, T0 + 7_200_000)).toBeUndefined();
  });

  it("for a principal, lets through only calls made for that principal", () => {
    const live = livePermissions([granted("r1", { a: { for: "principal" } })], T0);
    expect(permitting(live, call(1), sam, T0)).toBeDefined();
    expect(permitting(live, call(1), { id: "ann" }, T0)).toBeUndefined();
    expect(permitting(live, call(1), undefined, T0)).toBeUndefined();
  });

  it("ends when revoked, and the trail says what was granted and when it was revoked", () => {
    const record = granted("r1", { a: under50 });
    record.approval!.revoked = [{ permissionId: "r1#a", at: new Date(T0 + 5000).toISOString(), by: { id: "lead" } }];
    expect(livePermissions([record], T0 + 6000)).toEqual([]);
    expect(permissionsOf([record])[0]).toMatchObject({ revoked: { at: "2026-12-01T10:00:05.000Z", by: { id: "lead" } } });
    const trail = approvalTrail(record);
    expect(trail.find((e) => e.type === "decided")).toMatchObject({ decision: "approved", grant: { ...under50, permissionId: "r1#a" } });
    expect(trail.at(-1)).toEqual({ type: "revoked", at: "2026-12-01T10:00:05.000Z", by: { id: "lead" }, permissionId: "r1#a" });
  });

  it("is never granted by a denied, expired or still waiting request", () => {
    for (const status of ["denied", "expired", "deferred"] as const) expect(permissionsOf([{ ...granted("r1", { a: {} }), status }])).toEqual([]);
  });
});

describe("grants, revocations, time and calls interleaved", () => {
  type Op = { kind: "grant"; max?: number; untilH?: number } | { kind: "revoke"; pick: number } | { kind: "wait"; minutes: number } | { kind: "call"; amount: number; tool: "refund" | "other" };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant("grant" as const), max: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }), untilH: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }) }),
    fc.record({ kind: fc.constant("revoke" as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant("wait" as const), minutes: fc.integer({ min: 1, max: 200 }) }),
    fc.record({ kind: fc.constant("call" as const), amount: fc.integer({ min: 0, max: 100 }), tool: fc.constantFrom("refund" as const, "other" as const) }),
  );

  it("never lets a call through that no live grant allowed, and always lets through one that one did", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const records: DeferralRecord[] = [];
        // The model: what each grant allows, kept apart from the records.
        const model: Array<{ id: string; max?: number; endsAt?: number; revoked: boolean }> = [];
        let now = T0;
        for (const o of ops) {
          if (o.kind === "wait") now += o.minutes * 60_000;
          else if (o.kind === "grant") {
            const id = `r${records.length + 1}`;
            const grant: PermissionGrant = { ...(o.max !== undefined ? { match: { properties: { amount: { maximum: o.max } } } } : {}), ...(o.untilH !== undefined ? { until: `${o.untilH}h` } : {}) };
            records.push(granted(id, { a: grant }, now));
            model.push({ id: `${id}#a`, ...(o.max !== undefined ? { max: o.max } : {}), ...(o.untilH !== undefined ? { endsAt: now + o.untilH * 3_600_000 } : {}), revoked: false });
          } else if (o.kind === "revoke") {
            const live = livePermissions(records, now);
            if (live.length === 0) continue;
            const target = live[o.pick % live.length]!;
            const record = records.find((r) => r.id === target.approvalId)!;
            record.approval!.revoked = [...(record.approval!.revoked ?? []), { permissionId: target.permissionId, at: new Date(now).toISOString() }];
            model.find((m) => m.id === target.permissionId)!.revoked = true;
          } else {
            // What the worker sees, then what the workflow checks again.
            const sent = livePermissions(records, now);
            const through = permitting(sent, call(o.amount, o.tool === "refund" ? "refund" : "other"), sam, now);
            const allowedBy = model.filter((m) => o.tool === "refund" && !m.revoked && (m.endsAt === undefined || now < m.endsAt) && (m.max === undefined || o.amount <= m.max));
            if (through) expect(allowedBy.map((m) => m.id)).toContain(through.permissionId);
            else expect(allowedBy).toEqual([]);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("a grant made by a call decided on its own", () => {
  // Three calls; "a" decided alone by bea with a grant while "b" and "c" still wait.
  const partly = (): DeferralRecord => {
    const record = granted("dfr:1:run-1:s", { a: undefined, b: undefined, c: undefined });
    const decidedAt = new Date(T0 + 5_000).toISOString();
    return {
      ...record,
      status: "deferred",
      resumedAt: undefined,
      resumedBy: undefined,
      payload: undefined,
      approval: { ...record.approval!, decided: [{ decision: { toolCallId: "a", approved: true, grant: under50 }, by: { id: "bea" }, at: decidedAt }] },
    } as unknown as DeferralRecord;
  };

  it("is in force at once, while the request waits for its other calls, by its decider and from its time", () => {
    const [permission, ...rest] = permissionsOf([partly()]);
    expect(rest).toEqual([]);
    expect(permission).toMatchObject({ permissionId: "dfr:1:run-1:s#a", grantedBy: { id: "bea" }, grantedAt: new Date(T0 + 5_000).toISOString() });
    expect(permitting(livePermissions([partly()], T0 + 6_000), call(20), sam, T0 + 6_000)?.permissionId).toBe("dfr:1:run-1:s#a");
    expect(permitting(livePermissions([partly()], T0 + 6_000), call(80), sam, T0 + 6_000)).toBeUndefined();
  });

  it("keeps its decider once the request's last call closes it", () => {
    const open = partly();
    const closed = {
      ...open,
      status: "resumed",
      resumedAt: new Date(T0 + 9_000).toISOString(),
      resumedBy: { id: "carl" },
      payload: { decisions: [{ toolCallId: "a", approved: true, grant: under50 }, { toolCallId: "b", approved: false }, { toolCallId: "c", approved: true }] },
    } as unknown as DeferralRecord;
    expect(permissionsOf([closed])).toEqual([expect.objectContaining({ permissionId: "dfr:1:run-1:s#a", grantedBy: { id: "bea" } })]);
  });
});

