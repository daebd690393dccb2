import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { MAX_DECISION_TEXT, type ApprovalCall, type DecidedCall, type Decision } from "../../core/approval.js";
import type { JsonObject, JsonValue } from "../../core/json.js";
import { oneLine, printable, printableJson } from "../../core/printable.js";
import { formValues } from "./form-values.js";
import { readAnswer } from "./read-form.js";
import { renderFields } from "./render-form.js";
import { rootSchema } from "./schema.js";
import { hintsOf, type ApprovalCallView } from "./view.js";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** What a call's decision field holds. */
const CHOICES = [
  ["approve", "Approve"],
  ["edit", "Approve with the edited input below"],
  ["respond", "Answer in the tool's place with the result below (the tool does not run)"],
  ["reject", "Reject"],
] as const;

/** What a response must be: the tool's `approval.resultSchema`, or text without one (what the model reads as it is). */
const resultSchemaOf = (call: ApprovalCallView) => rootSchema(call.resultSchema ? { title: "Result", ...call.resultSchema } : { type: "string", title: "Result (the model reads this text)" });
/** Text without a resultSchema is written in a text area. */
const RESULT_HINTS = { fields: { "": { widget: "textarea" } } } as const;

/** The calls of an approval request as the page shows them, in the request's order; those decided on their own already (`decided`) say how. */
export function callViews(calls: readonly ApprovalCall[], decided: readonly DecidedCall[] = []): ApprovalCallView[] {
  return calls.map((call, index) => {
    const earlier = decided.find((d) => d.decision.toolCallId === call.toolCallId)?.decision;
    return {
      index,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      arguments: parsed(call.arguments),
      ...(call.inputSchema ? { inputSchema: call.inputSchema } : {}),
      ...(call.meta ? { meta: call.meta } : {}),
      ...(call.resultSchema ? { resultSchema: call.resultSchema } : {}),
      ...(earlier ? { decided: "respond" in earlier ? ("responded" as const) : earlier.approved ? ("approved" as const) : ("rejected" as const) } : {}),
    };
  });
}

/** The form as first shown: every call's edit fields hold the arguments the model wrote, nothing is chosen. */
export function prefilled(calls: readonly ApprovalCallView[]): Record<string, string[]> {
  return Object.assign(Object.create(null) as Record<string, string[]>, ...calls.map((call) => formValues(rootSchema(call.inputSchema), call.arguments, inputRoot(call))));
}

/**
 * One fieldset per call: its tool and arguments, a required choice of approve / edit /
 * respond / reject, the edit form generated from the tool's input schema and the result form
 * from its `resultSchema` (a text without one), each folded away until opened, a note for an
 * approval or a response and a reason for a rejection. Needs no script.
 */
export function renderCalls(calls: readonly ApprovalCallView[], values: Record<string, string[]>): Html {
  // With one call left the choice is required; with several, any may be left for later.
  const alone = calls.filter((c) => !c.decided).length === 1;
  return html`${calls.map((call) => {
    const prefix = `call.${call.index}`;
    const id = `call-${call.index}`;
    const chosen = first(values, `${prefix}.decision`);
    const args = html`<pre>${typeof call.arguments === "string" ? printable(call.arguments) : printableJson(JSON.stringify(call.arguments, null, 2))}</pre>`;
    if (call.decided) {
      return html`<fieldset class="call decided" id="${id}">
      <legend>Call ${call.index + 1} of ${calls.length}: <code>${oneLine(call.toolName)}</code></legend>
      ${args}<p class="decided">Decided already: ${call.decided}.</p>
    </fieldset>`;
    }
    return html`<fieldset class="call" id="${id}">
      <legend>Call ${call.index + 1} of ${calls.length}: <code>${oneLine(call.toolName)}</code></legend>
      ${args}
      <fieldset class="choice"><legend>Decision${alone ? html`<span class="req"> (required)</span>` : html`<span class="help"> (leave it unchosen to decide later)</span>`}</legend>
        ${CHOICES.map(
          ([value, text]) =>
            html`<div><input type="radio" id="${id}-${value}" name="${prefix}.decision" value="${value}" ${chosen === value ? "checked" : ""} ${alone ? "required" : ""}><label for="${id}-${value}">${text}</label></div>`,
        )}
      </fieldset>
      <details ${chosen === "edit" ? "open" : ""}><summary>Edit the input</summary>
        ${renderFields(rootSchema(call.inputSchema), hintsOf(call.meta), values, { root: inputRoot(call), idPrefix: `${id}-` })}
      </details>
      <details class="respond" ${chosen === "respond" ? "open" : ""}><summary>Write the result</summary>
        ${renderFields(resultSchemaOf(call), call.resultSchema ? {} : RESULT_HINTS, values, { root: resultRoot(call), idPrefix: `${id}-result-`, optional: true })}
      </details>
      <div class="field"><input type="checkbox" id="${id}-grant" name="${prefix}.grant" value="always" ${first(values, `${prefix}.grant`) === "always" ? "checked" : ""}><label for="${id}-grant">Always allow <code>${oneLine(call.toolName)}</code> in this conversation <span class="help">(with an approval: later calls of this tool here run without asking, until revoked)</span></label></div>
      <div class="field"><label for="${id}-note">Note <span class="help">(optional, kept with an approval or a response)</span></label>
        <input type="text" id="${id}-note" name="${prefix}.note" value="${first(values, `${prefix}.note`) ?? ""}" maxlength="${String(MAX_DECISION_TEXT)}"></div>
      <div class="field"><label for="${id}-reason">Reason for rejecting <span class="help">(optional, the model reads it)</span></label>
        <textarea id="${id}-reason" name="${prefix}.reason" rows="2" maxlength="${String(MAX_DECISION_TEXT)}">${first(values, `${prefix}.reason`) ?? ""}</textarea></div>
    </fieldset>`;
  })}`;
}

