/** Errors of deferrals and resumes: the checks a resume, a denial or a rewrite of a deferred run passes in order (token, record, call binding, authorize hook, lifecycle, deadline, continuation hash, schema). Each refusal changes nothing. */
import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ResumeTokenFields = {
  reason: string;
  /** `"answer"`: an async tool's answer token (addToolResult / addToolError), not a resume token. */
  token?: "answer";
  /** The call cannot take answers yet (its callback is still running): the same request may succeed shortly. */
  retryLater?: true;
};

/** RC5041: The resume token (or an async tool's answer token) is malformed, forged, or not the one handed out. */
export class ResumeTokenError extends DurableAgentsError<ResumeTokenFields> {
  static readonly code = ErrorCode.ResumeTokenInvalid;
  readonly code = ErrorCode.ResumeTokenInvalid;
  constructor(f: ResumeTokenFields) {
    super(
      f.token === "answer"
        ? `[RC5041] The answer token is not accepted: ${f.reason}. Pass the token the async tool's callback received (ctx.answerToken) as answerToken.`
        : `[RC5041] The resume token is not valid: ${f.reason}. Use the token exactly as the tool handler received it (ctx.deferral.token); tokens minted with another secret are refused.`,
      f,
    );
  }
}

export type NotPlainJsonFields = { what: "payload" | "meta"; path: string; problem: string };

/** RC5042: A resume payload or deferral meta is not plain JSON. */
export class NotPlainJsonError extends DurableAgentsError<NotPlainJsonFields> {
  static readonly code = ErrorCode.NotPlainJson;
  readonly code = ErrorCode.NotPlainJson;
  constructor(f: NotPlainJsonFields) {
    super(
      `[RC5042] The ${f.what} is not plain JSON at ${f.path}: ${f.problem}. Send only objects, arrays, strings, finite numbers, booleans and null.`,
      f,
    );
  }
}

export type DeferralNotFoundFields = {
  deferralId: string;
  /**
   * The token is genuine and its run is still recording the deferral (the tool call that
   * made it has not reported back: its worker may have died and the call wait for its
   * retry). Nothing changed: the same request may succeed shortly.
   */
  retryLater?: true;
};

/** RC5046: No deferral with that id. */
export class DeferralNotFoundError extends DurableAgentsError<DeferralNotFoundFields> {
  static readonly code = ErrorCode.DeferralNotFound;
  readonly code = ErrorCode.DeferralNotFound;
  constructor(f: DeferralNotFoundFields) {
    super(
      f.retryLater
        ? `[RC5046] Deferral "${f.deferralId}" is not recorded yet: the tool call that made it is still running (or waits for its retry after its worker died). Nothing changed; send the same request again shortly.`
        : `[RC5046] No deferral "${f.deferralId}" exists. Check the id; a run past its namespace retention is gone.`,
      f,
    );
  }
}

export type DeferralExpiredFields = { deferralId: string; expiresAt: string };

/** RC5047: The deferral's TTL ran out before a resume claimed it. */
export class DeferralExpiredError extends DurableAgentsError<DeferralExpiredFields> {
  static readonly code = ErrorCode.DeferralExpired;
  readonly code = ErrorCode.DeferralExpired;
  constructor(f: DeferralExpiredFields) {
    super(
      `[RC5047] Deferral "${f.deferralId}" expired at ${f.expiresAt}. Its run has moved on; start a new run (or let the agent's onExpired re-ask) to get a fresh approval.`,
      f,
    );
  }
}

export type DefinitionChangedFields = {
  deferralId: string;
  agentId: string;
  deferredHash: string;
  currentHash: string;
  /**
   * What changed: `system` (prompt), `model`, `tools`, `agents` (sub-agents), `settings`
   * (temperature and the other model settings), `output` (schema), `version`. Absent when
   * the deferral was recorded by a worker that did not keep its parts.
   */
  changed?: string[];
};

const PART_NAMES: Record<string, string> = {
  system: "system prompt",
  model: "model",
  tools: "tools",
  agents: "sub-agents",
  settings: "model settings",
  output: "output schema",
  version: "version",
};

