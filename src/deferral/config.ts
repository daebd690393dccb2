import type { Duration } from "@temporalio/common";
import { durationMs } from "../core/duration.js";
import { DeferralSecretError } from "../core/errors/setup.js";
import { approvalUrlBase } from "./approval-url.js";


/** Deferral settings. Workers and clients must share the secrets. */
export interface DeferralConfig {
  /**
   * Signs resume tokens: at least 32 bytes, the same on every worker and client, never
   * stored in workflow state. Give either this or `secrets`.
   */
  secret?: string | Uint8Array;
  /**
   * For rotation: `[current, ...previous]`. Tokens are minted with the first and verified
   * against any of them (each token names its key), so parked runs keep their links while
   * a new secret rolls out. Drop an old secret once no deferral minted with it is left.
   */
  secrets?: readonly (string | Uint8Array)[];
  /** How long a deferral stays resumable when `ctx.defer()` names no `ttl`. Default `"72h"`. */
  defaultTtl?: Duration;
  /**
   * Where the HTTP front door's approval page is served, e.g. `"https://agents.example.com/approve"`
   * (`createAgentHttpHandler`'s `GET /approve`, under its `basePath`). When set, tools read
   * a ready link as `ctx.deferral.url` (built with `approvalUrl(base, token)`).
   */
  approvalUrl?: string;
}

export interface ResolvedDeferralConfig {
  /** The secret new tokens are minted with. */
  secret: Buffer;
  /** Every secret a token may have been minted with, current first. */
  secrets: Buffer[];
  defaultTtlMs: number;
  /** The approval page's base URL, when configured. */
  approvalUrl?: string;
}

/** Checks the config: RC5040 for a missing or short secret. */
export function resolveDeferralConfig(config: DeferralConfig | undefined): ResolvedDeferralConfig {
  const given = config?.secrets ?? (config?.secret === undefined ? undefined : [config.secret]);
  if (config?.secret !== undefined && config.secrets !== undefined) {
    throw new DeferralSecretError({ reason: "both secret and secrets were given; pass secrets: [current, ...previous] alone" });
  }
  if (!Array.isArray(given) || given.length === 0) throw new DeferralSecretError({ reason: "no secret was given" });
  const secrets = given.map((raw, i) => {
    if (typeof raw !== "string" && !(raw instanceof Uint8Array)) throw new DeferralSecretError({ reason: `secret ${i} is not a string or bytes` });
    const secret = typeof raw === "string" ? Buffer.from(raw, "utf8") : Buffer.from(raw);
    if (secret.length < 32) throw new DeferralSecretError({ reason: `secret ${i} is ${secret.length} bytes long, at least 32 are needed` });
    return secret;
  });
  return {
    secret: secrets[0]!,
    secrets,
    defaultTtlMs: durationMs(config?.defaultTtl ?? "72h", "deferral.defaultTtl"),
    ...(config?.approvalUrl !== undefined ? { approvalUrl: approvalUrlBase(config.approvalUrl) } : {}),
  };
}
