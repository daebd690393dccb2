import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { DeferralSecretError } from "../core/errors/setup.js";
import { ResumeTokenError } from "../core/errors/deferrals.js";
import type { TokenBinding } from "../core/proof.js";

/** What a resume token is bound to: one deferral and the one tool call that handed it out. */
export interface TokenClaims {
  deferralId: string;
  toolCallId: string;
  version: number;
  /** The agent declares a context window: resume must estimate the transcript before claiming. */
  window: boolean;
  /** Where the token may be used; absent on tokens minted before bindings existed (no binding check). */
  binding?: TokenBinding;
}

/** No token we mint comes near this; anything longer is refused before any work. */
export const MAX_TOKEN_LENGTH = 2048;

const B64URL = /^[A-Za-z0-9_-]+$/;

/**
 * A key id: which secret minted a token, so verification picks that secret and secrets can
 * rotate (mint with the new one, keep verifying the old). Derived from the secret, so
 * nobody has to name keys; 48 bits say nothing useful about the secret.
 */
export function keyIdOf(secret: string | Uint8Array): string {
  return createHash("sha256").update("durable-agents/key-id\n").update(secret).digest("base64url").slice(0, 8);
}

/**
 * Mints a token: `v2.<key id>.<claims>.<HMAC-SHA256>`. Only the secret's holders (workers
 * and clients) can mint or check one; the workflow never sees the secret or the token.
 */
export function mintResumeToken(
  secret: string | Uint8Array,
  deferralId: string,
  toolCallId: string,
  options: { window?: boolean; binding?: TokenBinding | undefined } = {},
): string {
  assertSecret(secret);
  const kid = keyIdOf(secret);
  const b = options.binding;
  const bound = b ? { ns: b.namespace, wf: b.workflowId, fr: b.firstRunId } : {};
  const claims = Buffer.from(JSON.stringify({ d: deferralId, c: toolCallId, ...(options.window ? { w: 1 } : {}), ...bound })).toString("base64url");
  return `v2.${kid}.${claims}.${sign(secret, `v2\n${kid}.${claims}`)}`;
}

/**
 * Verifies a token against the current and previous secrets and returns its claims;
 * RC5041 when it is malformed, not canonical, or forged. Tokens minted before key ids
 * existed (`v1.`) are still accepted, checked against every secret.
 */
export function verifyResumeToken(secrets: readonly Buffer[], token: unknown): TokenClaims {
  if (typeof token !== "string") throw new ResumeTokenError({ reason: "the token is not a string" });
  if (token.length > MAX_TOKEN_LENGTH) throw new ResumeTokenError({ reason: `it is longer than ${MAX_TOKEN_LENGTH} characters` });
  const parts = token.split(".");
  const [version] = parts;
  const shaped = (version === "v2" && parts.length === 4) || (version === "v1" && parts.length === 3);
  if (!shaped || !parts.slice(1).every(canonicalBase64url)) {
    throw new ResumeTokenError({ reason: "it does not have the v2.<key id>.<claims>.<signature> shape in canonical base64url" });
  }
  let claims: string;
  if (version === "v2") {
    const [, kid, body, signature] = parts as [string, string, string, string];
    const secret = secrets.find((s) => keyIdOf(s) === kid);
    if (!secret || !matches(signature, sign(secret, `v2\n${kid}.${body}`))) {
      throw new ResumeTokenError({ reason: "the signature does not match (or it was minted with a secret this client does not hold)" });
    }
    claims = body;
  } else {
    const [, body, signature] = parts as [string, string, string];
    if (!secrets.some((s) => matches(signature, sign(s, `v1\n${body}`)))) {
      throw new ResumeTokenError({ reason: "the signature does not match" });
    }
    claims = body;
  }
  let parsed: { d?: unknown; c?: unknown; w?: unknown; ns?: unknown; wf?: unknown; fr?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(claims, "base64url").toString("utf8"));
  } catch {
    throw new ResumeTokenError({ reason: "its claims are not readable" });
  }
  if (typeof parsed?.d !== "string" || typeof parsed.c !== "string") {
    throw new ResumeTokenError({ reason: "its claims are incomplete" });
  }
  const claimsBinding = parsed.ns !== undefined || parsed.wf !== undefined || parsed.fr !== undefined;
  if (claimsBinding && ![parsed.ns, parsed.wf, parsed.fr].every((v) => typeof v === "string")) {
    throw new ResumeTokenError({ reason: "its binding claims are incomplete" });
  }
  return {
    deferralId: parsed.d,
    toolCallId: parsed.c,
    version: version === "v2" ? 2 : 1,
    window: parsed.w === 1,
    ...(claimsBinding ? { binding: { namespace: parsed.ns as string, workflowId: parsed.wf as string, firstRunId: parsed.fr as string } } : {}),
  };
}