/** RC5048: The agent definition a deferred step depends on changed while it was deferred. */
export class DefinitionChangedError extends DurableAgentsError<DefinitionChangedFields> {
  static readonly code = ErrorCode.DefinitionChanged;
  readonly code = ErrorCode.DefinitionChanged;
  constructor(f: DefinitionChangedFields) {
    super(
      `[RC5048] Agent "${f.agentId}" changed (${whatChanged(f.changed)}) while deferral "${f.deferralId}" waited, so the deferred step cannot continue; the deferral is now denied. Start a new run to ask again.`,
      f,
    );
  }
}

/** "its model settings and output schema"; every part it may be when the record does not say. */
function whatChanged(changed: string[] | undefined): string {
  const names = (Array.isArray(changed) ? changed : []).map((part) => (Object.hasOwn(PART_NAMES, part) ? PART_NAMES[part]! : String(part)));
  if (names.length === 0) return `its ${Object.values(PART_NAMES).slice(0, -1).join(", ")} or version`;
  return `its ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`}`;
}

export type ResumePayloadFields = { deferralId: string; issues: string[] };

/** RC5049: The resume payload fails the deferral's schema; the token is not spent. */
export class ResumePayloadError extends DurableAgentsError<ResumePayloadFields> {
  static readonly code = ErrorCode.ResumePayloadInvalid;
  readonly code = ErrorCode.ResumePayloadInvalid;
  constructor(f: ResumePayloadFields) {
    super(
      `[RC5049] The resume payload does not match deferral "${f.deferralId}"'s schema: ${f.issues.join("; ")}. Fix the payload and resume again: the token is still valid.`,
      f,
    );
  }
}

export type DeferralDeniedFields = { deferralId: string; reason: string };

/** RC5050: The deferral was denied (definition change, cancellation, …); its tokens read this from then on. */
export class DeferralDeniedError extends DurableAgentsError<DeferralDeniedFields> {
  static readonly code = ErrorCode.DeferralDenied;
  readonly code = ErrorCode.DeferralDenied;
  constructor(f: DeferralDeniedFields) {
    super(
      `[RC5050] Deferral "${f.deferralId}" was denied (${f.reason}) and can no longer be resumed. Start a new run to ask again.`,
      f,
    );
  }
}

export type DeferralCancelledFields = { deferralId: string };

/** RC5054: Cancellation raced the deferral. */
export class DeferralCancelledError extends DurableAgentsError<DeferralCancelledFields> {
  static readonly code = ErrorCode.DeferralCancelled;
  readonly code = ErrorCode.DeferralCancelled;
  constructor(f: DeferralCancelledFields) {
    super(
      `[RC5054] The run was cancelled while deferral "${f.deferralId}" was being made or waited; the deferral is refused and its links are dead.`,
      f,
    );
  }
}

export type ToolCallMismatchFields = { deferralId: string; toolCallId: string };

/** RC5055: The token belongs to a different tool call than the one that won the deferral. */
export class ToolCallMismatchError extends DurableAgentsError<ToolCallMismatchFields> {
  static readonly code = ErrorCode.ToolCallMismatch;
  readonly code = ErrorCode.ToolCallMismatch;
  constructor(f: ToolCallMismatchFields) {
    super(
      `[RC5055] This token belongs to tool call "${f.toolCallId}", which did not win deferral "${f.deferralId}" (a sibling call in the same batch did). The deferral is untouched; only the winning call's recipient can resume it.`,
      f,
    );
  }
}

export type ResumeUnauthorizedFields = { deferralId: string; returned: string };

/** RC5056: The resume's authorize hook did not return exactly `true`. */
export class ResumeUnauthorizedError extends DurableAgentsError<ResumeUnauthorizedFields> {
  static readonly code = ErrorCode.ResumeUnauthorized;
  readonly code = ErrorCode.ResumeUnauthorized;
  constructor(f: ResumeUnauthorizedFields) {
    super(
      `[RC5056] Resume of deferral "${f.deferralId}" refused: the authorize hook returned ${f.returned}, not true. Nothing changed.`,
      f,
    );
  }
}

export type DeferralAlreadyResumedFields = { deferralId: string };

