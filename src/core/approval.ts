/**
 * Approvals the runtime enforces: a tool declared with `needsApproval` never runs before a
 * person decides on the call. The calls of one model step that need a decision become one
 * request (one deferral, one token, one link), decided per call: approved (maybe with edited
 * input) or rejected. Shared by the workflows (which enforce the gate and check decisions),
 * the worker (which evaluates `needsApproval` and mints the request's token) and the clients.
 * Sandbox-safe.
 */
import { Validator } from "@cfworker/json-schema";
import type { DecidedCall, DeferralRecord } from "./deferral-record.js";
import type { ApprovalCall, ApprovalEscalationPlan, Decision, PermissionGrant } from "./approval-types.js";
import { PayloadTooLargeError } from "./errors/limits.js";
import type { JsonObject, JsonValue, Principal } from "./json.js";
import { plainJsonProblem } from "./json-check.js";
import type { ToolCall } from "./messages.js";
import { jsonBytes } from "./payload-size.js";
import { grantIssues, MAX_PERMISSIONS } from "./approval-permissions.js";

export type { ApprovalCall, ApprovalEscalationPlan, ApprovalSchedule, Decision } from "./approval-types.js";
export type { DecidedCall } from "./deferral-record.js";

/**
 * The most the calls of one approval request may weigh, as JSON bytes of its calls (their
 * arguments as JSON text, their tool's input schema and meta), as the model wrote them or
 * as an approver edited them: 512 KiB. A request is copied wherever its approver may read
 * it (its record, the notification, a thread's stream and carry) and each approved call is
 * scheduled with its arguments; at this size every copy fits one Temporal payload with room
 * to spare. A model answer over it fails with AI1016, an edit over it is refused with AI1016
 * (the token unspent).
 */
export const MAX_APPROVAL_BYTES = 524_288;

/** What AI1016 suggests for an approval request over `MAX_APPROVAL_BYTES`. */
const APPROVAL_HINT =
  "A person reads and decides what an approval request shows: have the tool take a reference to large content (a file id, a URL) rather than the content itself.";

/** The resume payload of an approval request: one decision per call it lists. */
export interface ApprovalDecisions {
  decisions: Decision[];
}

/**
 * A call of a gate verdict: its id and its tool's meta for it. The rest of the request's
 * call the host takes from the answer beside the verdict (the tool name, the arguments) and
 * from `GateVerdict.schemas`. Verdicts recorded before that carry whole `ApprovalCall`s.
 */
export type GateCall = { toolCallId: string; meta?: JsonObject } & Partial<Pick<ApprovalCall, "toolName" | "arguments" | "inputSchema">>;

/** What the worker tells the host about the gated calls of an answer (see `ModelCallOutput.gate`). */
export interface GateVerdict {
  /** Calls that wait for a decision, in the model's order. */
  calls: GateCall[];
  /** The input schema of each gated tool, once per tool (by tool name). Absent in recorded verdicts, whose calls carry theirs. */
  schemas?: Record<string, JsonObject>;
  /** The JSON Schema of each gated tool's `approval.resultSchema`, when it has one (by tool name). */
  resultSchemas?: Record<string, JsonObject>;
  /** Calls of tools whose `needsApproval` policy allowed them: they run at once. */
  cleared: string[];
  /** Calls a `needsApproval` policy denied, with its reason: they never run, and the model reads why. */
  denied?: Array<{ toolCallId: string; reason: string }>;
  /** Calls a standing permission of the host lets run without asking, with its id: the workflow checks it again before they run. */
  permitted?: Array<{ toolCallId: string; permissionId: string }>;
  /** The digest of the request's token: a decision must carry its proof. Absent when no call waits. */
  digest?: string;
  /** How long the request stays open: the shortest `approval.ttl` of its calls. */
  ttlMs?: number;
  /** When its approvers are reminded, as ms before expiry (its tools' `approval.remind`, each shorter than `ttlMs`). Absent without reminders. */
  remindMs?: number[];
  /** Where it escalates if nobody decides (the earliest `approval.escalate` of its tools). Absent without one. */
  escalate?: ApprovalEscalationPlan;
}

