import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { FieldHint, RenderHints } from "./view.js";
import { arraySlots, classify, fieldName, filledSlots, type FieldSchema } from "./schema.js";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

interface FormContext {
  hints: RenderHints;
  values: Record<string, string[]>;
  /** What every field's name starts with (see `fieldName`). */
  root: string;
  /** Field ids are numbered: paths may hold characters ids should not. */
  nextId: () => string;
}

/**
 * The answer's fields, generated from the deferral's JSON Schema: booleans as a yes/no
 * radio group, enums as a select (or radios), numbers with their bounds, strings with an
 * input type for their format, nested objects as fieldsets, arrays as a few item slots,
 * anything else as a JSON text area. Every control has a label; required ones say so.
 * `root` names the fields (`answer.…` by default) and `idPrefix` their ids, so several forms
 * can share a page (one per call of an approval request).
 */
export function renderFields(schema: FieldSchema, hints: RenderHints, values: Record<string, string[]>, options: { root?: string; idPrefix?: string; optional?: boolean } = {}): Html {
  let n = 0;
  const ctx: FormContext = { hints, values, root: options.root ?? "answer", nextId: () => `${options.idPrefix ?? ""}field-${++n}` };
  // An optional form (a call's result, filled only when the approver responds) marks nothing required: the browser would refuse every other choice.
  return field(schema, [], options.optional !== true, ctx);
}

function hintFor(path: string[], hints: RenderHints): FieldHint {
  const fields = hints.fields ?? {};
  const exact = path.join(".");
  const generic = path.filter((p) => !/^\d+$/.test(p)).join(".");
  return (Object.hasOwn(fields, exact) ? fields[exact] : Object.hasOwn(fields, generic) ? fields[generic] : undefined) ?? {};
}

