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