/** RC5057: `deferrals.deny()` came after a resume claimed the deferral; the approval stands. */
export class DeferralAlreadyResumedError extends DurableAgentsError<DeferralAlreadyResumedFields> {
  static readonly code = ErrorCode.DeferralAlreadyResumed;
  readonly code = ErrorCode.DeferralAlreadyResumed;
  constructor(f: DeferralAlreadyResumedFields) {
    super(
      `[RC5057] Deferral "${f.deferralId}" was already resumed, so it can no longer be denied; its answer stands. Cancel the run (agents.cancel) to stop it instead.`,
      f,
    );
  }
}

export interface DeferralChangedFields {
  deferralId: string;
  /** What the decision was made on (a fingerprint of the deferred call), as the request carried it. */
  shown: string;
  /** What the deferral holds now. */
  current: string;
}

/**
 * RC5058: a resume (or decision) was made on a deferred call that has changed since it was
 * shown: the request is refused, the token is not spent, and the record is untouched.
 */
export class DeferralChangedError extends DurableAgentsError<DeferralChangedFields> {
  static readonly code = ErrorCode.DeferralChanged;
  readonly code = ErrorCode.DeferralChanged;
  constructor(f: DeferralChangedFields) {
    super(
      `[RC5058] Deferral "${f.deferralId}" no longer holds the call that was shown when this decision was made. Nothing was changed and the token is still valid: show the request again and decide on what it holds now.`,
      f,
    );
  }
}

export interface ApprovalEscalatedFields {
  approvalId: string;
  /** Who may decide it now: its `meta.requires` since the escalation. */
  requires: string[];
  escalatedAt: string;
}

/**
 * AI1039: a decision was authorized against an approval request as it was before it
 * escalated, and reached the run after: the request is refused, the token is not spent, and
 * the record is untouched. The `authorize` hook decides again on the request as it is now.
 */
export class ApprovalEscalatedError extends DurableAgentsError<ApprovalEscalatedFields> {
  static readonly code = ErrorCode.ApprovalEscalated;
  readonly code = ErrorCode.ApprovalEscalated;
  constructor(f: ApprovalEscalatedFields) {
    super(
      `[AI1039] Approval request "${f.approvalId}" escalated at ${f.escalatedAt} (it now requires ${JSON.stringify(f.requires)}) after this decision was authorized. Nothing was changed and the token is still valid: read the request again; decide if its new requires allow you.`,
      f,
    );
  }
}

export interface PermissionNotFoundFields {
  permissionId: string;
  /** The run's or thread's workflow id. */
  runId: string;
}

/**
 * AI1032: a revocation named no standing permission in force in the run or thread: none
 * was granted with that id, or it was revoked already, or it lapsed. Nothing changes.
 */
export class PermissionNotFoundError extends DurableAgentsError<PermissionNotFoundFields> {
  static readonly code = ErrorCode.PermissionNotFound;
  readonly code = ErrorCode.PermissionNotFound;
  constructor(f: PermissionNotFoundFields) {
    super(
      `[AI1032] No standing permission "${f.permissionId}" is in force in "${f.runId}" (never granted there, revoked already, or lapsed). Nothing was changed: list those in force with approvals.permissions().`,
      f,
    );
  }
}

export type StepStateFields = { agentId: string; reason: string };

/** AI1007: Stored step state cannot be re-entered (agent gone or rebound, wrong shape, deferred call missing). */
export class StepStateError extends DurableAgentsError<StepStateFields> {
  static readonly code = ErrorCode.StepStateInvalid;
  readonly code = ErrorCode.StepStateInvalid;
  constructor(f: StepStateFields) {
    super(
      `[AI1007] The stored step state of agent "${f.agentId}" cannot be re-entered: ${f.reason}.`,
      f,
    );
  }
}

export type ThreadRewriteFields = { defect: string; index?: number; toolCallId?: string };

/**
 * AI1008: A thread rewrite broke call/result pairing, order, ids, emptied the thread,
 * dropped or changed the deferred call, or (not vouched for) held tool calls, tool results
 * or system messages the run did not have.
 */
export class ThreadRewriteError extends DurableAgentsError<ThreadRewriteFields> {
  static readonly code = ErrorCode.ThreadRewriteInvalid;
  readonly code = ErrorCode.ThreadRewriteInvalid;
  constructor(f: ThreadRewriteFields) {
    super(
      `[AI1008] Thread rewrite refused: ${f.defect}. Nothing was written; fix the rewrite so every tool call keeps its result and the deferred call stays as it was.`,
      f,
    );
  }
}
