/**
 * Search attributes read from raw payloads (a list response, a history event's upsert) with
 * Temporal's published parts only: the same values Temporal's own (unpublished) decoder
 * gives for what Temporal's encoder writes, and nothing for values of the wrong type.
 */
import { defaultPayloadConverter, defineSearchAttributeKey, SearchAttributeType } from "@temporalio/common";
import { decodeTypedSearchAttributes, encodeUnifiedSearchAttributes } from "@temporalio/common/lib/converter/payload-search-attributes.js";
import { describe, expect, it } from "vitest";
import { typedSearchAttributesOf } from "../../src/client/data-converter.js";
import { AgentIdKey, DeferralExpiresAtKey, DeferralIdKey, DeferralStatusKey } from "../../src/core/search-attributes.js";

const keys = [AgentIdKey, DeferralStatusKey, DeferralIdKey, DeferralExpiresAtKey];

describe("raw search attributes", () => {
  it("decode as Temporal decodes what Temporal encodes", () => {
    const written = encodeUnifiedSearchAttributes(undefined, [
      { key: AgentIdKey, value: "payouts" },
      { key: DeferralStatusKey, value: "deferred" },
      { key: DeferralIdKey, value: "dfr:1:run-1" },
      { key: DeferralExpiresAtKey, value: new Date("2026-12-09T10:00:00.000Z") },
    ]);
    const ours = typedSearchAttributesOf(written, keys);
    const theirs = decodeTypedSearchAttributes(written);
    for (const key of keys) expect(ours.get(key as never)).toEqual(theirs.get(key as never));
    expect(ours.get(DeferralExpiresAtKey)).toEqual(new Date("2026-12-09T10:00:00.000Z"));
    expect(ours.get(DeferralStatusKey)).toBe("deferred");
  });

  it("leave out what is missing, of another type than its key, or not a date", () => {
    const other = defineSearchAttributeKey("Other", SearchAttributeType.KEYWORD);
    const fields = {
      AgentId: defaultPayloadConverter.toPayload(42),
      DeferralStatus: defaultPayloadConverter.toPayload(["deferred"]),
      DeferralExpiresAt: defaultPayloadConverter.toPayload("not a date"),
    };
    const read = typedSearchAttributesOf(fields, [...keys, other]);
    expect(read.get(AgentIdKey)).toBeUndefined();
    expect(read.get(DeferralStatusKey)).toBe("deferred");
    expect(read.get(DeferralExpiresAtKey)).toBeUndefined();
    expect(read.get(DeferralIdKey)).toBeUndefined();
    expect(typedSearchAttributesOf(undefined, keys).getAll()).toEqual([]);
  });
});
