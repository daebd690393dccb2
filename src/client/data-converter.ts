import {
  defaultPayloadConverter,
  fromPayloadsAtIndex,
  SearchAttributeType,
  ValueError,
  type DataConverter,
  type LoadedDataConverter,
  type Payload,
  type PayloadConverter,
  TypedSearchAttributes,
  type SearchAttributePair,
} from "@temporalio/common";
import { CodecMissingError } from "../core/errors/setup.js";
import { loadDataConverter } from "../temporal/internals.js";

/**
 * The data converter a façade's Temporal client decodes with: the one it was given, its
 * payload converter turning Temporal's bare `ValueError: Unknown encoding: binary/encrypted`
 * (a payload encoded by a codec this client was not given) into AI1046, which names the
 * codec option and the CLI's `--codec-endpoint`. Every read of the client decodes through
 * it (results, queries, failures, memos, the stream client), so no verb translates on its own.
 */
export function clientDataConverter(dataConverter: DataConverter | undefined): LoadedDataConverter {
  const loaded = loadDataConverter(dataConverter);
  return { ...loaded, payloadConverter: namingMissingCodecs(loaded.payloadConverter) };
}

function namingMissingCodecs(inner: PayloadConverter): PayloadConverter {
  // Delegating through the prototype keeps the converter's other members (and `instanceof`).
  const converter = Object.create(inner) as PayloadConverter;
  converter.fromPayload = <T>(payload: Payload, ...rest: unknown[]): T => {
    try {
      return (inner.fromPayload as (p: Payload, ...r: unknown[]) => T)(payload, ...rest);
    } catch (err) {
      if (err instanceof ValueError && err.message.startsWith("Unknown encoding")) throw new CodecMissingError({ encoding: encodingOf(payload) });
      throw err;
    }
  };
  return converter;
}

function encodingOf(payload: Payload): string {
  const raw = payload.metadata?.encoding;
  return raw ? Buffer.from(raw).toString("utf8").slice(0, 100) : "(none)";
}

/**
 * The value at `index` of `payloads` as a client's data converter wrote them: its codecs
 * undone, last first, then its payload converter (undefined past the end). Built from the
 * converter's published parts, as Temporal's client decodes results.
 */
export async function decodePayloadAt<T>(converter: LoadedDataConverter, index: number, payloads: Payload[] | null | undefined): Promise<T> {
  let decoded = payloads ?? undefined;
  if (decoded) for (const codec of [...converter.payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return fromPayloadsAtIndex<T>(converter.payloadConverter, index, decoded);
}

/**
 * Raw search attributes (a list response's, a history event's) as the published
 * `TypedSearchAttributes`, for the keys asked: search attributes are never encoded by
 * codecs, so the default payload converter reads them; a DATETIME becomes a `Date`; a value
 * of another type than its key's is left out.
 */
export function typedSearchAttributesOf(fields: Record<string, Payload> | null | undefined, keys: ReadonlyArray<SearchAttributePair["key"]>): TypedSearchAttributes {
  const pairs: SearchAttributePair[] = [];
  for (const key of keys) {
    const payload = fields?.[key.name];
    if (!payload) continue;
    let value: unknown;
    try {
      value = defaultPayloadConverter.fromPayload<unknown>(payload);
    } catch {
      continue;
    }
    if (Array.isArray(value) && key.type !== SearchAttributeType.KEYWORD_LIST) value = value[0];
    if (key.type === SearchAttributeType.DATETIME) {
      value = new Date(String(value));
      if (Number.isNaN((value as Date).getTime())) continue;
    } else if (!ofType(value, key.type)) {
      continue;
    }
    pairs.push({ key, value } as SearchAttributePair);
  }
  return new TypedSearchAttributes(pairs);
}

function ofType(value: unknown, type: SearchAttributeType): boolean {
  switch (type) {
    case SearchAttributeType.KEYWORD_LIST:
      return Array.isArray(value) && value.every((v) => typeof v === "string");
    case SearchAttributeType.BOOL:
      return typeof value === "boolean";
    case SearchAttributeType.INT:
    case SearchAttributeType.DOUBLE:
      return typeof value === "number";
    default:
      return typeof value === "string";
  }
}
