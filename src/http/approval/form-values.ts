import type { JsonValue } from "../../core/json.js";
import { printable, printableJson } from "../../core/printable.js";
import { classify, fieldName, type FieldSchema } from "./schema.js";

/**
 * The form values that show `value` in the fields `renderFields` generates from `schema`
 * (the inverse of `readAnswer`): an edit form starts from the arguments the model wrote.
 * A value of a kind its field cannot hold (a string where the schema says number, a key the
 * schema does not list) is left out; the page shows the arguments as written beside it.
 * Text is shown as the page shows the arguments, controls and direction overrides escaped:
 * an edit carries what the approver saw.
 */
export function formValues(schema: FieldSchema, value: JsonValue | undefined, root: string): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null);
  fill(schema, [], value, out, root);
  return out;
}

function fill(raw: FieldSchema, path: string[], value: JsonValue | undefined, out: Record<string, string[]>, root: string): void {
  if (value === undefined || value === null) return;
  const { schema, kind } = classify(raw);
  const name = fieldName(path, root);
  switch (kind) {
    case "boolean":
      if (typeof value === "boolean") out[name] = [String(value)];
      return;
    case "enum": {
      const index = indexIn(schema.enum!, value);
      if (index >= 0) out[name] = [String(index)];
      return;
    }
    case "integer":
    case "number":
      if (typeof value === "number") out[name] = [String(value)];
      return;
    case "string":
      if (typeof value === "string") out[name] = [printable(value)];
      return;
    case "object":
      if (typeof value !== "object" || Array.isArray(value)) return;
      for (const [key, child] of Object.entries(schema.properties!)) {
        if (Object.hasOwn(value, key)) fill(child, [...path, key], value[key], out, root);
      }
      return;
    case "array": {
      if (!Array.isArray(value)) return;
      const items = classify(schema.items);
      if (items.kind === "enum") {
        const chosen = value.map((v) => indexIn(items.schema.enum!, v)).filter((i) => i >= 0);
        if (chosen.length > 0) out[name] = chosen.map(String);
        return;
      }
      value.forEach((item, i) => fill(schema.items!, [...path, String(i)], item, out, root));
      return;
    }
    case "json":
      out[name] = [printableJson(JSON.stringify(value, null, 2))];
      return;
  }
}

function indexIn(options: JsonValue[], value: JsonValue): number {
  const wanted = JSON.stringify(value);
  return options.findIndex((option) => JSON.stringify(option) === wanted);
}