/** Decisions as the clients take them: by call id, or the wire's list. */
export type Decisions = Decision[] | Record<string, { approved: true; input?: JsonObject; note?: string; grant?: PermissionGrant } | { approved: false; reason?: string } | { respond: JsonValue; note?: string }>;

/** The decisions as the wire carries them: one entry per call (anything else passes as it is, for the run to refuse). */
export function decisionList(decisions: Decisions): Decision[] {
  if (Array.isArray(decisions) || typeof decisions !== "object" || decisions === null) return decisions as Decision[];
  return Object.entries(decisions).map(([toolCallId, d]) => ({ ...d, toolCallId }) as Decision);
}

/** The longest note or reason a decision may carry, in characters. */
export const MAX_DECISION_TEXT = 4_000;

/**
 * Where `payload` fails to decide calls of `calls`: not `{ decisions: [...] }`, no decision
 * at all, more decisions than the request has calls, a decision for a call the request does
 * not list, two for one call, an `approved` that is not a boolean, an edited input that fails
 * the tool's schema. Undefined when it decides some of the calls, each at most once: the
 * calls it leaves out wait for a later decision (see `newDecisions`). Each issue names the
 * call it concerns.
 */
export function decisionIssues(calls: readonly ApprovalCall[], payload: unknown, grants: { nowMs: number; live: number; principal?: Principal } = { nowMs: Date.now(), live: 0 }): string[] | undefined {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return ["the payload must be { decisions: [...] }"];
  const decisions = (payload as { decisions?: unknown }).decisions;
  if (!Array.isArray(decisions)) return ["decisions must be an array, one decision per call"];
  if (decisions.length === 0) return ["decisions is empty: decide at least one call of the request"];
  // Checked before any entry: a flood of decisions costs one comparison, not a list of issues.
  if (decisions.length > calls.length) return [`${decisions.length} decisions for a request of ${calls.length} ${calls.length === 1 ? "call" : "calls"}: at most one decision per call`];
  const issues: string[] = [];
  const byId = new Map(calls.map((c) => [c.toolCallId, c]));
  const decided = new Set<string>();
  let granted = 0;
  decisions.forEach((d: unknown, i) => {
    const at = `decisions[${i}]`;
    if (typeof d !== "object" || d === null || Array.isArray(d)) return void issues.push(`${at} must be an object`);
    const { toolCallId, approved, input, note, reason } = d as Record<string, unknown>;
    const call = typeof toolCallId === "string" ? byId.get(toolCallId) : undefined;
    if (!call) return void issues.push(`${at}.toolCallId ${JSON.stringify(toolCallId)} is not a call of this request`);
    if (decided.has(call.toolCallId)) return void issues.push(`${at} decides "${call.toolCallId}" a second time`);
    decided.add(call.toolCallId);
    const { grant } = d as Record<string, unknown>;
    if (grant !== undefined) {
      if (approved !== true) return void issues.push(`${at}.grant is for an approval: a rejection or a response grants nothing`);
      granted += 1;
      issues.push(...grantIssues(grant, call.toolName, grants.nowMs, `${at}.grant`, grants.principal));
    }
    if (Object.prototype.hasOwnProperty.call(d, "respond")) return void issues.push(...responseIssues(call, d as Record<string, unknown>, at));
    if (typeof approved !== "boolean") return void issues.push(`${at}.approved must be true or false, or the decision a { respond } in the tool's place`);
    for (const [name, text] of [["note", note], ["reason", reason]] as const) {
      if (text !== undefined && (typeof text !== "string" || text.length > MAX_DECISION_TEXT)) issues.push(`${at}.${name} must be a string of at most ${MAX_DECISION_TEXT} characters`);
    }
    if (!approved && input !== undefined) issues.push(`${at}.input is for an approval; a rejection runs nothing`);
    if (approved && input !== undefined) {
      if (typeof input !== "object" || input === null || Array.isArray(input)) return void issues.push(`${at}.input must be an object`);
      const problem = plainJsonProblem(input);
      if (problem) return void issues.push(`${at}.input is not plain JSON at ${problem.path}: ${problem.problem}`);
      if (call.inputSchema) issues.push(...schemaIssues(call.inputSchema, input).map((issue) => `${at}.input${issue}`));
    }
  });
  if (granted > 0 && grants.live + granted > MAX_PERMISSIONS) issues.push(`the run or thread holds ${grants.live} standing permissions, and at most ${MAX_PERMISSIONS} may be in force: revoke one first (approvals.revoke)`);
  return issues.length > 0 ? issues : undefined;
}

