import type { JsonValue } from "../../core/json.js";
import { arraySlots, classify, fieldName, filledSlots, type FieldSchema } from "./schema.js";

/**
 * The answer a submitted form stands for, built by walking the deferral's schema (never the
 * submitted names, so a field named `__proto__` cannot reach an object's prototype). Empty
 * fields are left out; the resume's own schema check then names what is missing or wrong
 * (RC5049) and the form is shown again with the input kept. `root` is what the fields'
 * names start with, as `renderFields` was given it.
 */
export function readAnswer(schema: FieldSchema, form: Record<string, string[]>, root = "answer"): { value: JsonValue | undefined; problems: string[] } {
  const problems: string[] = [];
  const value = read(schema, [], form, problems, root);
  return { value, problems };
}

function read(raw: FieldSchema, path: string[], form: Record<string, string[]>, problems: string[], root: string): JsonValue | undefined {
  const { schema, kind } = classify(raw);
  const name = fieldName(path, root);
  const first = (Object.hasOwn(form, name) ? form[name]! : [])[0];
  const text = first === undefined || first === "" ? undefined : first;
  switch (kind) {
    case "boolean":
      return text === "true" ? true : text === "false" ? false : undefined;
    case "enum": {
      if (text === undefined) return undefined;
      const index = Number(text);
      const options = schema.enum!;
      if (!Number.isInteger(index) || index < 0 || index >= options.length) {
        problems.push(`${label(path)}: choose one of the offered values`);
        return undefined;
      }
      return options[index]!;
    }
    case "integer":
    case "number": {
      if (text === undefined) return undefined;
      const n = Number(text);
      if (!Number.isFinite(n)) {
        problems.push(`${label(path)}: ${JSON.stringify(text)} is not a number`);
        return undefined;
      }
      return n;
    }
    case "string":
      if (text === undefined) return undefined;
      // A datetime-local input has no zone: the form labels it UTC.
      if (schema.format === "date-time" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text)) return `${text.length === 16 ? `${text}:00` : text}Z`;
      return text;
    case "object": {
      const out: Record<string, JsonValue> = {};
      let any = false;
      for (const [key, child] of Object.entries(schema.properties!)) {
        const v = read(child, [...path, key], form, problems, root);
        if (v === undefined) continue;
        Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
        any = true;
      }
      // An untouched optional object is left out; the root always answers an object.
      return any || path.length === 0 ? out : undefined;
    }
    case "array": {
      const items = classify(schema.items);
      if (items.kind === "enum") {
        const chosen = (Object.hasOwn(form, name) ? form[name]! : []).map(Number).filter((i) => Number.isInteger(i) && i >= 0 && i < items.schema.enum!.length);
        return chosen.length > 0 ? chosen.map((i) => items.schema.enum![i]!) : undefined;
      }
      const out: JsonValue[] = [];
      for (let i = 0; i < arraySlots(schema, filledSlots(name, form)); i++) {
        const v = read(schema.items!, [...path, String(i)], form, problems, root);
        if (v !== undefined && !(typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0)) out.push(v);
      }
      return out.length > 0 ? out : undefined;
    }
    case "json": {
      if (text === undefined) return undefined;
      try {
        return JSON.parse(text) as JsonValue;
      } catch {
        problems.push(`${label(path)}: not valid JSON`);
        return undefined;
      }
    }
  }
}

const label = (path: string[]) => (path.length === 0 ? "answer" : path.join("."));
