import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonBytes, jsonStringPrefix, MAX_PAYLOAD_BYTES, pageOf, payloadTooLarge, tailOf } from "../../src/core/payload-size.js";

const encoded = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");
// Strings with every kind of character JSON escapes or encodes on several bytes, lone surrogates included.
const anyString = fc.string({ unit: fc.oneof(fc.constantFrom('"', "\\", "\n", "\u0001", "\u007f", "é", "€", "😀", "\ud800", "\udc00", "\u2028"), fc.string({ unit: "binary", minLength: 1, maxLength: 1 })) });

describe("jsonBytes", () => {
  it("is the UTF-8 length of JSON.stringify for any JSON value and any string", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      expect(jsonBytes(value)).toBe(encoded(value));
    }));
    fc.assert(fc.property(anyString, (s) => {
      expect(jsonBytes(s)).toBe(encoded(s));
    }));
    fc.assert(fc.property(fc.dictionary(anyString, fc.option(anyString, { nil: undefined })), (o) => {
      expect(jsonBytes(o)).toBe(encoded(o));
    }));
  });

  it("measures hostile input without a stack overflow or a copy, and stops early", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(jsonBytes(deep)).toBe(200_000 * 2 + 3);
    const huge = "a".repeat(50_000_000);
    expect(jsonBytes(huge, 1000)).toBeGreaterThan(1000);
    expect(jsonBytes(huge, 1000)).toBeLessThan(2000);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(jsonBytes(cycle)).toBe(Infinity);
  });

  it("refuses with AI1016 over the limit, naming what, its size and the limit", () => {
    expect(payloadTooLarge("x".repeat(MAX_PAYLOAD_BYTES - 2), "the prompt")).toBeUndefined();
    const refused = payloadTooLarge("x".repeat(MAX_PAYLOAD_BYTES), "the prompt");
    expect(refused).toMatchObject({ code: "AI1016", fields: { what: "the prompt", limitBytes: MAX_PAYLOAD_BYTES } });
    expect(refused!.fields.bytes).toBeGreaterThan(MAX_PAYLOAD_BYTES);
    expect(refused!.message).toMatch(/the prompt is \d+ bytes of JSON, over the 1572864-byte limit/);
  });
});

describe("jsonStringPrefix", () => {
  it("keeps the longest prefix within the bytes, never splitting a pair", () => {
    fc.assert(
      fc.property(anyString, fc.nat(200), (s, max) => {
        const prefix = jsonStringPrefix(s, max);
        expect(s.startsWith(prefix)).toBe(true);
        expect(encoded(prefix) - 2).toBeLessThanOrEqual(max);
        if (prefix.length < s.length) expect(encoded(s.slice(0, prefix.length + (/[\ud800-\udbff]/.test(s[prefix.length]!) && /[\udc00-\udfff]/.test(s[prefix.length + 1] ?? "") ? 2 : 1))) - 2).toBeGreaterThan(max);
      }),
    );
  });
});

describe("pages", () => {
  const items = Array.from({ length: 50 }, (_, i) => "m".repeat(100 * (i + 1)));
  it("cut by count and bytes, with at least one item", () => {
    expect(pageOf(items, 0, 10, 1_000_000)).toHaveLength(10);
    const page = pageOf(items, 0, 50, 3_000);
    expect(encoded(page)).toBeLessThanOrEqual(3_000);
    expect(encoded(pageOf(items, 0, page.length + 1, 1_000_000))).toBeGreaterThan(3_000);
    expect(pageOf(items, 49, 10, 10)).toEqual([items[49]]);
    expect(pageOf(items, 50, 10)).toEqual([]);
  });
  it("tails keep the newest that fit, possibly none", () => {
    expect(tailOf(items, 3, 1_000_000)).toEqual(items.slice(47));
    const tail = tailOf(items, 50, 12_000);
    expect(tail.at(-1)).toBe(items[49]);
    expect(encoded(tail)).toBeLessThanOrEqual(12_000);
    expect(tailOf(items, 5, 100)).toEqual([]);
  });
});
