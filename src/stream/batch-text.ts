import type { Payload, PayloadCodec } from "@temporalio/common";
import { payloadFromJson, payloadToJson } from "../codec/payload-json.js";
import { asStreamUpdate } from "../core/stream-fold.js";
import type { StreamBatch } from "../core/thread-contracts.js";

const JSON_ENCODING = "json/plain";

/** The largest batch a cross-process transport sends or accepts by default (after the codec): well above what one batch holds. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * What is wrong with the options every cross-process transport takes alike (`codec`,
 * `onError`, `maxMessageBytes`), said as the factory's AI1080 says it; undefined when nothing.
 */
export function sharedOptionProblem(options: { codec?: unknown; onError?: unknown; maxMessageBytes?: unknown }): string | undefined {
  const { codec, onError, maxMessageBytes } = options;
  const aCodec = typeof codec === "object" && codec !== null && typeof (codec as PayloadCodec).encode === "function" && typeof (codec as PayloadCodec).decode === "function";
  if (codec !== undefined && !aCodec) return "`codec` must be a payload codec ({ encode, decode }), e.g. aesGcmCodec({ keys, current })";
  if (onError !== undefined && typeof onError !== "function") return "`onError` must be a function";
  if (maxMessageBytes !== undefined && (typeof maxMessageBytes !== "number" || !Number.isSafeInteger(maxMessageBytes) || maxMessageBytes <= 0)) {
    return "`maxMessageBytes` must be a positive whole number of bytes";
  }
  return undefined;
}
const utf8 = (text: string) => Buffer.from(text, "utf8");

/**
 * A batch as the text a transport carries between processes: JSON, or with a codec the
 * JSON of a Temporal payload the codec encoded, so that an encrypting codec keeps message
 * text off the wire and off a broker.
 */
export async function batchToText(batch: StreamBatch, codec: PayloadCodec | undefined): Promise<string> {
  const json = JSON.stringify(batch);
  if (!codec) return json;
  const [encoded] = await codec.encode([{ metadata: { encoding: utf8(JSON_ENCODING) }, data: utf8(json) }]);
  if (!encoded) throw new Error("the stream transport's codec returned no payload");
  return JSON.stringify({ payload: payloadToJson(encoded as Payload) });
}

/** What `batchFromText` makes of untrusted text: the batch, or why it is dropped. */
export type ReadBatch = { batch: StreamBatch } | { problem: string; cause?: unknown };

/** Reads text from another process as a batch (see `batchToText`); never throws. */
export async function batchFromText(text: string, codec: PayloadCodec | undefined): Promise<ReadBatch> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    return { problem: "not JSON", cause };
  }
  if (codec) {
    const envelope = value as { payload?: unknown } | null;
    if (!envelope || typeof envelope !== "object" || !("payload" in envelope)) return { problem: "not an encoded batch (does the publisher have this transport's codec?)" };
    try {
      const [decoded] = await codec.decode([payloadFromJson(envelope.payload)]);
      if (Buffer.from(decoded?.metadata?.encoding ?? []).toString() !== JSON_ENCODING) return { problem: "the codec's output is not a JSON payload" };
      value = JSON.parse(Buffer.from(decoded!.data ?? []).toString("utf8"));
    } catch (cause) {
      return { problem: "the codec could not decode it", cause };
    }
  }
  const batch = asBatch(value);
  if (batch) return { batch };
  const encoded = !codec && typeof value === "object" && value !== null && "payload" in value;
  return { problem: encoded ? "an encoded batch, and this transport has no codec (give it the publisher's)" : "not a stream batch" };
}

/** Reads an untrusted value as a batch; undefined when it is not one. */
function asBatch(value: unknown): StreamBatch | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { after, entries } = value as { after?: unknown; entries?: unknown };
  if (typeof after !== "number" || !Number.isSafeInteger(after) || after < 0 || !Array.isArray(entries)) return undefined;
  const updates = entries.map(asStreamUpdate);
  return updates.every((u) => u !== undefined) ? { after, entries: updates as StreamBatch["entries"] } : undefined;
}
