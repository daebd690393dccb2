import { describe, expect, it } from "vitest";
import { inboxMemoOf, inboxRowFrom, MAX_INBOX_ROW_BYTES } from "../../src/core/inbox-row.js";
import type { DeferralRecord } from "../../src/core/deferral-record.js";

const record: DeferralRecord = {
  id: "dfr:1:run-1",
  runId: "run-1",
  agentId: "payouts",
  toolCallId: "c1",
  toolName: "pay",
  toolArguments: '{"amount":3}',
  callFingerprint: "f".repeat(64),
  status: "deferred",
  meta: { requires: ["payouts:approve"] },
  deferredAt: "2026-01-01T00:00:00.000Z",
  expiresAt: "2026-01-04T00:00:00.000Z",
  principal: { id: "clerk" },
};

describe("the inbox's memo row", () => {
  it("is read back for its own request only", () => {
    const memo = inboxMemoOf(record);
    expect(inboxRowFrom(memo, record.id)).toEqual({
      id: record.id,
      kind: "deferral",
      agentId: "payouts",
      calls: [{ toolCallId: "c1", toolName: "pay", arguments: '{"amount":3}' }],
      meta: record.meta,
      deferredAt: record.deferredAt,
      expiresAt: record.expiresAt,
      principal: { id: "clerk" },
      callFingerprint: record.callFingerprint,
    });
    // A memo an earlier request of the run left, none at all (a request made before rows were kept), or a malformed one: read the record instead.
    expect(inboxRowFrom(memo, "dfr:2:run-1")).toBeUndefined();
    for (const bad of [undefined, null, "x", 1, [], { id: record.id }, { ...memo, calls: "x" }, { ...memo, kind: "other" }, { ...memo, meta: null }, { ...memo, deferredAt: 5 }]) {
      expect(inboxRowFrom(bad, record.id)).toBeUndefined();
    }
  });

  it("keeps only the id of a row too heavy to copy, which then reads as no row", () => {
    const heavy = { ...record, toolArguments: JSON.stringify({ to: "é".repeat(MAX_INBOX_ROW_BYTES / 2) }) };
    const memo = inboxMemoOf(heavy);
    expect(memo).toEqual({ id: record.id, omitted: true });
    expect(inboxRowFrom(memo, record.id)).toBeUndefined();
  });
});
