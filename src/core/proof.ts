/**
 * Proof of possession for resumes and async-tool answers, shared by clients, workers and
 * workflow code (pure JS: the workflow sandbox has no Node crypto).
 *
 * token  --SHA-256-->  proof  --SHA-256-->  digest
 *
 * The worker that mints a token stores its digest in the workflow (history may hold it: it
 * forges nothing). A client that holds the token sends the proof; the workflow's update
 * validator hashes it and compares with the digest. A refused update leaves no history, so
 * the proof enters history only with an accepted update, which spends the token.
 */
import { sha256 } from "@noble/hashes/sha2.js";

/**
 * Where a token may be used: one namespace, one workflow id, and the first run of that
 * workflow id (a workflow id reused by a new run has another first run id). Runs never
 * continue as new, so for them it is the run id the activity sees.
 */
export interface TokenBinding {
  namespace: string;
  workflowId: string;
  firstRunId: string;
}

/** Why `claimed` (from a verified token) does not fit the execution the request reached, or undefined. */
export function bindingProblem(claimed: unknown, actual: TokenBinding): string | undefined {
  if (claimed === undefined) return undefined;
  const c = claimed as Partial<Record<keyof TokenBinding, unknown>> | null;
  if (typeof c !== "object" || c === null) return "its binding is malformed";
  if (c.namespace !== actual.namespace) return "it was minted for another namespace";
  if (c.workflowId !== actual.workflowId) return "it was minted for another workflow";
  if (c.firstRunId !== actual.firstRunId) return "it was minted for an earlier run of this workflow id";
  return undefined;
}

/** A proof is base64url of 32 bytes: exactly 43 characters, nothing else is hashed. */
const PROOF_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const DIGEST_SHAPE = /^[0-9a-f]{64}$/;
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** The proof a client sends for `token` (a resume token or an answer token). */
export function proofOf(token: string): string {
  return base64url(sha256(utf8Bytes(`durable-agents/proof\n${token}`)));
}

/** What the workflow stores for a proof: lets it check one, never make one. */
export function digestOfProof(proof: string): string {
  return hashText("proof-digest", proof);
}

/** SHA-256 (hex) of `text` under a purpose, so hashes made for one use never match another's. */
export function hashText(purpose: string, text: string): string {
  return hex(sha256(utf8Bytes(`durable-agents/${purpose}\n${text}`)));
}

/**
 * The digest of a token, for the workflow to store: `defer({ digest: resumeDigest(token) })`
 * in a plain workflow (the activity that minted the token returns it). Safe in history.
 */
export function resumeDigest(token: string): string {
  return digestOfProof(proofOf(token));
}

/** Whether `value` looks like a digest this module made (so a bad one fails where it is given, not at resume). */
export function isDigest(value: unknown): value is string {
  return typeof value === "string" && DIGEST_SHAPE.test(value);
}

/**
 * Why `proof` does not prove possession of the token behind `digest`, or undefined when it
 * does. Anything that is not a 43-character base64url string is refused before hashing, so
 * a huge or odd value costs nothing.
 */
export function proofProblem(proof: unknown, digest: string): string | undefined {
  if (proof === undefined || proof === null) return "no proof of the token was sent";
  if (typeof proof !== "string" || !PROOF_SHAPE.test(proof)) return "the proof is malformed";
  return sameText(digestOfProof(proof), digest) ? undefined : "the proof does not match the token handed out for it";
}

/** Only the shape, for checks that must come before the record is looked up. */
export function proofMalformed(proof: unknown): boolean {
  return proof !== undefined && (typeof proof !== "string" || !PROOF_SHAPE.test(proof));
}

// Equal-length digests compared without an early exit: timing says nothing about a prefix.
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

// UTF-8 by hand rather than TextEncoder, so the bytes hashed cannot depend on which globals
// a workflow sandbox provides. Tokens are ASCII; anything else still hashes unambiguously.
function utf8Bytes(text: string): Uint8Array {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let c = text.codePointAt(i)!;
    if (c > 0xffff) i++;
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) {
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    } else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(bytes);
}

function hex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

function base64url(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let k = 0; k < chars; k++) out += B64URL[(n >> (18 - 6 * k)) & 63];
  }
  return out;
}
