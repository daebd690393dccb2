import { createHmac, timingSafeEqual } from "node:crypto";
import { DeferralSecretError } from "../core/errors/deferral-secret.js";
import { ResumeTokenError } from "../core/errors/resume-token.js";

const VERSION = 1;

/** What a resume token is bound to: one deferral and the one tool call that handed it out. */
export interface TokenClaims {
  deferralId: string;
  toolCallId: string;
  version: number;
  /** The agent declares a context window: resume must estimate the thread before claiming. */
  window: boolean;
}

/**
 * Mints a token: `v1.<claims>.<HMAC-SHA256>`. Only the secret's holders (workers and
 * clients) can mint or check one; the workflow never sees the secret or the token.
 */
export function mintResumeToken(
  secret: string | Uint8Array,
  deferralId: string,
  toolCallId: string,
  options: { window?: boolean } = {},
): string {
  const claims = Buffer.from(JSON.stringify({ d: deferralId, c: toolCallId, ...(options.window ? { w: 1 } : {}) })).toString("base64url");
  return `v${VERSION}.${claims}.${sign(secret, claims)}`;
}

/** Verifies a token and returns its claims; RC5041 when malformed or forged. */
export function verifyResumeToken(secret: Buffer, token: unknown): TokenClaims {
  if (typeof token !== "string") throw new ResumeTokenError({ reason: "the token is not a string" });
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== `v${VERSION}`) {
    throw new ResumeTokenError({ reason: "it does not have the v1.<claims>.<signature> shape" });
  }
  const [, claims, signature] = parts as [string, string, string];
  const expected = Buffer.from(sign(secret, claims), "base64url");
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new ResumeTokenError({ reason: "the signature does not match" });
  }
  let parsed: { d?: unknown; c?: unknown; w?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(claims, "base64url").toString("utf8"));
  } catch {
    throw new ResumeTokenError({ reason: "its claims are not readable" });
  }
  if (typeof parsed.d !== "string" || typeof parsed.c !== "string") {
    throw new ResumeTokenError({ reason: "its claims are incomplete" });
  }
  return { deferralId: parsed.d, toolCallId: parsed.c, version: VERSION, window: parsed.w === 1 };
}

function sign(secret: string | Uint8Array, claims: string): string {
  if ((typeof secret === "string" ? Buffer.byteLength(secret) : secret.length) < 32) {
    throw new DeferralSecretError({ reason: "it is shorter than 32 bytes" });
  }
  return createHmac("sha256", secret).update(`durable-agents/resume/v${VERSION}\n${claims}`).digest("base64url");
}