/**
 * The decisions a submitted form stands for, one per call of the request still undecided
 * (walking the calls, never the submitted names). Of several, a call without a choice is left
 * for a later decision; none chosen at all, the only call without one, or an edit that is
 * not an object, is a problem to show with the form; the run's own check (RC5049) judges the rest.
 */
export function readDecisions(calls: readonly ApprovalCallView[], values: Record<string, string[]>): { decisions: Decision[]; problems: string[] } {
  const decisions: Decision[] = [];
  const problems: string[] = [];
  const open = calls.filter((c) => !c.decided);
  for (const call of open) {
    const prefix = `call.${call.index}`;
    const label = `Call ${call.index + 1} (${call.toolName})`;
    const note = first(values, `${prefix}.note`) || undefined;
    const reason = first(values, `${prefix}.reason`) || undefined;
    // A standing permission for the call's tool in this run or thread (docs/approvals.md): only with an approval, which the run checks (RC5049).
    const grant = first(values, `${prefix}.grant`) === "always" ? { grant: {} } : {};
    switch (first(values, `${prefix}.decision`)) {
      case "approve":
        decisions.push({ toolCallId: call.toolCallId, approved: true, ...(note ? { note } : {}), ...grant });
        break;
      case "edit": {
        const { value, problems: found } = readAnswer(rootSchema(call.inputSchema), values, inputRoot(call));
        problems.push(...found.map((p) => `${label}: ${p}`));
        if (!isObject(value)) {
          if (found.length === 0) problems.push(`${label}: the edited input must be a JSON object`);
          break;
        }
        decisions.push({ toolCallId: call.toolCallId, approved: true, input: value, ...(note ? { note } : {}), ...grant });
        break;
      }
      case "respond": {
        const { value, problems: found } = readAnswer(resultSchemaOf(call), values, resultRoot(call));
        problems.push(...found.map((p) => `${label}: ${p}`));
        if (value === undefined || value === null) {
          if (found.length === 0) problems.push(`${label}: write the result the model should read in the tool's place`);
          break;
        }
        decisions.push({ toolCallId: call.toolCallId, respond: value, ...(note ? { note } : {}) });
        break;
      }
      case "reject":
        decisions.push({ toolCallId: call.toolCallId, approved: false, ...(reason ? { reason } : {}) });
        break;
      default:
        // Of several calls, one left unchosen waits for a later decision.
        if (open.length === 1) problems.push(`${label}: choose approve, edit, respond or reject`);
    }
  }
  if (open.length > 1 && decisions.length === 0 && problems.length === 0) problems.push("Choose a decision for at least one call: the others can be decided later.");
  return { decisions, problems };
}

const inputRoot = (call: ApprovalCallView) => `call.${call.index}.input`;
const resultRoot = (call: ApprovalCallView) => `call.${call.index}.result`;

function first(values: Record<string, string[]>, name: string): string | undefined {
  return Object.hasOwn(values, name) ? values[name]![0] : undefined;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parsed(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}
