/**
 * The JSON Schemas an agent tool advertises over MCP, and the envelope rule. A tool whose
 * agent may defer answers either its output or a deferral acknowledgment, so its
 * `outputSchema` is the union `oneOf: [Output, Deferred]`. MCP 2025 revisions require an
 * output schema whose root is an object schema describing `structuredContent`; a bare union
 * is not one, so on those revisions both the advertisement and every structured answer are
 * wrapped as `{ result: … }`. Older revisions get the bare union (with `type: "object"` at
 * its root so the SDK's client, which insists on it, still reads it).
 */
import { z } from "zod";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import type { StandardSchema } from "../core/schema.js";

export type JsonSchema = Record<string, unknown>;

/** The acknowledgment an MCP caller reads when the run defers: never the token, never `meta`. */
export const DEFERRED_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    status: { const: "deferred" },
    runId: { type: "string" },
    deferralId: { type: "string" },
    expiresAt: { type: "string" },
    approvalUrl: { type: "string" },
    schema: { type: "object" },
  },
  required: ["status", "runId", "deferralId", "expiresAt"],
  additionalProperties: false,
};

/** What a completed run answers when its tool declares no `output`: the agent's final text. */
export const TEXT_OUTPUT_SCHEMA: JsonSchema = {
  type: "object",
  properties: { status: { const: "completed" }, text: { type: "string" } },
  required: ["status", "text"],
  additionalProperties: false,
};

/** Whether the negotiated protocol revision wants the `{ result }` envelope: every 2025 (and later) revision. */
export function usesEnvelope(protocolVersion: string): boolean {
  return protocolVersion >= "2025-01-01";
}

/** The advertised output schema for a tool's completed-answer schema, in the revision's form. */
export function advertisedOutputSchema(output: JsonSchema, envelope: boolean): JsonSchema {
  const union = { oneOf: [output, DEFERRED_SCHEMA] };
  return envelope
    ? { type: "object", properties: { result: union }, required: ["result"], additionalProperties: false }
    : { type: "object", ...union };
}

/** `structuredContent` for a value, in the revision's form. */
export function structured(value: Record<string, unknown>, envelope: boolean): Record<string, unknown> {
  return envelope ? { result: value } : value;
}

/**
 * JSON Schema of what a schema accepts (input) or produces (output), in draft-07: the
 * dialect the SDK's validator (Ajv) reads without configuration. `$schema` is dropped for
 * the same reason.
 */
export function jsonSchemaFor(schema: StandardSchema, io: "input" | "output", subject: string): JsonSchema {
  let json: JsonSchema | undefined;
  if ("_zod" in schema) {
    json = z.toJSONSchema(schema as unknown as z.ZodType, { io, target: "draft-07", unrepresentable: "any" }) as JsonSchema;
  } else {
    const standard = schema["~standard"].jsonSchema as { input(o: { target: string }): JsonSchema; output?(o: { target: string }): JsonSchema } | undefined;
    json = (io === "output" ? standard?.output : standard?.input)?.call(standard, { target: "draft-07" });
  }
  if (!json) throw new InvalidDefinitionError({ subject, problem: `its ${io} schema cannot be described as JSON Schema (use zod, or a Standard JSON Schema library)` });
  const { $schema: _drop, ...rest } = json;
  // MCP tools take and give objects: arguments are named, structuredContent is a record.
  if (rest.type !== "object") throw new InvalidDefinitionError({ subject, problem: `its ${io} schema must describe an object` });
  return rest;
}