// ---- per-call decisions -------------------------------------------------------------------

/** The ids of the calls `payload` decides, in its order (what `authorize` is told a resume decides); empty for anything else. */
export function decidedCallIds(payload: unknown): string[] {
  const decisions = (payload as { decisions?: unknown } | null | undefined)?.decisions;
  if (!Array.isArray(decisions)) return [];
  return decisions.flatMap((d: unknown) => (typeof d === "object" && d !== null && typeof (d as { toolCallId?: unknown }).toolCallId === "string" ? [(d as { toolCallId: string }).toolCallId] : []));
}

/**
 * The entry of `record` for the first call `payload` decides that was decided one at a time
 * before: a second decision for it reads what the first was answered with. Undefined when
 * the payload decides none of those.
 */
export function decidedEntryOf(record: Pick<DeferralRecord, "approval">, payload: unknown): DecidedCall | undefined {
  const decided = record.approval?.decided;
  if (!decided) return undefined;
  for (const id of decidedCallIds(payload)) {
    const entry = decided.find((d) => d.decision.toolCallId === id);
    if (entry) return entry;
  }
  return undefined;
}

/**
 * The decisions of a checked `payload` for calls not decided before (`decided`, by id): the
 * ones a resume applies. A decision for a call already decided is dropped (the first one stands).
 */
export function newDecisions(payload: JsonValue | undefined, decided: ReadonlySet<string>): Decision[] {
  const decisions = (payload as Partial<ApprovalDecisions> | null | undefined)?.decisions;
  return Array.isArray(decisions) ? decisions.filter((d) => !decided.has(d.toolCallId)) : [];
}

/** Where a `respond` decision fails: not plain JSON, off the tool's `approval.resultSchema`, beside `approved` or `input`. */
function responseIssues(call: ApprovalCall, d: Record<string, unknown>, at: string): string[] {
  const { respond, approved, input, reason, note } = d;
  if (approved !== undefined || input !== undefined || reason !== undefined) return [`${at} responds in the tool's place: it takes no approved, input or reason`];
  if (note !== undefined && (typeof note !== "string" || note.length > MAX_DECISION_TEXT)) return [`${at}.note must be a string of at most ${MAX_DECISION_TEXT} characters`];
  if (respond === undefined || respond === null) return [`${at}.respond must be the tool's result (plain JSON, not ${respond === null ? "null" : "undefined"})`];
  const problem = plainJsonProblem(respond);
  if (problem) return [`${at}.respond is not plain JSON at ${problem.path}: ${problem.problem}`];
  return call.resultSchema ? schemaIssues(call.resultSchema, respond, "result").map((issue) => `${at}.respond${issue}`) : [];
}

function schemaIssues(schema: JsonObject, value: unknown, which: "input" | "result" = "input"): string[] {
  try {
    const result = new Validator(schema as never, "2020-12", false).validate(value);
    if (result.valid) return [];
    return result.errors.filter((e) => e.keyword !== "properties").map((e) => `${e.instanceLocation.replace(/^#/, "")}: ${e.error}`);
  } catch (err) {
    return [`: the tool's ${which} schema cannot be applied (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`];
  }
}

/**
 * The calls of the approval request for `gated` (calls of the model's answer, in its
 * order), as its record keeps them: the arguments as the model wrote them, the tool's
 * input schema and meta from the worker's verdict.
 */
