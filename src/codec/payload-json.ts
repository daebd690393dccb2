import type { Payload } from "@temporalio/common";

/** A payload as protobuf's JSON mapping writes it (bytes as base64): the codec server protocol's form. */
export interface PayloadJson {
  metadata?: Record<string, string>;
  data?: string;
}

export function payloadToJson(payload: Payload): PayloadJson {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? []).toString("base64")])),
    ...(payload.data ? { data: Buffer.from(payload.data).toString("base64") } : {}),
  };
}

// Standard or URL-safe base64, padded or not, as protobuf's JSON mapping accepts.
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * Reads an untrusted value as a payload's JSON form (base64 or base64url bytes). Throws a
 * plain Error naming the first defect at `where`, never echoing the bytes; callers wrap it in
 * their own typed error.
 */
export function payloadFromJson(value: unknown, where = "payload"): Payload {
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error(`${where} must be an object`);
  const { metadata, data } = value as { metadata?: unknown; data?: unknown };
  if (metadata !== undefined && metadata !== null && (typeof metadata !== "object" || Array.isArray(metadata))) throw new Error(`${where}.metadata must be an object`);
  const entries = Object.entries((metadata ?? {}) as Record<string, unknown>).map(([key, v]) => [key, bytesOf(v, `${where}.metadata`)] as const);
  return {
    metadata: Object.fromEntries(entries),
    ...(data !== undefined && data !== null ? { data: bytesOf(data, `${where}.data`) } : {}),
  };
}

function bytesOf(value: unknown, where: string): Uint8Array {
  if (typeof value !== "string" || !BASE64.test(value)) throw new Error(`${where} must hold base64 strings`);
  return Buffer.from(value, value.includes("-") || value.includes("_") ? "base64url" : "base64");
}
