import type { ChatMessage } from "./messages.js";
import { hashText } from "./proof.js";

/**
 * The SDK's one non-cryptographic hash: two FNV-1a style 32-bit lanes over a string, so
 * workflow code (no Node crypto in the sandbox), workers and clients compute the same
 * value. Used for compare-and-swap stamps and cache checks, never for security.
 */
export function fnvHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

/**
 * A fingerprint of one message (over its fields, not over JSON key order): lets a worker
 * check that its cached transcript ends where the workflow's does.
 */
export function messageFingerprint(message: ChatMessage): string {
  const calls = message.role === "assistant" ? (message.tool_calls ?? []).map((c) => `${c.id}\u0001${c.function.name}\u0001${c.function.arguments}`).join("\u0002") : "";
  return fnvHash(`${message.role}\u0000${message.content ?? ""}\u0000${message.role === "tool" ? message.tool_call_id : ""}\u0000${calls}`);
}

/** A fingerprint of a deferral's step state (its JSON): the compare-and-swap stamp of a rewrite. */
export function fingerprintOf(value: unknown): string {
  return fnvHash(JSON.stringify(value) ?? "");
}

/**
 * What an approver was shown of a deferred call: its tool name and arguments, as the run
 * holds them. SHA-256 rather than `fnvHash`: a resume carrying it must not be satisfied by
 * other arguments crafted to collide, and FNV collisions are cheap to craft.
 */
export function callFingerprint(call: { name: string | undefined; arguments: string | undefined }): string {
  return hashText("deferred-call", JSON.stringify([call.name ?? null, call.arguments ?? null]));
}

/** Whether `value` could be a `callFingerprint` (64 hex digits). */
export function isCallFingerprint(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}

/** The parts of an agent definition a deferred step depends on: what RC5048 names when some changed. */
export type DefinitionPart = "system" | "model" | "tools" | "agents" | "settings" | "output" | "version";
export const DEFINITION_PARTS: readonly DefinitionPart[] = ["system", "model", "tools", "agents", "settings", "output", "version"];

/**
 * A short hash of each part of a definition, kept beside the definition hash (which alone
 * decides whether a deferred step may continue) so a refusal can say which parts changed.
 * Eight hex digits each: enough to tell an edit, small enough to ride in every record.
 */
export type DefinitionParts = Partial<Record<DefinitionPart, string>>;

export function definitionPartsOf(parts: Record<DefinitionPart, unknown>): DefinitionParts {
  return Object.fromEntries(DEFINITION_PARTS.map((part) => [part, fnvHash(JSON.stringify(parts[part] ?? null)).slice(0, 8)])) as DefinitionParts;
}

/** The parts whose hashes differ; undefined when the deferred step's parts were not recorded (a record from an older worker). */
export function changedParts(deferred: DefinitionParts | undefined, current: DefinitionParts | undefined): DefinitionPart[] | undefined {
  if (!deferred || !current) return undefined;
  return DEFINITION_PARTS.filter((part) => deferred[part] !== current[part]);
}
