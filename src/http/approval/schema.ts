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

/** The most item slots an array field shows for values it holds (an edit form prefilled with a long list). */
const MAX_SLOTS = 100;

/**
 * How many item slots an array field shows: without JavaScript the form cannot grow, so it
 * offers a few, and as many as the values it holds fill (`filled`, see `filledSlots`), so
 * prefilled items are never cut off.
 */
export function arraySlots(schema: FieldSchema, filled = 0): number {
  const min = schema.minItems ?? 0;
  const max = schema.maxItems ?? Math.max(min, 3);
  const offered = Math.max(1, Math.min(max, Math.max(min, 3)));
  return Math.max(offered, Math.min(filled, schema.maxItems ?? MAX_SLOTS, MAX_SLOTS));
}

/** How many slots of the array field `name` the values reach into: one past the highest item index they name. */
export function filledSlots(name: string, values: Record<string, string[]>): number {
  let slots = 0;
  const prefix = `${name}.`;
  for (const key of Object.keys(values)) {
    if (!key.startsWith(prefix)) continue;
    const index = /^(\d{1,4})(\.|$)/.exec(key.slice(prefix.length))?.[1];
    if (index !== undefined) slots = Math.max(slots, Number(index) + 1);
  }
  return slots;
}

/** A JSON Schema from a deferral record, or the catch-all when the tool declared none. */
export function rootSchema(schema: JsonObject | undefined): FieldSchema {
  return (schema as FieldSchema | undefined) ?? {};
}

/** The form field name of a path under `root` (`answer` for a deferral's answer, `call.<i>.input` for an edited call). */
export const fieldName = (path: string[], root = "answer") => `${root}.${path.join(".")}`.replace(/\.$/, "");