export function requestCalls(gated: readonly ToolCall[], verdict: GateVerdict | undefined): ApprovalCall[] {
  return gated.map((call) => {
    const judged = verdict?.calls.find((c) => c.toolCallId === call.id);
    const toolName = judged?.toolName ?? call.function.name;
    const inputSchema = judged?.inputSchema ?? (verdict?.schemas && Object.prototype.hasOwnProperty.call(verdict.schemas, toolName) ? verdict.schemas[toolName] : undefined);
    const resultSchema = verdict?.resultSchemas && Object.prototype.hasOwnProperty.call(verdict.resultSchemas, toolName) ? verdict.resultSchemas[toolName] : undefined;
    return {
      toolCallId: call.id,
      toolName,
      arguments: judged?.arguments ?? call.function.arguments,
      ...(inputSchema ? { inputSchema } : {}),
      ...(judged?.meta ? { meta: judged.meta } : {}),
      ...(resultSchema ? { resultSchema } : {}),
    };
  });
}

/** AI1016 for a model answer whose approval request (`calls`) weighs over `MAX_APPROVAL_BYTES`; undefined when it fits. */
export function oversizedRequest(calls: readonly ApprovalCall[]): PayloadTooLargeError | undefined {
  const bytes = jsonBytes(calls);
  if (bytes <= MAX_APPROVAL_BYTES) return undefined;
  const what = `The approval request of the model's answer (the arguments of its ${calls.length === 1 ? "call" : `${calls.length} calls`} that wait for a decision, with ${calls.length === 1 ? "its tool's" : "their tools'"} input schema and meta)`;
  return new PayloadTooLargeError({ what, bytes, limitBytes: MAX_APPROVAL_BYTES, hint: APPROVAL_HINT });
}

/**
 * The edited inputs of a decision on `calls`, as the arguments (JSON text) each approved
 * call would run with, by call id; undefined when it edits none. Reads any payload: what
 * is not an approval with an object `input` edits nothing.
 */
export function editedArguments(calls: readonly ApprovalCall[], payload: unknown): Map<string, string> | undefined {
  const edits = new Map<string, string>();
  for (const call of calls) {
    const decision = decisionFor(payload as JsonValue, call.toolCallId) as Partial<Record<string, unknown>> | undefined;
    const input = decision?.approved === true ? decision.input : undefined;
    if (typeof input === "object" && input !== null && !Array.isArray(input)) edits.set(call.toolCallId, JSON.stringify(input));
  }
  return edits.size > 0 ? edits : undefined;
}

/**
 * AI1016 when the request's calls, with the decision's edits in place of what the model
 * wrote, weigh over `MAX_APPROVAL_BYTES`; undefined when they fit. The token is not spent.
 */
export function oversizedEdits(calls: readonly ApprovalCall[], edits: ReadonlyMap<string, string>): PayloadTooLargeError | undefined {
  const decided = calls.map((call) => (edits.has(call.toolCallId) ? { ...call, arguments: edits.get(call.toolCallId)! } : call));
  const bytes = jsonBytes(decided);
  if (bytes <= MAX_APPROVAL_BYTES) return undefined;
  return new PayloadTooLargeError({
    what: "The decision's edited input (the request's calls with the edits in place)",
    bytes,
    limitBytes: MAX_APPROVAL_BYTES,
    hint: `Nothing was decided and the token is still usable: decide again with a smaller edit, or approve the call as it is. ${APPROVAL_HINT}`,
  });
}

/** What a person answering in the tools' place writes: each call's result by call id; the request's other calls are rejected (with `reason`). */
export interface RespondOptions {
  approvalId: string;
  results: Record<string, JsonValue>;
  /** Kept on the record with each response. */
  note?: string;
  /** Why the calls `results` leaves out are rejected, as the model will read it. */
  reason?: string;
}

/**
 * The decisions of a response: `{ respond }` for each call `results` names (listed by the
 * request or not: one it does not list is the run's to refuse), a rejection for each of
 * `calls` (the request's) it leaves out, so no call runs because a result was left out.
 */
export function responseDecisions(calls: readonly string[], options: Pick<RespondOptions, "results" | "note" | "reason">): Decision[] {
  const named = Object.keys(options.results);
  return [
    ...named.map((toolCallId): Decision => ({ toolCallId, respond: options.results[toolCallId]!, ...(options.note !== undefined ? { note: options.note } : {}) })),
    ...calls.filter((id) => !named.includes(id)).map((toolCallId): Decision => ({ toolCallId, approved: false, ...(options.reason !== undefined ? { reason: options.reason } : {}) })),
  ];
}

