import type { Payload, PayloadCodec } from "@temporalio/common";
import { CodecFailedError } from "../core/errors/http.js";
import { payloadFromJson, payloadToJson } from "./payload-json.js";

/** Where a remote codec server is, and what to send it. */
export interface RemoteCodecOptions {
  /** The codec server's base URL: `…/encode` and `…/decode` are posted to under it. */
  endpoint: string;
  /** Sent as `X-Namespace`. */
  namespace?: string;
  /** Sent as `Authorization`, e.g. `"Bearer …"`. */
  authorization?: string;
}

/**
 * A payload codec that asks a codec server (the Temporal UI's protocol, e.g. `createCodecServer`)
 * to encode and decode, so a tool such as the `durable-agents` command reads encrypted runs
 * without holding the keys. A refusal or a failure is AI1045.
 */
export function remoteCodec(options: RemoteCodecOptions): PayloadCodec {
  const base = options.endpoint.replace(/\/+$/, "");
  const call = async (operation: "encode" | "decode", payloads: Payload[]): Promise<Payload[]> => {
    if (payloads.length === 0) return payloads;
    const response = await fetch(`${base}/${operation}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(options.namespace ? { "x-namespace": options.namespace } : {}),
        ...(options.authorization ? { authorization: options.authorization } : {}),
      },
      body: JSON.stringify({ payloads: payloads.map(payloadToJson) }),
    });
    const body = (await response.json().catch(() => undefined)) as { payloads?: unknown[] } | undefined;
    if (!response.ok || !Array.isArray(body?.payloads) || body.payloads.length !== payloads.length) throw new CodecFailedError({ operation });
    try {
      return body.payloads.map((p, i) => payloadFromJson(p, `payloads[${i}]`));
    } catch {
      throw new CodecFailedError({ operation });
    }
  };
  return { encode: (payloads) => call("encode", payloads), decode: (payloads) => call("decode", payloads) };
}
