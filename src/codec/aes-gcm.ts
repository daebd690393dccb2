import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Payload, PayloadCodec } from "@temporalio/common";
import { InvalidDefinitionError } from "../core/errors/setup.js";

/** `aesGcmCodec`'s keys: each 32 bytes (a Buffer, or base64), by key id, and which one encrypts. */
export interface AesGcmCodecOptions {
  /**
   * Every key a payload may have been encrypted with, by id. Keep a retired key here for as
   * long as runs or threads made with it can still be read (parked runs, their histories).
   */
  keys: Record<string, Uint8Array | string>;
  /** The id of the key new payloads are encrypted with. */
  current: string;
}

const ENCODING = "binary/encrypted";
const KEY_ID = "encryption-key-id";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A payload codec that encrypts every payload with AES-256-GCM (Node's crypto), naming the
 * key in the payload's metadata so keys rotate without breaking parked runs: encrypt with
 * `current`, decrypt with whichever key the payload names. Give the same codec to the
 * worker (`worker: { dataConverter: { payloadCodecs: [codec] } }`) and to every client
 * (`dataConverter`), so transcripts, tool results, principals, `meta` and resume payloads
 * are stored encrypted. Search attributes are never encrypted (and hold no personal data).
 */
export function aesGcmCodec(options: AesGcmCodecOptions): PayloadCodec {
  const bad = (problem: string) => new InvalidDefinitionError({ subject: "aesGcmCodec", problem });
  const keys = new Map<string, Buffer>();
  for (const [id, key] of Object.entries(options?.keys ?? {})) {
    const bytes = typeof key === "string" ? Buffer.from(key, "base64") : Buffer.from(key);
    if (bytes.length !== 32) throw bad(`key "${id}" is ${bytes.length} bytes; AES-256 needs exactly 32 (e.g. openssl rand -base64 32)`);
    keys.set(id, bytes);
  }
  const current = keys.get(options?.current);
  if (!current) throw bad(`current key "${String(options?.current)}" is not among keys`);
  const currentId = Buffer.from(options.current);

  return {
    async encode(payloads: Payload[]): Promise<Payload[]> {
      return payloads.map((payload) => {
        const iv = randomBytes(IV_BYTES);
        const cipher = createCipheriv("aes-256-gcm", current, iv);
        const sealed = Buffer.concat([cipher.update(serialize(payload)), cipher.final()]);
        return { metadata: { encoding: Buffer.from(ENCODING), [KEY_ID]: currentId }, data: Buffer.concat([iv, sealed, cipher.getAuthTag()]) };
      });
    },
    async decode(payloads: Payload[]): Promise<Payload[]> {
      return payloads.map((payload) => {
        if (Buffer.from(payload.metadata?.encoding ?? []).toString() !== ENCODING) return payload;
        const id = Buffer.from(payload.metadata?.[KEY_ID] ?? []).toString();
        const key = keys.get(id);
        if (!key) throw bad(`a payload was encrypted with key "${id}", which this codec does not hold: keep retired keys in \`keys\` while what they encrypted can still be read`);
        const data = Buffer.from(payload.data ?? []);
        const decipher = createDecipheriv("aes-256-gcm", key, data.subarray(0, IV_BYTES));
        decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
        return deserialize(Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]));
      });
    },
  };
}

/** A payload as bytes: its metadata and data, base64 in JSON (no protobuf needed to read it back). */
function serialize(payload: Payload): Buffer {
  const metadata = Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString("base64")]));
  return Buffer.from(JSON.stringify({ m: metadata, d: Buffer.from(payload.data ?? []).toString("base64") }));
}

function deserialize(bytes: Buffer): Payload {
  const { m, d } = JSON.parse(bytes.toString("utf8")) as { m: Record<string, string>; d: string };
  return { metadata: Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Buffer.from(v, "base64")])), data: Buffer.from(d, "base64") };
}
