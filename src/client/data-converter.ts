import { ValueError, type DataConverter, type LoadedDataConverter, type Payload, type PayloadConverter } from "@temporalio/common";
import { loadDataConverter } from "@temporalio/common/lib/internal-non-workflow/index.js";
import { CodecMissingError } from "../core/errors/setup.js";

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
