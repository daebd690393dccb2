/**
 * Payloads read from a history (signals, activity inputs and results, timer summaries, memos)
 * with the client's data converter, from Temporal's published parts: the same values
 * Temporal's own (unpublished) helper gives, codecs undone last first.
 */
import type { Payload, PayloadCodec } from "@temporalio/common";
import { decodeFromPayloadsAtIndex, encodeToPayloads } from "@temporalio/common/lib/internal-non-workflow/index.js";
import { describe, expect, it } from "vitest";
import { decodePayloadAt } from "../../src/client/data-converter.js";
import { loadDataConverter } from "../../src/temporal/internals.js";

/** A codec that marks what it encodes, so codecs applied in the wrong order fail to decode. */
const marking = (mark: string): PayloadCodec => ({
  encode: async (payloads) => payloads.map((p) => ({ metadata: { encoding: new TextEncoder().encode(mark) }, data: new TextEncoder().encode(JSON.stringify({ m: p.metadata && Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v).toString("base64")])), d: Buffer.from(p.data ?? []).toString("base64") })) })),
  decode: async (payloads) =>
    payloads.map((p): Payload => {
      if (Buffer.from(p.metadata?.encoding ?? []).toString() !== mark) throw new Error(`not ${mark}`);
      const { m, d } = JSON.parse(Buffer.from(p.data ?? []).toString()) as { m: Record<string, string>; d: string };
      return { metadata: Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Buffer.from(v, "base64")])), data: Buffer.from(d, "base64") };
    }),
});

describe("payloads of a history", () => {
  const converter = loadDataConverter({ payloadCodecs: [marking("inner"), marking("outer")] });

  it("decode as Temporal decodes what a client with codecs encodes", async () => {
    const values = [{ seq: 3, text: "héllo" }, "awaiting approval of pay (deferral d-1) until 2026-12-09T10:00:00.000Z", null];
    const payloads = await encodeToPayloads(converter, ...values);
    for (let i = 0; i < values.length; i++) {
      expect(await decodePayloadAt(converter, i, payloads)).toEqual(await decodeFromPayloadsAtIndex(converter, i, payloads));
      expect(await decodePayloadAt(converter, i, payloads)).toEqual(values[i]);
    }
  });

  it("read nothing past the end or from no payloads, and refuse bytes the codecs did not write", async () => {
    expect(await decodePayloadAt(converter, 2, await encodeToPayloads(converter, 1))).toBeUndefined();
    expect(await decodePayloadAt(converter, 0, undefined)).toBeUndefined();
    expect(await decodePayloadAt(converter, 0, null)).toBeUndefined();
    const plain = await encodeToPayloads(loadDataConverter(undefined), "x");
    await expect(decodePayloadAt(converter, 0, plain)).rejects.toThrow(/not outer/);
  });
});
