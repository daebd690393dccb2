import type { JsonObject, JsonValue, Principal } from "./json.js";
import type { ChatMessage, Usage } from "./messages.js";
import type { TokenBinding } from "./proof.js";
import type { ApprovalCall, ApprovalSchedule, Decision } from "./approval-types.js";
import type { DefinitionParts } from "./fingerprint.js";

/**
 * `needs-compaction`: resumed (payload accepted), but the thread then overflowed the model's
 * context window; the run waits for a thread rewrite, then continues with no second approval.
 */
export type DeferralStatus = "deferred" | "resumed" | "needs-compaction" | "expired" | "denied";

/** Every status a deferral record can have, in the order of its life. */
export const DEFERRAL_STATUSES: readonly DeferralStatus[] = ["deferred", "needs-compaction", "resumed", "expired", "denied"];

/** One deferral of a run, as kept in workflow state. Never holds a token or the secret. */
export interface DeferralRecord {
  id: string;
  /** The run (workflow id) that deferred. */
  runId: string;
  /** Absent for deferrals made by plain workflows. */
  agentId?: string;
  /** The tool call that won the deferral; only its token resumes it. */
  toolCallId: string;
  toolName?: string;
  /** The deferred call's arguments as the model wrote them (JSON text); set on record reads of agent runs. */
  toolArguments?: string;
  /**
   * A fingerprint of the deferred call (its tool name and arguments) as the run holds it;
   * set on record reads. Show the request, then resume with `shown: callFingerprint`: the
   * run refuses (RC5058, token unspent) a decision made on anything else.
   */
  callFingerprint?: string;
  status: DeferralStatus;
  /** JSON Schema of a valid payload, when the handler declared one. */
  schema?: JsonObject;
  meta: JsonObject;
  deferredAt: string;
  expiresAt: string;
  /** Hash of the agent definition the deferred step depends on (agent runs only). */
  definitionHash?: string;
  /** A short hash of each part of that definition, so a refusal (RC5048) names the parts that changed. */
  definitionParts?: DefinitionParts;
  /** Who the run acts for: restored, not re-verified, when it resumes. */
  principal?: Principal;
  resumedBy?: Principal;
  resumedAt?: string;
  /** Set when the resume re-verified the deferring principal with a live credential. */
  reverified?: Principal;
  /** The accepted payload. */
  payload?: JsonValue;
  /** The agent's declared context window and the tokens its system prompt and tools take. */
  contextWindow?: number;
  overheadTokens?: number;
  /** Why it was denied: an error code, or `denied` for an explicit denial (see `denial`). */
  deniedReason?: string;
  /** When it was denied without `deferrals.deny()` (withdrawn by a thread that moved on, a cancelled run). Absent on records denied before it was kept. */
  deniedAt?: string;
  /** Set when someone denied it with `deferrals.deny()`: their reason, who, and when. */
  denial?: { reason: string; by?: Principal; at: string };
  /**
   * SHA-256 of the proof derived from the token handed out for this deferral: a resume must
   * carry that proof. Absent on records made before proofs existed, which resume as before.
   */
  digest?: string;
  /** The run's next settled state after the resume; what duplicates are answered with. */
  outcome?: RunOutcome;
  /**
   * Set on an approval request: the calls of gated tools waiting for a decision, in the
   * model's order (`toolCallId` and `toolName` above name the first). Its resume payload is
   * `{ decisions }`, at most one per call (`ApprovalDecisions`): a resume may decide some calls, a later one the rest.
   */
  approval?: {
    calls: ApprovalCall[];
    /** In a thread: the id of the answer whose calls wait, so a call id the model reuses later never meets this decision. */
    answerId?: string;
    /** Its reminders and escalation (`approval.remind`, `approval.escalate`) and what became of them; absent without either. */
    schedule?: ApprovalSchedule;
    /** The standing permissions its decision granted that were revoked since (`approvals.revoke()`). */
    revoked?: Array<{ permissionId: string; at: string; by?: Principal }>;
    /**
     * Calls decided by resumes that left others undecided, in the order they came (absent
     * until one does): the request stays deferred, with the same token, for the rest.
     */
    decided?: DecidedCall[];
  };
}

/** What a caller learns when a run parks: never `meta`, never a token. */
export interface DeferredAck {
  status: "deferred";
  deferralId: string;
  /** JSON Schema of a valid resume payload, when declared. */
  schema?: JsonObject;
  expiresAt: string;
}

/**
 * What the caller of a parked run is told: never meta, never a token. The workflow
 * settles with it and the client rebuilds it from the record, so both give the same object.
 */
