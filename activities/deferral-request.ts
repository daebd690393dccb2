import { z } from "zod";
import type { ResolvedDeferralConfig } from "../src/deferral/config.js";
import { ttlMs } from "../src/deferral/config.js";
import type { DeferOptions } from "../src/core/defer.js";
import { DeferralNotConfiguredError } from "../src/core/errors/deferral-not-configured.js";
import { NotPlainJsonError } from "../src/core/errors/not-plain-json.js";
import type { JsonObject } from "../src/core/json.js";
import { plainJsonProblem } from "../src/core/json-check.js";
import type { DeferralRequest } from "../src/core/contracts.js";
import { toolParameters } from "./agent-registry.js";

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
  if (options.schema !== undefined) request.schema = jsonSchemaOf(options.schema);
  return request;
}

function jsonSchemaOf(schema: DeferOptions["schema"]): JsonObject {
  if (schema instanceof z.ZodType) return toolParameters(schema) as JsonObject;
  const problem = plainJsonProblem(schema);
  if (problem || typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new NotPlainJsonError({ what: "meta", path: "schema", problem: problem?.problem ?? "schema must be a zod schema or a JSON Schema object" });
  }
  return schema as JsonObject;
}