function field(raw: FieldSchema, path: string[], required: boolean, ctx: FormContext): Html {
  const { schema, kind } = classify(raw);
  const hint = hintFor(path, ctx.hints);
  const key = path.at(-1);
  const label = labelOf(key, hint.label ?? schema.title);
  const help = hint.help ?? schema.description;
  const name = fieldName(path, ctx.root);
  const given = Object.hasOwn(ctx.values, name) ? ctx.values[name]! : [];
  const current = given[0] ?? "";
  const id = ctx.nextId();
  const helpId = `${id}-help`;
  const described = help ? helpId : undefined;
  const helpText = help ? html`<p class="help" id="${helpId}">${help}</p>` : "";
  const req = required ? html`<span class="req"> (required)</span>` : "";

  switch (kind) {
    case "object": {
      const requiredKeys = new Set(schema.required ?? []);
      // Inside an optional object (or an optional array slot) nothing is required until it is
      // filled in: the resume's schema check still refuses a half-filled one (RC5049).
      const children = Object.entries(schema.properties!).map(([k, child]) => field(child, [...path, k], required && requiredKeys.has(k), ctx));
      if (path.length === 0) return html`${helpText}${children}`;
      return html`<fieldset aria-describedby="${described}"><legend>${label}${req}</legend>${helpText}${children}</fieldset>`;
    }
    case "boolean":
      return html`<fieldset class="choice" aria-describedby="${described}"><legend>${label}${req}</legend>${helpText}
        ${[
          ["true", "Yes"],
          ["false", "No"],
        ].map(
          ([value, text], i) =>
            html`<div><input type="radio" id="${id}-${i}" name="${name}" value="${value}" ${current === value ? "checked" : ""} ${required ? "required" : ""}><label for="${id}-${i}">${text}</label></div>`,
        )}</fieldset>`;
    case "enum": {
      const options = schema.enum!;
      if (hint.widget === "radio") {
        return html`<fieldset class="choice" aria-describedby="${described}"><legend>${label}${req}</legend>${helpText}
          ${options.map(
            (option, i) =>
              html`<div><input type="radio" id="${id}-${i}" name="${name}" value="${String(i)}" ${current === String(i) ? "checked" : ""} ${required ? "required" : ""}><label for="${id}-${i}">${display(option)}</label></div>`,
          )}</fieldset>`;
      }
      return html`<div class="field"><label for="${id}">${label}${req}</label>${helpText}
        <select id="${id}" name="${name}" ${required ? "required" : ""} aria-describedby="${described}">
          <option value="">Choose…</option>
          ${options.map((option, i) => html`<option value="${String(i)}" ${current === String(i) ? "selected" : ""}>${display(option)}</option>`)}
        </select></div>`;
    }
    case "integer":
    case "number": {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined && kind === "integer" ? Math.floor(schema.exclusiveMinimum) + 1 : undefined);
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined && kind === "integer" ? Math.ceil(schema.exclusiveMaximum) - 1 : undefined);
      const step = schema.multipleOf ?? (kind === "integer" ? 1 : "any");
      const bounds = [min !== undefined ? `at least ${min}` : "", max !== undefined ? `at most ${max}` : "", schema.exclusiveMinimum !== undefined && kind === "number" ? `more than ${schema.exclusiveMinimum}` : "", schema.exclusiveMaximum !== undefined && kind === "number" ? `less than ${schema.exclusiveMaximum}` : ""].filter(Boolean).join(", ");
      return html`<div class="field"><label for="${id}">${label}${req}${bounds ? html` <span class="bounds">(${bounds})</span>` : ""}</label>${helpText}
        <input type="number" id="${id}" name="${name}" value="${current}" step="${String(step)}" ${min !== undefined ? html`min="${String(min)}"` : ""} ${max !== undefined ? html`max="${String(max)}"` : ""} ${required ? "required" : ""} aria-describedby="${described}"></div>`;
    }
    case "string": {
      const attrs = html`${schema.minLength !== undefined ? html` minlength="${String(schema.minLength)}"` : ""}${schema.maxLength !== undefined ? html` maxlength="${String(schema.maxLength)}"` : ""}${required ? " required" : ""}`;
      if (hint.widget === "textarea") {
        return html`<div class="field"><label for="${id}">${label}${req}</label>${helpText}<textarea id="${id}" name="${name}" rows="4"${attrs} aria-describedby="${described}">${current}</textarea></div>`;
      }
      const type = INPUT_TYPES[schema.format ?? ""] ?? "text";
      const zone = schema.format === "date-time" ? html` <span class="bounds">(UTC)</span>` : "";
      const shown = schema.format === "date-time" ? current.replace(/(:\d{2})?Z$/, "") : current;
      return html`<div class="field"><label for="${id}">${label}${req}${zone}</label>${helpText}
        <input type="${type}" id="${id}" name="${name}" value="${shown}"${attrs}${schema.pattern ? html` pattern="${schema.pattern}"` : ""} aria-describedby="${described}"></div>`;
    }
    case "array": {
      const items = classify(schema.items);
      if (items.kind === "enum") {
        return html`<fieldset class="choice" aria-describedby="${described}"><legend>${label}${req}</legend>${helpText}
          ${items.schema.enum!.map(
            (option, i) =>
              html`<div><input type="checkbox" id="${id}-${i}" name="${name}" value="${String(i)}" ${given.includes(String(i)) ? "checked" : ""}><label for="${id}-${i}">${display(option)}</label></div>`,
          )}</fieldset>`;
      }
      const count = arraySlots(schema, filledSlots(name, ctx.values));
      const bounds = [schema.minItems ? `at least ${schema.minItems}` : "", `up to ${count}`].filter(Boolean).join(", ");
      const slots = Array.from({ length: count }, (_, i) => field(schema.items!, [...path, String(i)], i < (schema.minItems ?? 0), ctx));
      return html`<fieldset aria-describedby="${described}"><legend>${label}${req} <span class="bounds">(${bounds}; leave the rest empty)</span></legend>${helpText}${slots}</fieldset>`;
    }
    case "json":
      return html`<div class="field"><label for="${id}">${label}${req} <span class="bounds">(JSON)</span></label>${helpText}<textarea id="${id}" name="${name}" rows="6" ${required && path.length > 0 ? "required" : ""} aria-describedby="${described}">${current}</textarea></div>`;
  }
}

/**
 * A field's label: its key as the schema spells it (what the tool, the model and the API
 * call it, so an approver can tell `amountEur` from `amountUsd`), with the title from the
 * schema or the page's hints beside it. The answer itself and array items have no key.
 */
function labelOf(key: string | undefined, title: string | undefined): Html | string {
  if (key === undefined) return title ?? "Answer";
  if (/^\d+$/.test(key)) return title ?? `Item ${Number(key) + 1}`;
  return html`<code class="key">${key}</code>${title ? html` <span class="title">${title}</span>` : ""}`;
}

const INPUT_TYPES: Record<string, string> = { email: "email", uri: "url", url: "url", date: "date", "date-time": "datetime-local", time: "time" };

function display(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
