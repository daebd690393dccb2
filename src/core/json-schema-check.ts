import { Validator } from "@cfworker/json-schema";

const TYPES = new Set(["null", "boolean", "object", "array", "number", "integer", "string"]);
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_ONES = ["not", "if", "then", "else", "items", "contains", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames"];
const NUMBERS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"];
/** Values a payload check is tried on, so a schema that throws for some input throws here, not at resume. */
const PROBES: unknown[] = [null, true, 0, 1.5, "", "x", [], [null], {}, { a: null }];

/**
 * Why `schema` cannot check a resume payload (a keyword of the wrong type, a pattern that
 * is no regular expression, a `$ref` to nowhere), or undefined when it can. A deferral's
 * schema is checked when it is given, because the resume that would otherwise apply it runs
 * in workflow code, days later. Sandbox-safe.
 */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return "a JSON Schema must be an object";
  const problem = keywordProblem(schema as Record<string, unknown>, "#");
  if (problem) return problem;
  try {
    const validator = new Validator(schema as never, "2020-12", false);
    for (const probe of PROBES) validator.validate(probe);
  } catch (err) {
    return `it cannot be applied: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`;
  }
  return undefined;
}

function keywordProblem(root: Record<string, unknown>, at: string): string | undefined {
  // Iterative, so a deeply nested schema cannot exhaust the stack here either.
  const pending: Array<{ node: unknown; at: string }> = [{ node: root, at }];
  while (pending.length > 0) {
    const { node, at: path } = pending.pop()!;
    if (typeof node === "boolean") continue;
    if (typeof node !== "object" || node === null || Array.isArray(node)) return `${path} is not a schema (an object or a boolean)`;
    const s = node as Record<string, unknown>;
    if (s.type !== undefined) {
      const types = Array.isArray(s.type) ? s.type : [s.type];
      if (types.length === 0 || !types.every((t) => typeof t === "string" && TYPES.has(t))) return `${path}/type names no JSON type: ${JSON.stringify(s.type)}`;
    }
    if (s.enum !== undefined && !Array.isArray(s.enum)) return `${path}/enum must be an array`;
    if (s.required !== undefined && (!Array.isArray(s.required) || !s.required.every((r) => typeof r === "string"))) return `${path}/required must be an array of strings`;
    for (const key of NUMBERS) if (s[key] !== undefined && typeof s[key] !== "number") return `${path}/${key} must be a number`;
    if (s.pattern !== undefined) {
      if (typeof s.pattern !== "string" || !isRegExp(s.pattern)) return `${path}/pattern is not a regular expression`;
    }
    for (const key of SCHEMA_LISTS) {
      const list = s[key];
      if (list === undefined) continue;
      if (!Array.isArray(list)) return `${path}/${key} must be an array of schemas`;
      list.forEach((inner, i) => pending.push({ node: inner, at: `${path}/${key}/${i}` }));
    }
    for (const key of SCHEMA_MAPS) {
      const map = s[key];
      if (map === undefined) continue;
      if (typeof map !== "object" || map === null || Array.isArray(map)) return `${path}/${key} must be an object of schemas`;
      for (const [name, inner] of Object.entries(map)) {
        if (key === "patternProperties" && !isRegExp(name)) return `${path}/patternProperties/${name} is not a regular expression`;
        pending.push({ node: inner, at: `${path}/${key}/${name}` });
      }
    }
    for (const key of SCHEMA_ONES) {
      const inner = s[key];
      // `items` as a list is the older drafts' spelling of `prefixItems`.
      if (key === "items" && Array.isArray(inner)) inner.forEach((one, i) => pending.push({ node: one, at: `${path}/items/${i}` }));
      else if (inner !== undefined) pending.push({ node: inner, at: `${path}/${key}` });
    }
  }
  return undefined;
}

function isRegExp(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}
