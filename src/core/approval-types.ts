/**
 * The shapes of approval requests and decisions that a request's record holds: a leaf of the
 * kernel, imported by the record (deferral-record.ts), the decision rules (approval.ts) and
 * standing permissions (approval-permissions.ts) alike, so none of them imports another in a circle.
 */
import type { JsonObject, JsonValue } from "./json.js";

/** One call waiting for a decision, as the request shows it. */
export interface ApprovalCall {
  toolCallId: string;
  toolName: string;
  /** The arguments as the model wrote them (JSON text): what the approver decides on. */
  arguments: string;
  /** JSON Schema of the tool's input: an edited `input` must fit it. */
  inputSchema?: JsonObject;
  /** The tool's `approval.meta` for this call (who may decide, why it needs a decision). */
  meta?: JsonObject;
  /** JSON Schema of the tool's `approval.resultSchema`: a `respond` decision's result must fit it. */
  resultSchema?: JsonObject;
}

/** A decision on one call: run it (with the model's input, or an edited one) or not. */
export type Decision =
  | {
      toolCallId: string;
      approved: true;
      /** Runs the tool with this input instead of the model's; checked against the tool's input schema (RC5049). */
      input?: JsonObject;
      /** A note kept on the record. */
      note?: string;
      /**
       * A standing permission: later calls of this tool in the same run or thread that fit it
       * run without asking (docs/approvals.md, "Standing permissions"). Checked with the
       * decision (RC5049, the token unspent); listed by `approvals.permissions()`, ended by `approvals.revoke()`.
       */
      grant?: PermissionGrant;
    }
  | {
      toolCallId: string;
      approved: false;
      /** Why, for the model: it reads it as the call's result. */
      reason?: string;
    }
  | {
      toolCallId: string;
      /**
       * A person answers in the tool's place: the tool never runs, and this is its result
       * (a string as it is, anything else as JSON). Plain JSON, checked against the tool's
       * `approval.resultSchema` when it has one (RC5049); at most `MAX_APPROVAL_BYTES` (AI1016).
       */
      respond: JsonValue;
      /** A note kept on the record. */
      note?: string;
      approved?: never;
    };

/** An escalation as the request's record keeps it: when, to whom. */
export interface ApprovalEscalationPlan {
  /** After how long from the request it escalates. */
  afterMs: number;
  /** Its `meta.requires` from then on. */
  requires: string[];
}

/**
 * What became of a request's reminders and escalation, kept on its record (so a thread's
 * request waited on again, or carried across continue-as-new, neither repeats nor skips them).
 */
export interface ApprovalSchedule {
  remindMs?: number[];
  escalate?: ApprovalEscalationPlan;
  /** How many reminders were sent. */
  reminded?: number;
  /** When each was sent, in order. */
  remindedAt?: string[];
  /** When it escalated, and the `requires` it had before. */
  escalated?: { at: string; from: string[] };
}

/** What an approver grants beside an approval (`{ approved: true, grant }`). */
export interface PermissionGrant {
  /** The tool later calls may be of: the approved call's own (the default; another tool's name is refused, RC5049). */
  tool?: string;
  /**
   * Until when: a duration from the decision (`"8h"`, `"7d"`) or an ISO time, at most
   * `MAX_PERMISSION_MS` ahead. Absent: for as long as the run or thread lives (or until revoked).
   */
  until?: string;
  /** A JSON Schema the later call's arguments (as the model wrote them) must satisfy; at most `MAX_GRANT_BYTES`. */
  match?: JsonObject;
  /** `principal`: only calls made while the run or thread acts for the principal it acted for when asked. Default `anyone`. */
  for?: "anyone" | "principal";
}
