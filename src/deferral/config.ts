import type { Duration } from "@temporalio/common";
import { durationMs } from "../core/duration.js";
import { DeferralSecretError } from "../core/errors/deferral-secret.js";

/** Deferral settings. Worker and client must share the same `secret`. */
export interface DeferralConfig {
  /**
   * Signs resume tokens: at least 32 bytes, the same on every worker and client, never
   * stored in workflow state. Rotating it invalidates every outstanding token.
   */
  secret: string | Uint8Array;
  /** How long a deferral stays resumable when `ctx.defer()` names no `ttl`. Default `"72h"`. */
  defaultTtl?: Duration;
}

export interface ResolvedDeferralConfig {
  secret: Buffer;
  defaultTtlMs: number;
}

/** Checks the config: RC5040 for a missing or short secret. */
export function resolveDeferralConfig(config: DeferralConfig | undefined): ResolvedDeferralConfig {
  const raw = config?.secret;
  if (raw === undefined || raw === null || (typeof raw !== "string" && !(raw instanceof Uint8Array))) {
    throw new DeferralSecretError({ reason: "no secret was given" });
  }
  const secret = typeof raw === "string" ? Buffer.from(raw, "utf8") : Buffer.from(raw);
  if (secret.length < 32) {
    throw new DeferralSecretError({ reason: `it is ${secret.length} bytes long, at least 32 are needed` });
  }
  return { secret, defaultTtlMs: ttlMs(config?.defaultTtl ?? "72h", "deferral.defaultTtl") };
}

/** A TTL in milliseconds; AI1001 for anything that is not a positive duration. */
export function ttlMs(value: Duration, subject: string): number {
  return durationMs(value, subject);
}
