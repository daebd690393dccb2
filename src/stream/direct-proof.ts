import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { TLSSocket } from "node:tls";

/**
 * What a reader proves to a worker's stream endpoint, over a TLS connection to the endpoint
 * whose certificate the worker announced (direct-certificate.ts):
 *
 * - `gate`: that it read the worker's beacon in Temporal (the random gate the beacon carries);
 *   checked first, in memory, so a stranger costs the worker nothing more;
 * - `proof`: that it may read this run's stream: the run's stream key, which only the
 *   workflow's memo holds (src/core/stream-key.ts).
 *
 * Both are HMACs over the connection's exported keying material (RFC 5705), so neither is a
 * secret the reader hands over: a proof made for one TLS connection means nothing on another,
 * and only the endpoint holding the pinned key can be on the other end of it anyway.
 */
export const GATE_HEADER = "x-durable-agents-gate";
export const PROOF_HEADER = "x-durable-agents-proof";

const EXPORTER_LABEL = "EXPORTER-durable-agents-stream";

/** 32 random bytes, base64url: a new stream key (a client starting a workflow) or an endpoint's gate. */
export function randomKey(): string {
  return randomBytes(32).toString("base64url");
}

/** The connection's keying material: the same bytes at both ends of one TLS connection, and only there. */
export function channelBinding(socket: TLSSocket): Buffer {
  return socket.exportKeyingMaterial(32, EXPORTER_LABEL, Buffer.alloc(0));
}

/** The reader's proof that it knows the endpoint's gate. */
export function gateProof(gate: string, binding: Buffer): string {
  return createHmac("sha256", gate).update("durable-agents/stream-gate/v1\n").update(binding).digest("base64url");
}

/** The reader's proof that it holds `threadId`'s stream key, for its run `runId`. */
export function readProof(streamKey: string, binding: Buffer, threadId: string, runId: string): string {
  return createHmac("sha256", streamKey).update("durable-agents/stream-read/v1\n").update(binding).update(`\n${threadId}\n${runId}`).digest("base64url");
}

/** Constant-time comparison of a proof received with the one expected. */
export function sameProof(given: unknown, expected: string): boolean {
  if (typeof given !== "string" || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
