import type { JsonObject, JsonValue, Principal } from "../../core/json.js";
import type { RunOutcome } from "../../core/deferral-record.js";
import type { ApprovalRequestContext } from "../../core/approval-context.js";

/**
 * Which page the approver sees. `form`: the deferral waits for an answer. `outcome`: the
 * answer was accepted and the run moved on. `answered`: someone answered already (the first
 * outcome is shown). `expired`, `denied`, `refused` (authorize said no), `invalid` (not a
 * link we issued, or no longer bound to the call), `missing` (no such deferral), `error`.
 */
export type ApprovalState = "form" | "outcome" | "answered" | "expired" | "denied" | "refused" | "invalid" | "missing" | "error";

/** Everything the approval page shows; a custom `render` receives it. */
export interface ApprovalView {
  state: ApprovalState;
  /** The page's HTTP status. */
  status: number;
  title: string;
  description?: string;
  /** A line about the state (why it was refused, what the outcome was). */
  message?: string;
  /** The error code behind a refusal. */
  code?: string;
  agentId?: string;
  toolName?: string;
  /** The deferred call's arguments, as the model wrote them. */
  arguments?: JsonValue;
  expiresAt?: string;
  /** Milliseconds until the deferral expires (0 once it has). */
  msLeft?: number;
  /** JSON Schema of the answer, when the tool declared one. */
  schema?: JsonObject;
  /**
   * Set for an approval request (a gated tool's calls): each call, decided on its own. The
   * form's fields for call `i` are `call.<i>.decision` (`approve`, `edit` or `reject`),
   * `call.<i>.input.…` (the edited input, generated from its `inputSchema` like an
   * answer's fields), `call.<i>.note` and `call.<i>.reason`. `schema` is absent then.
   */
  calls?: ApprovalCallView[];
  /** Who the run acts for (the principal it was started or messaged as). */
  actsFor?: Principal;
  /** Why the agent asks (the user's message, its last messages, the tool results), when `authorize` allowed the caller `approval.context`: model and tool text, escape it. */
  context?: ApprovalRequestContext;
  /** `meta.render` of the deferral: `{ title?, description?, fields?: { [path]: { widget?, label?, help? } } }`. */
  hints: RenderHints;
  /** What the form holds (a re-shown form keeps the approver's input). */
  values: Record<string, string[]>;
  /** Problems with the last submission, shown above the form. */
  errors: string[];
  outcome?: RunOutcome;
  /**
   * Where the form posts, and the hidden fields it must carry, every one: `ref` (which link)
   * and `shown` (the fingerprint of the call the page shows; a post without it, or with
   * another, gets the form again with status 409 and nothing spent).
   */
  action: string;
  hidden: Record<string, string>;
  /** The CSP nonce a custom page's `<style>` needs. */
  nonce?: string;
}

/** One call of an approval request, as the page shows it. */
export interface ApprovalCallView {
  /** Its position in the request: its fields are named `call.<index>.…`. */
  index: number;
  toolCallId: string;
  toolName: string;
  /** The arguments as the model wrote them (the text itself when it is not JSON). */
  arguments: JsonValue;
  /** JSON Schema of the tool's input: the edit form is generated from it (a JSON field without it). */
  inputSchema?: JsonObject;
  /** The tool's `approval.meta` for this call; its `render` hints the edit form's fields. */
  meta?: JsonObject;
  /** JSON Schema of the tool's `approval.resultSchema`: the result form is generated from it (a text field without it). */
  resultSchema?: JsonObject;
  /** Set once the call was decided on its own (the request waits for its other calls): shown, never asked again. */
  decided?: "approved" | "rejected" | "responded";
}

export interface FieldHint {
  /** `textarea` for a multi-line string; `radio` or `select` for an enum. */
  widget?: "textarea" | "radio" | "select";
  label?: string;
  help?: string;
}

export interface RenderHints {
  title?: string;
  description?: string;
  /** By field path: `note`, `address.city`, `items.0.name` (or `items.name` for every item). */
  fields?: Record<string, FieldHint>;
}

/** Reads `meta.render` leniently: anything malformed is ignored, never an error on the page. */
export function hintsOf(meta: JsonObject | undefined): RenderHints {
  const render = meta?.render;
  if (!render || typeof render !== "object" || Array.isArray(render)) return {};
  const hints: RenderHints = {};
  if (typeof render.title === "string") hints.title = render.title;
  if (typeof render.description === "string") hints.description = render.description;
  const fields = render.fields;
  if (fields && typeof fields === "object" && !Array.isArray(fields)) {
    hints.fields = {};
    for (const [path, hint] of Object.entries(fields)) {
      if (!hint || typeof hint !== "object" || Array.isArray(hint)) continue;
      const h: FieldHint = {};
      if (hint.widget === "textarea" || hint.widget === "radio" || hint.widget === "select") h.widget = hint.widget;
      if (typeof hint.label === "string") h.label = hint.label;
      if (typeof hint.help === "string") h.help = hint.help;
      Object.defineProperty(hints.fields, path, { value: h, enumerable: true });
    }
  }
  return hints;
}
