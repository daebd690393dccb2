import type { JsonObject, JsonValue } from "../../core/json.js";

/** The part of JSON Schema the approval form understands; anything else falls back to a JSON field. */
export interface FieldSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  enum?: JsonValue[];
  const?: JsonValue;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  properties?: Record<string, FieldSchema>;
  required?: string[];
  items?: FieldSchema;
  minItems?: number;
  maxItems?: number;
  anyOf?: FieldSchema[];
  oneOf?: FieldSchema[];
  default?: JsonValue;
}

export type FieldKind = "boolean" | "enum" | "integer" | "number" | "string" | "object" | "array" | "json";

/** The schema with `null` alternatives (zod's `.nullable()`) taken away, and what kind of field it is. */
export function classify(raw: FieldSchema | undefined): { schema: FieldSchema; kind: FieldKind } {
  let schema: FieldSchema = raw && typeof raw === "object" ? raw : {};
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const real = alternatives.filter((s) => !(s && typeof s === "object" && (s.type === "null" || s.const === null)));
    if (real.length === 1) schema = { ...real[0], ...(schema.title ? { title: schema.title } : {}), ...(schema.description ? { description: schema.description } : {}) };
    else return { schema, kind: "json" };
  }
  if (schema.const !== undefined) return { schema: { ...schema, enum: [schema.const] }, kind: "enum" };
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return { schema, kind: "enum" };
  const type = Array.isArray(schema.type) ? schema.type.filter((t) => t !== "null") : [schema.type];
  if (type.length !== 1) return { schema, kind: "json" };
  switch (type[0]) {
    case "boolean":
    case "integer":
    case "number":
    case "string":
      return { schema, kind: type[0] };
    case "object":
      return schema.properties ? { schema, kind: "object" } : { schema, kind: "json" };
    case "array":
      return schema.items && typeof schema.items === "object" ? { schema, kind: "array" } : { schema, kind: "json" };
    default:
      return { schema, kind: "json" };
  }
}

/** How many item slots an array field shows: without JavaScript the form cannot grow, so it offers a few. */
export function arraySlots(schema: FieldSchema): number {
  const min = schema.minItems ?? 0;
  const max = schema.maxItems ?? Math.max(min, 3);
  return Math.max(1, Math.min(max, Math.max(min, 3)));
}

/** A JSON Schema from a deferral record, or the catch-all when the tool declared none. */
export function rootSchema(schema: JsonObject | undefined): FieldSchema {
  return (schema as FieldSchema | undefined) ?? {};
}

/** The form field name of a path. */
export const fieldName = (path: string[]) => `answer.${path.join(".")}`.replace(/\.$/, "");
