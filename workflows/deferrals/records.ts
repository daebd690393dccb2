import { deferralIdOf } from "../../src/core/deferral-id.js";
import type { DeferralRecord, DeferralView, StepState } from "../../src/core/deferral-record.js";
import { pageOf } from "../../src/core/payload-size.js";
import { callFingerprint, fingerprintOf, type DefinitionParts } from "../../src/core/fingerprint.js";
import type { JsonObject, Principal } from "../../src/core/json.js";
import type { ApprovalCall, ApprovalSchedule } from "../../src/core/approval.js";
import type { ToolCall } from "../../src/core/messages.js";

/** What a run asks for when it parks (or refuses) a deferral. */
export interface ParkRequest {
  toolCallId: string;
  toolName?: string;
  agentId?: string;
  schema?: JsonObject;
  meta: JsonObject;
  ttlMs: number;
  definitionHash?: string;
  definitionParts?: DefinitionParts;
  principal?: Principal;
  contextWindow?: number;
  overheadTokens?: number;
  /** Digest of the token handed out for this deferral; absent for a plain workflow's `defer()` without one. */
  digest?: string;
  /** The calls an approval request waits on (and, in a thread, the answer that made them). */
  approval?: { calls: ApprovalCall[]; answerId?: string; schedule?: ApprovalSchedule };
}

/** Statuses in which the record has a step state a rewrite may replace. */
export const WAITING: ReadonlySet<string> = new Set(["deferred", "needs-compaction"]);

/**
 * A run's deferral records, in the order it made them, and how the store sees them.
 * Ids are derived from the run and the record's position, so a tool handler knows the id
 * of the deferral it is about to make.
 */
/** Records per `deferralRecordsQuery` page, at most (and at most a transcript page's bytes). */
const MAX_RECORDS_PAGE = 100;

export class DeferralRecords {
  readonly list: DeferralRecord[] = [];

  constructor(
    private readonly clock: { workflowId(): string; now(): number },
    /** The step state of a waiting record, for runs that have one (agent runs). */
    private readonly stepStateHook?: (record: DeferralRecord) => StepState | undefined,
    /** The deferred call as the run's transcript now holds it, for runs that have one. */
    private readonly deferredCallHook?: (record: DeferralRecord) => ToolCall | undefined,
  ) {}

  /** The id the next deferral of this run will have. */
  nextId(): string {
    return deferralIdOf(this.clock.workflowId(), this.list.length + 1);
  }

  find(id: string): DeferralRecord | undefined {
    return this.list.find((r) => r.id === id);
  }

  /** The record currently waiting for its resume, if any. */
  current(): DeferralRecord | undefined {
    const last = this.list.at(-1);
    return last?.status === "deferred" ? last : undefined;
  }

  /** The most recently resumed record, if the run has been resumed. */
  lastResumed(): DeferralRecord | undefined {
    return [...this.list].reverse().find((r) => r.status === "resumed");
  }

  add(request: ParkRequest, status: "deferred" | "denied"): DeferralRecord {
    const now = this.clock.now();
    const record: DeferralRecord = {
      id: this.nextId(),
      runId: this.clock.workflowId(),
      ...(request.agentId ? { agentId: request.agentId } : {}),
      toolCallId: request.toolCallId,
      ...(request.toolName ? { toolName: request.toolName } : {}),
      status,
      ...(request.schema ? { schema: request.schema } : {}),
      meta: request.meta,
      deferredAt: new Date(now).toISOString(),
      expiresAt: new Date(now + request.ttlMs).toISOString(),
      ...(request.definitionHash ? { definitionHash: request.definitionHash } : {}),
      ...(request.definitionParts ? { definitionParts: request.definitionParts } : {}),
      ...(request.principal ? { principal: request.principal } : {}),
      ...(request.contextWindow ? { contextWindow: request.contextWindow, overheadTokens: request.overheadTokens ?? 0 } : {}),
      ...(request.digest ? { digest: request.digest } : {}),
      ...(request.approval ? { approval: request.approval } : {}),
    };
    this.list.push(record);
    return record;
  }

  /** Whether records of this run have a step state at all (a plain workflow's do not). */
  get hasStepState(): boolean {
    return this.stepStateHook !== undefined;
  }

  /** The step state a waiting record would resume from; none once it stopped waiting. */
  stepStateOf(record: DeferralRecord): StepState | undefined {
    return WAITING.has(record.status) ? this.stepStateHook?.(record) : undefined;
  }

  /** The record as the store shows it, with a fingerprint for compare-and-swap; null when unknown. */
  view(id: string): DeferralView | null {
    const record = this.find(id);
    if (!record) return null;
    const stepState = this.stepStateOf(record);
    const fingerprint = fingerprintOf({ id: record.id, status: record.status, stepState: stepState ?? null });
    const shown = { ...record, callFingerprint: this.callFingerprint(record) };
    return stepState ? { ...shown, stepState, fingerprint } : { ...shown, fingerprint };
  }

  /**
   * The record without its step state, as a record read shows it: with the deferred call's
   * arguments (a few bytes of the transcript, for whoever shows the request) and the
   * fingerprint a resume binds to; null when unknown. Computed per read, never stored.
   */
  read(id: string): DeferralRecord | null {
    const record = this.find(id);
    if (!record) return null;
    const toolArguments = this.deferredCallHook?.(record)?.function.arguments;
    return { ...record, ...(toolArguments !== undefined ? { toolArguments } : {}), callFingerprint: this.callFingerprint(record) };
  }

  /** A page of every record as `read` shows it, oldest first, from `offset`. */
  page(offset: number): { records: DeferralRecord[]; total: number } {
    return { records: pageOf(this.list.slice(offset).map((r) => this.read(r.id)!), 0, MAX_RECORDS_PAGE), total: this.list.length };
  }

  /** What an approver of `record` was shown, as `callFingerprint`: the call's name and arguments as the transcript holds them. */
  callFingerprint(record: DeferralRecord): string {
    // An approval request is decided on all its calls, kept on the record as the model wrote them (a rewrite keeps them).
    if (record.approval) return callFingerprint({ name: "approval", arguments: JSON.stringify(record.approval.calls.map((c) => [c.toolName, c.arguments])) });
    const call = this.deferredCallHook?.(record);
    return callFingerprint({ name: call?.function.name ?? record.toolName, arguments: call?.function.arguments });
  }
}
