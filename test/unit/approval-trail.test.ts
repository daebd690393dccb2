/**
 * An approval request's trail as `approvals.history` derives it from the record: an edit is
 * told as the changes that turn what the model wrote into what ran, for any input; a
 * withdrawn or denied request ends with who and why.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { approvalTrail, inputChanges, type InputChange } from "../../src/core/approval-trail.js";
import type { DeferralRecord } from "../../src/core/deferral-record.js";
import type { JsonObject, JsonValue } from "../../src/core/json.js";

/** Applies changes at JSON Pointers to a copy of `from`. */
function applied(from: JsonObject, changes: InputChange[]): JsonObject {
  const out = structuredClone(from) as JsonObject;
  for (const { path, to } of changes) {
    const keys = path.split("/").slice(1).map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
    let at: JsonObject = out;
    for (const key of keys.slice(0, -1)) {
      if (typeof at[key] !== "object" || at[key] === null || Array.isArray(at[key])) at[key] = {};
      at = at[key] as JsonObject;
    }
    const last = keys.at(-1)!;
    if (to === undefined) delete at[last];
    else at[last] = to;
  }
  return out;
}

const record = (over: Partial<DeferralRecord>): DeferralRecord => ({
  id: "dfr:1:run",
  runId: "run",
  toolCallId: "c1",
  toolName: "wire",
  status: "deferred",
  meta: { requires: ["payouts:approve"] },
  deferredAt: "2026-01-01T00:00:00.000Z",
  expiresAt: "2026-01-02T00:00:00.000Z",
  approval: { calls: [{ toolCallId: "c1", toolName: "wire", arguments: '{"amount":5}' }] },
  ...over,
});

describe("the trail of an approval request", () => {
  it("tells an edit as changes that turn the model's input into the approved one, whatever both are", () => {
    const json = fc.jsonValue() as fc.Arbitrary<JsonValue>;
    const object = fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(json, fc.dictionary(fc.string({ maxLength: 4 }), json)));
    fc.assert(
      fc.property(object, object, (from, to) => {
        // JSON round trip: what the record holds (no -0, no undefined).
        const [a, b] = [JSON.parse(JSON.stringify(from)) as JsonObject, JSON.parse(JSON.stringify(to)) as JsonObject];
        const changes = inputChanges(a, b);
        expect(applied(a, changes)).toEqual(b);
        if (JSON.stringify(a) === JSON.stringify(b)) expect(changes).toEqual([]);
      }),
    );
  });

  it("ends with a withdrawal (when, why) or a denial (who, when, why)", () => {
    expect(approvalTrail(record({ status: "denied", deniedReason: "withdrawn: a new message moved the thread on", deniedAt: "2026-01-01T01:00:00.000Z" })).at(-1)).toEqual({
      type: "denied",
      at: "2026-01-01T01:00:00.000Z",
      reason: "withdrawn: a new message moved the thread on",
    });
    expect(approvalTrail(record({ status: "denied", deniedReason: "denied", denial: { reason: "fraud", by: { id: "ops" }, at: "2026-01-01T02:00:00.000Z" } })).at(-1)).toEqual({
      type: "denied",
      at: "2026-01-01T02:00:00.000Z",
      by: { id: "ops" },
      reason: "fraud",
    });
  });

  it("reads a record made before trails were kept (no schedule, no times) without failing", () => {
    expect(approvalTrail(record({ status: "denied", deniedReason: "RC5054" })).map((e) => e.type)).toEqual(["asked", "denied"]);
    expect(approvalTrail(record({ approval: undefined, toolArguments: "{}" }))).toEqual([{ type: "asked", at: "2026-01-01T00:00:00.000Z", calls: [{ toolCallId: "c1", toolName: "wire", arguments: "{}" }], requires: ["payouts:approve"] }]);
  });
});