/** The same decision for each of `calls`: approved with `note`, or rejected with `reason` (what `approve` and `reject` send). */
export function uniformDecisions(calls: readonly string[], approved: boolean, text: { note?: string | undefined; reason?: string | undefined }): Decision[] {
  return calls.map((toolCallId): Decision =>
    approved
      ? { toolCallId, approved: true, ...(text.note !== undefined ? { note: text.note } : {}) }
      : { toolCallId, approved: false, ...(text.reason !== undefined ? { reason: text.reason } : {}) },
  );
}

/** What the model reads as the result of a call a person responded to in the tool's place: a string as it is, anything else as JSON (as a handler's return). */
export function respondedResult(respond: JsonValue): string {
  return typeof respond === "string" ? respond : JSON.stringify(respond);
}

/**
 * AI1016 when the results a decision writes in its tools' place (`respond`) weigh over
 * `MAX_APPROVAL_BYTES` together; undefined when they fit or it writes none. The token is not spent.
 */
export function oversizedResponses(calls: readonly ApprovalCall[], payload: unknown): PayloadTooLargeError | undefined {
  let bytes = 0;
  for (const call of calls) {
    const decision = decisionFor(payload as JsonValue, call.toolCallId) as Partial<Record<string, unknown>> | undefined;
    if (decision && Object.prototype.hasOwnProperty.call(decision, "respond")) bytes += jsonBytes(decision.respond, MAX_APPROVAL_BYTES + 1);
    if (bytes > MAX_APPROVAL_BYTES) break;
  }
  if (bytes <= MAX_APPROVAL_BYTES) return undefined;
  return new PayloadTooLargeError({
    what: "The decision's responses (the results it writes in its tools' place)",
    bytes,
    limitBytes: MAX_APPROVAL_BYTES,
    hint: "Nothing was decided and the token is still usable: respond with a shorter result (a reference to large content, such as a file id or a URL), or approve the call and let the tool answer.",
  });
}

/** The decision for one call of a checked payload. */
export function decisionFor(payload: JsonValue | undefined, toolCallId: string): Decision | undefined {
  const decisions = (payload as Partial<ApprovalDecisions> | null | undefined)?.decisions;
  return Array.isArray(decisions) ? decisions.find((d) => d.toolCallId === toolCallId) : undefined;
}

/** What the model reads for a call a person rejected: the tool did not run. */
export function rejectedResult(toolName: string, reason: string | undefined, by: Principal | undefined): string {
  return rejection(toolName, reason, by?.id);
}

/**
 * What the model reads for a call its tool's `needsApproval` policy denied: a rejection, as
 * a person's reads (readers and the chat UI show it as one), by `policy`.
 */
export function policyDeniedResult(toolName: string, reason: string): string {
  return rejection(toolName, reason, "policy");
}

function rejection(toolName: string, reason: string | undefined, who: string | undefined): string {
  return `Rejected${who ? ` by ${who}` : ""}: "${toolName}" was not run${reason ? `. Reason: ${reason}` : "."} Do not call it again for the same purpose unless asked to.`;
}

/** The reason of a policy's denial as the model reads it: at most `MAX_DECISION_TEXT` characters, longer ones cut with a note. */
export function boundedReason(reason: string): string {
  if (reason.length <= MAX_DECISION_TEXT) return reason;
  const note = ` … (cut: ${reason.length} characters)`;
  let end = MAX_DECISION_TEXT - note.length;
  // Never half a surrogate pair: the result must stay plain text.
  const last = reason.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return reason.slice(0, end) + note;
}

/** What the model reads for a gated call whose request expired or was denied: the tool did not run. */
export function undecidedResult(toolName: string, why: string): string {
  return `Error: "${toolName}" was not run: ${why}.`;
}

/** The `requires` list of a request's meta (its strings), empty when it has none. */
export function requiresOf(meta: JsonObject): string[] {
  return Array.isArray(meta.requires) ? meta.requires.filter((r): r is string => typeof r === "string") : [];
}
