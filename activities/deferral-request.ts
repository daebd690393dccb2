import type { ResolvedDeferralConfig } from "../src/deferral/config.js";
import { ttlMs } from "../src/deferral/config.js";
import type { DeferOptions } from "../src/core/defer.js";
import { DeferralNotConfiguredError } from "../src/core/errors/deferral-not-configured.js";
import { NotPlainJsonError } from "../src/core/errors/not-plain-json.js";
import type { JsonObject } from "../src/core/json.js";
import { plainJsonProblem } from "../src/core/json-check.js";
import type { DeferralRequest } from "../src/core/contracts.js";
import { isSchema } from "../src/core/schema.js";
import { jsonSchemaOf } from "./agent-registry.js";

/**
 * Turns what a handler passed to `ctx.defer()` into what the workflow persists:
 * the schema as JSON Schema, the TTL in ms, meta checked to be plain JSON.
 */
export function deferralRequest(
  options: DeferOptions,
  config: ResolvedDeferralConfig | undefined,
  where: string,
): DeferralRequest {
  if (!config) throw new DeferralNotConfiguredError({ where });
  const meta = options.meta ?? {};
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    throw new NotPlainJsonError({ what: "meta", path: "$", problem: "meta must be a JSON object" });
  }
  const metaProblem = plainJsonProblem(meta);
  if (metaProblem) throw new NotPlainJsonError({ what: "meta", ...metaProblem });
  const request: DeferralRequest = {
    ttlMs: options.ttl === undefined ? config.defaultTtlMs : ttlMs(options.ttl, `${where} ctx.defer({ ttl })`),
    meta: meta as JsonObject,
  };
  if (options.schema !== undefined) request.schema = payloadSchema(options.schema);
  return request;
}

function payloadSchema(schema: DeferOptions["schema"]): JsonObject {
  // By `~standard`, not `instanceof`: the handler's zod may be another copy than this package's.
  const json = isSchema(schema) ? jsonSchemaOf(schema) : schema;
  const problem = plainJsonProblem(json);
  if (problem || typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new NotPlainJsonError({ what: "meta", path: "schema", problem: problem?.problem ?? "schema must be a zod schema or a JSON Schema object" });
  }
  return json as JsonObject;
}
