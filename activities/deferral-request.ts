import type { ResolvedDeferralConfig } from "../src/deferral/config.js";
import { durationMs } from "../src/core/duration.js";
import type { DeferOptions } from "../src/core/defer.js";
import { DeferralNotConfiguredError, InvalidDefinitionError } from "../src/core/errors/setup.js";
import { jsonSchemaProblem } from "../src/core/json-schema-check.js";
import { NotPlainJsonError } from "../src/core/errors/deferrals.js";
import type { JsonObject } from "../src/core/json.js";
import { plainJsonProblem } from "../src/core/json-check.js";
import { assertPayloadFits } from "../src/core/payload-size.js";
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
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InvalidDefinitionError({ subject: `${where} ctx.defer()`, problem: "its options must be an object" });
  }
  const meta = options.meta ?? {};
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    throw new NotPlainJsonError({ what: "meta", path: "$", problem: "meta must be a JSON object" });
  }
  const metaProblem = plainJsonProblem(meta);
  if (metaProblem) throw new NotPlainJsonError({ what: "meta", ...metaProblem });
  const request: DeferralRequest = {
    ttlMs: options.ttl === undefined ? config.defaultTtlMs : durationMs(options.ttl, `${where} ctx.defer({ ttl })`),
    meta: meta as JsonObject,
  };
  if (options.schema !== undefined) request.schema = payloadSchema(options.schema, where);
  // The record lives in the run's state and travels in its queries: it must fit one payload.
  assertPayloadFits(request, `${where} ctx.defer()'s meta and schema`, { hint: "Keep meta to what the approver needs to see; link to the rest." });
  return request;
}

function payloadSchema(schema: DeferOptions["schema"], where: string): JsonObject {
  const subject = `${where} ctx.defer({ schema })`;
  let json: unknown = schema;
  // By `~standard`, not `instanceof`: the handler's zod may be another copy than this package's.
  if (isSchema(schema)) {
    try {
      json = jsonSchemaOf(schema);
    } catch (err) {
      // zod throws a plain Error for what JSON Schema cannot say (z.date(), z.custom()); retrying cannot change that.
      throw new InvalidDefinitionError({ subject, problem: `the schema has no JSON Schema form (${err instanceof Error ? err.message : String(err)})` });
    }
    if (json === undefined) throw new InvalidDefinitionError({ subject, problem: "the schema's library cannot describe it as JSON Schema" });
  }
  const problem = plainJsonProblem(json);
  if (problem || typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new NotPlainJsonError({ what: "meta", path: "schema", problem: problem?.problem ?? "schema must be a zod schema or a JSON Schema object" });
  }
  // Checked now, where the handler can be told: the resume that applies it runs in workflow code.
  const invalid = jsonSchemaProblem(json);
  if (invalid) throw new InvalidDefinitionError({ subject, problem: `the schema is not a usable JSON Schema: ${invalid}` });
  return json as JsonObject;
}
