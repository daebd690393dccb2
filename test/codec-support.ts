/**
 * Encryption test plumbing: a worker and client sharing a codec, and what Temporal stores
 * for a workflow as read by a client without one.
 */
import type { PayloadCodec } from "@temporalio/common";
import type { AgentDefinition } from "../src/index.js";
import { AgentClient } from "../src/index.js";
import { SECRET, type Harness, type WorkerOverrides } from "./harness.js";

/** A worker for `agents` and a client that encode payloads with `codec`, on `taskQueue` when given. */
export function encryptedWorker(h: Harness, agents: AgentDefinition[], codec: PayloadCodec, overrides: WorkerOverrides = {}) {
  const dataConverter = { payloadCodecs: [codec] };
  return h.worker(agents, {
    deferral: { secret: SECRET },
    ...overrides,
    worker: { ...overrides.worker, dataConverter },
    client: { deferral: { secret: SECRET }, ...overrides.client, dataConverter },
  });
}

/** A client with no codec: what anyone with namespace access reads. */
export const rawClient = (h: Harness) => new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue: "unused" });

/** The workflow's history (every execution of `runIds`, or the latest) as a client without the codec reads it. */
export async function rawHistory(h: Harness, workflowId: string, runId?: string) {
  return rawClient(h).client.workflow.getHandle(workflowId, runId).fetchHistory();
}

/** Everything Temporal stores for the workflow, read without the codec: each payload's bytes decoded, as text. */
export async function storedBytes(h: Harness, workflowId: string, runId?: string): Promise<string> {
  const history = JSON.parse(JSON.stringify(await rawHistory(h, workflowId, runId))) as unknown;
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== "object") return;
    for (const [key, field] of Object.entries(value)) {
      // Payload bytes (data, and metadata values) come as base64 strings in the history's JSON form.
      if (typeof field === "string" && (key === "data" || key === "encoding" || key === "encryption-key-id")) texts.push(Buffer.from(field, "base64").toString("latin1"));
      else walk(field);
    }
  };
  walk(history);
  return texts.join("\n");
}

/** A payload in the codec server protocol's JSON form (protobuf JSON: bytes as base64). */
export function payloadJson(payload: { metadata?: Record<string, Uint8Array | null> | null; data?: Uint8Array | null }) {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString("base64")])),
    data: Buffer.from(payload.data ?? []).toString("base64"),
  };
}