export function ackOf(record: Pick<DeferralRecord, "id" | "schema" | "expiresAt">): DeferredAck {
  return {
    status: "deferred",
    deferralId: record.id,
    ...(record.schema ? { schema: record.schema } : {}),
    expiresAt: record.expiresAt,
  };
}

export interface FailureInfo {
  code?: string;
  message: string;
  fields?: unknown;
}

/** A run's settled state: completed, failed, deferred (again), or parked for compaction. */
export type RunOutcome =
  | { status: "completed"; result: unknown }
  | { status: "failed"; error: FailureInfo }
  | DeferredAck
  | { status: "needs-compaction"; deferralId: string }
  /** The run continued as new before it settled again: `agents.resume()` follows it to its next settled state. */
  | { status: "running" }
  /** A thread took the decision and goes on: follow it with `threads.settled` or its stream. */
  | { status: "accepted" };

/** The state a deferred agent step is re-entered from: plain JSON, nothing live. */
export interface StepState {
  agentId: string;
  messages: ChatMessage[];
  deferredToolCallId: string;
  turnsUsed: number;
  usage: Usage;
}

/** A record as the store shows it: with the step state for agent runs. */
export interface DeferralView extends DeferralRecord {
  stepState?: StepState;
  /** Compare-and-swap stamp over the status and step state: pass it to `replaceStepState`. */
  fingerprint: string;
}

export interface ReplaceStepStateRequest {
  deferralId: string;
  expectedFingerprint: string;
  stepState: StepState;
  /**
   * The caller vouches for tool calls, tool results and system messages the run did not
   * have (see `replaceDeferredThread`). The deferred call stays as it was regardless.
   */
  trustTranscript?: boolean;
}

/** Losing the compare-and-swap is an ordinary outcome: `won: false` with the record as it now stands. */
export interface ReplaceStepStateReply {
  won: boolean;
  deferral: DeferralView;
}

export interface ResumeRequest {
  deferralId: string;
  /** From the verified token: which tool call it was minted for. */
  toolCallId: string;
  payload: JsonValue;
  resumedBy?: Principal;
  /** The deferring principal, re-verified live by the resuming service: the run stops being "restored". */
  reverify?: Principal;
  /** `proofOf(token)`: proves the caller holds the token without the token entering history. */
  proof?: string;
  /** The verified token's binding claims: the workflow compares them with its own execution. */
  binding?: TokenBinding;
  /** The record's `callFingerprint` as the approver was shown it: refused with RC5058 unless it is the call's now. */
  shown?: string;
  /**
   * Set when the request can escalate and the resume was authorized against its record:
   * whether it had escalated then. A decision authorized before the escalation that reaches
   * the run after it is refused (AI1039): the `requires` it was authorized for are no longer the request's.
   */
  escalated?: boolean;
}

export interface ResumeReply {
  status: "resumed" | "duplicate";
  deferralId: string;
  outcome: RunOutcome;
}

/** Delivered to worker-side listeners exactly once per transition. */
export interface DeferralEvent {
  /** `denied`: someone (or a cancellation) denied it while it waited. */
  type: "deferred" | "resumed" | "expired" | "denied";
  deferralId: string;
  runId: string;
  agentId?: string;
  toolCallId: string;
  at: string;
  expiresAt: string;
  resumedBy?: Principal;
  /**
   * On an approval request (gated tools' calls waiting for a decision): each call by id and
   * tool name, in the model's order. The arguments and `meta` stay in the record
   * (`agents.approvals.get`), so a listener that logs events logs no model output.
   */
  approval?: { calls: Array<{ toolCallId: string; toolName: string }> };
}

/** `deferrals.deny()`: which deferral, why (shown to the model), and who denies. */
export interface DenyRequest {
  deferralId: string;
  reason: string;
  deniedBy?: Principal;
}

export interface DenyReply {
  status: "denied";
  deferralId: string;
}

/**
 * A call of a request decided by a resume that left other calls of it undecided: the
 * request stays open (same record, same token) for the rest. Kept on the record in the
 * order decisions came; a resume that decides the last undecided calls claims the record as
 * a whole decision does, its payload then holding every decision.
 */
export interface DecidedCall {
  decision: Decision;
  /** Who decided it (the resume's principal). */
  by?: Principal;
  at: string;
  /** The call's result is in the transcript (or its approved handler was started). */
  landed?: true;
  /** What the resume that decided it was answered: its duplicates read this. */
  outcome?: RunOutcome;
}