/**
 * Mints the answer token of one async tool call of a thread: `a1.<key id>.<claims>.<HMAC>`,
 * signed under another purpose than resume tokens, so neither kind verifies as the other
 * and their proofs never match each other's digests. Deterministic for a call and a secret:
 * every attempt of the callback hands out the same token, whose digest the thread stores.
 * `occurrence` (which use of its id the call is) makes it one call's alone even when the
 * model gives a later call the same id.
 */
export function mintAnswerToken(secret: string | Uint8Array, toolCallId: string, binding: TokenBinding, occurrence = 1): string {
  assertSecret(secret);
  const kid = keyIdOf(secret);
  // The model chooses call ids and may reuse one in a later turn: which use of the id this
  // call is tells the two apart (the first use is left out, so its tokens are as before).
  const claims = Buffer.from(
    JSON.stringify({ c: toolCallId, ns: binding.namespace, wf: binding.workflowId, fr: binding.firstRunId, ...(occurrence > 1 ? { n: occurrence } : {}) }),
  ).toString("base64url");
  return `a1.${kid}.${claims}.${sign(secret, `a1\n${kid}.${claims}`, "answer")}`;
}

/**
 * Why `token` cannot be an answer token, or undefined. Only its shape: the thread checks
 * possession (its proof against the digest it stored), so clients need no secret.
 */
export function answerTokenProblem(token: unknown): string | undefined {
  if (typeof token !== "string") return "the answer token is not a string";
  if (token.length > MAX_TOKEN_LENGTH) return `the answer token is longer than ${MAX_TOKEN_LENGTH} characters`;
  const parts = token.split(".");
  if (parts.length !== 4 || parts[0] !== "a1" || !parts.slice(1).every(canonicalBase64url)) {
    return "it does not have the a1.<key id>.<claims>.<signature> shape of an answer token (a resume token is not one)";
  }
  return undefined;
}

// Base64url has spare bits in its last character: only the one encoding that decodes and
// re-encodes to itself is accepted, so a token has exactly one spelling.
function canonicalBase64url(part: string): boolean {
  return B64URL.test(part) && Buffer.from(part, "base64url").toString("base64url") === part;
}

function matches(given: string, expected: string): boolean {
  const a = Buffer.from(given, "base64url");
  const b = Buffer.from(expected, "base64url");
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * What proves a sub-run was started by one `ctx.dispatch()` of one tool call: the sub-run's
 * id, the parent's execution and the activity that runs the call (stable across its
 * retries, unique to it). Signed with the deferral secret when the worker has one, so no
 * one without it can make one; otherwise a plain digest, which only code that can set a
 * run's memo (namespace access: no `AgentClient`, front door or CLI call can) could copy.
 */
export function dispatchProof(secret: Uint8Array | undefined, binding: DispatchBinding): string {
  const text = JSON.stringify([binding.namespace, binding.subRunId, binding.parentRunId, binding.activityId]);
  return secret ? sign(secret, text, "dispatch") : createHash("sha256").update(`durable-agents/dispatch/${text}`).digest("base64url");
}

/** Whether `proof` (read from a run's memo: anything) is the one `dispatchProof` makes for `binding` with any of `secrets` (current first). */
export function dispatchProofMatches(secrets: readonly Uint8Array[] | undefined, binding: DispatchBinding, proof: unknown): boolean {
  if (typeof proof !== "string" || !canonicalBase64url(proof)) return false;
  const candidates = secrets && secrets.length > 0 ? secrets.map((s) => dispatchProof(s, binding)) : [dispatchProof(undefined, binding)];
  return candidates.some((expected) => matches(proof, expected));
}

/** Where a dispatched sub-run was started from; see `dispatchProof`. */
export interface DispatchBinding {
  namespace: string;
  subRunId: string;
  /** The run id of the parent's execution the tool call's activity belongs to. */
  parentRunId: string;
  activityId: string;
}

function sign(secret: string | Uint8Array, text: string, purpose: "resume" | "answer" | "dispatch" = "resume"): string {
  return createHmac("sha256", secret).update(`durable-agents/${purpose}/${text}`).digest("base64url");
}

function assertSecret(secret: string | Uint8Array): void {
  if ((typeof secret === "string" ? Buffer.byteLength(secret) : secret?.length ?? 0) < 32) {
    throw new DeferralSecretError({ reason: "it is shorter than 32 bytes" });
  }
}

/**
 * The binding of a token minted inside an activity: its namespace, workflow id and run id
 * (the first run's, for workflows that never continue as new, as agent runs and most
 * plain workflows). Pass it to `mintResumeToken(..., { binding })`.
 */
export function activityBinding(info: { namespace: string; workflowExecution?: { workflowId: string; runId: string } }): TokenBinding | undefined {
  const execution = info.workflowExecution;
  // An activity no workflow scheduled has no execution to bind to: the token is unbound, as before.
  return execution ? { namespace: info.namespace, workflowId: execution.workflowId, firstRunId: execution.runId } : undefined;
}
