import { Validator } from "@cfworker/json-schema";
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  proxySinks,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from "@temporalio/workflow";
import { assertResumableThread } from "../src/core/thread-transcript.js";
import { deferralIdOf } from "../src/core/deferral-id.js";
import { fingerprintOf } from "../src/core/fingerprint.js";
import { DeferralDeniedError } from "../src/core/errors/deferral-denied.js";
import { DeferralExpiredError } from "../src/core/errors/deferral-expired.js";
import { DeferralNotFoundError } from "../src/core/errors/deferral-not-found.js";
import { NotPlainJsonError } from "../src/core/errors/not-plain-json.js";
import { ResumePayloadError } from "../src/core/errors/resume-payload.js";
import { ResumeUnauthorizedError } from "../src/core/errors/resume-unauthorized.js";
import { StepStateError } from "../src/core/errors/step-state.js";
import { ToolCallMismatchError } from "../src/core/errors/tool-call-mismatch.js";
import type { JsonObject, JsonValue, Principal } from "../src/core/json.js";
import { plainJsonProblem } from "../src/core/json-check.js";
import type {
  DeferralEvent,
  DeferralRecord,
  DeferralView,
  DeferredAck,
  FailureInfo,
  ReplaceStepStateReply,
  ReplaceStepStateRequest,
  ResumeReply,
  ResumeRequest,
  RunOutcome,
  StepState,
} from "../src/core/deferral-record.js";
import { deferralQuery, replaceStepStateUpdate, resumeUpdate, settledUpdate } from "../src/core/wire/run.js";
import { DeferralExpiresAtKey, DeferralIdKey, DeferralStatusKey } from "../src/core/search-attributes.js";
import type { DurableAgentsSinks } from "../src/core/sinks.js";

export interface DeferralHooks {
  /** Checks that the deferred step can still continue; throws a typed failure to deny it. */
  verify?(record: DeferralRecord): Promise<void>;
  /** The step state of a waiting record (deferred or needs-compaction), for the store. */
  stepState?(record: DeferralRecord): StepState | undefined;
  /**
   * Write a claim's "resumed" status with the run's next step (`flushStatus()`) instead of
   * in the claim's own workflow task, which is on the path from resume() to the next
   * model call. Runs from before this existed write it at once, as their histories say.
   */
  deferResumedStatus?: boolean;
  /** Replaces the thread of a waiting record; only agent runs have one. */
  replaceMessages?(record: DeferralRecord, messages: StepState["messages"]): void;
}

export interface ParkRequest {
  toolCallId: string;
  toolName?: string;
  agentId?: string;
  schema?: JsonObject;
  meta: JsonObject;
  ttlMs: number;
  definitionHash?: string;
  principal?: Principal;
  contextWindow?: number;
  overheadTokens?: number;
}

export type ParkResult =
  | { kind: "resumed"; record: DeferralRecord; payload: JsonValue; resumedBy?: Principal; reverified?: Principal }
  | { kind: "expired"; record: DeferralRecord };

type Phase = "running" | "deferred" | "needs-compaction" | "completed" | "failed";

const WAITING = new Set(["deferred", "needs-compaction"]);

/**
 * A run's deferrals, inside its workflow: parking, the resume update with its checks
 * in the documented order, expiry, and the settled outcome that resumes (and their
 * duplicates) are answered with. Shared by agent runs and plain workflows.
 */
export class DeferralBook {
  readonly records: DeferralRecord[] = [];
  phase: Phase = "running";
  #last: RunOutcome | undefined;
  readonly #denials = new Map<string, unknown>();
  readonly #verifying = new Map<string, Promise<void>>();
  readonly #events = proxySinks<DurableAgentsSinks>().durableAgents;
  // A claim's "resumed" status, when it is written with the run's next step.
  #pendingStatus: string | undefined;

  constructor(private readonly hooks: DeferralHooks = {}) {
    setHandler(deferralQuery, (id) => this.view(id));
    setHandler(settledUpdate, async () => {
      await condition(() => this.phase !== "running");
      return this.#last!;
    });
    setHandler(resumeUpdate, (request) => this.resume(request), { validator: (request) => this.validate(request) });
    setHandler(replaceStepStateUpdate, (request) => this.replaceStepState(request), {
      validator: (request) => this.validateStepState(request),
    });
  }

  /** The id the next deferral of this run will have; tool handlers see it before they defer. */
  nextDeferralId(): string {
    return deferralIdOf(workflowInfo().workflowId, this.records.length + 1);
  }

  /** The record currently waiting for its resume, if any. */
  current(): DeferralRecord | undefined {
    const last = this.records.at(-1);
    return last?.status === "deferred" ? last : undefined;
  }

  view(id: string): DeferralView | null {
    const record = this.find(id);
    if (!record) return null;
    const stepState = WAITING.has(record.status) ? this.hooks.stepState?.(record) : undefined;
    const fingerprint = fingerprintOf({ id: record.id, status: record.status, stepState: stepState ?? null });
    return stepState ? { ...record, stepState, fingerprint } : { ...record, fingerprint };
  }

  /** Parks the run until a resume claims the deferral or its TTL runs out. */
  async park(request: ParkRequest): Promise<ParkResult> {
    const record = this.newRecord(request, "deferred");
    this.#write([
      { key: DeferralStatusKey, value: "deferred" },
      { key: DeferralIdKey, value: record.id },
      { key: DeferralExpiresAtKey, value: new Date(record.expiresAt) },
    ]);
    this.emit("deferred", record);
    this.settle(ackOf(record));

    const settled = await condition(() => record.status !== "deferred", request.ttlMs);
    if (!settled) {
      record.status = "expired";
      this.#write([{ key: DeferralStatusKey, value: "expired" }]);
      this.emit("expired", record);
      this.phase = "running";
      return { kind: "expired", record };
    }
    if (record.status === "denied") throw this.#denials.get(record.id);
    this.phase = "running";
    return {
      kind: "resumed",
      record,
      payload: record.payload ?? null,
      ...(record.resumedBy ? { resumedBy: record.resumedBy } : {}),
      ...(record.reverified ? { reverified: record.reverified } : {}),
    };
  }

  /**
   * A deferral that lost a race with cancellation: recorded already denied (RC5054), so
   * the link its handler may have sent reads RC5050 and never resumes a cancelled run.
   */
  refuse(request: ParkRequest, reason: string): DeferralRecord {
    const record = this.newRecord(request, "denied");
    record.deniedReason = reason;
    this.#write([
      { key: DeferralStatusKey, value: "denied" },
      { key: DeferralIdKey, value: record.id },
    ]);
    return record;
  }

  /** Denies whatever deferral the run is waiting on (the run is being cancelled). */
  denyWaiting(reason: string): void {
    const waiting = this.current();
    if (waiting) this.deny(waiting, reason, undefined);
  }

  private newRecord(request: ParkRequest, status: "deferred" | "denied"): DeferralRecord {
    const now = Date.now();
    const record: DeferralRecord = {
      id: this.nextDeferralId(),
      runId: workflowInfo().workflowId,
      ...(request.agentId ? { agentId: request.agentId } : {}),
      toolCallId: request.toolCallId,
      ...(request.toolName ? { toolName: request.toolName } : {}),
      status,
      ...(request.schema ? { schema: request.schema } : {}),
      meta: request.meta,
      deferredAt: new Date(now).toISOString(),
      expiresAt: new Date(now + request.ttlMs).toISOString(),
      ...(request.definitionHash ? { definitionHash: request.definitionHash } : {}),
      ...(request.principal ? { principal: request.principal } : {}),
      ...(request.contextWindow ? { contextWindow: request.contextWindow, overheadTokens: request.overheadTokens ?? 0 } : {}),
    };
    this.records.push(record);
    return record;
  }

  /**
   * The resumed run overflowed the model's context window: rather than fail and waste the
   * approval, it waits (payload kept) until a thread rewrite wins, then continues.
   */
  async awaitCompaction(record: DeferralRecord): Promise<void> {
    record.status = "needs-compaction";
    this.#write([{ key: DeferralStatusKey, value: "needs-compaction" }]);
    this.settle({ status: "needs-compaction", deferralId: record.id });
    await condition(() => record.status !== "needs-compaction");
    this.phase = "running";
  }

  /** The most recently resumed record, if the run has been resumed. */
  lastResumed(): DeferralRecord | undefined {
    return [...this.records].reverse().find((r) => r.status === "resumed");
  }

  // Any status written now supersedes one a claim left for later.
  #write(attributes: Parameters<typeof upsertSearchAttributes>[0]): void {
    this.#pendingStatus = undefined;
    upsertSearchAttributes(attributes);
  }

  /** Writes a status the claim left for later (call once the run has taken its next step). */
  flushStatus(): void {
    if (this.#pendingStatus === undefined) return;
    upsertSearchAttributes([{ key: DeferralStatusKey, value: this.#pendingStatus }]);
    this.#pendingStatus = undefined;
  }

  /** Records the run's settled state; answers the resume that led here. */
  settle(outcome: RunOutcome): void {
    this.flushStatus();
    this.#last = outcome;
    this.phase = outcome.status;
    for (const record of this.records) {
      if ((record.status === "resumed" || record.status === "needs-compaction") && !record.outcome) record.outcome = outcome;
    }
  }

  /**
   * Denies a deferral whose resume was claimed but whose step then could not continue
   * (the definition changed): the resume waiting on it is refused with `failure`.
   */
  denyClaimed(record: DeferralRecord, reason: string, failure: unknown): void {
    if (record.status !== "resumed") return;
    record.status = "denied";
    record.deniedReason = reason;
    this.#denials.set(record.id, failure);
    this.#write([{ key: DeferralStatusKey, value: "denied" }]);
  }

  /** Denies the waiting deferral: its tokens read RC5050 from then on. */
  deny(record: DeferralRecord, reason: string, failure: unknown): void {
    if (record.status !== "deferred") return;
    record.status = "denied";
    record.deniedReason = reason;
    if (failure !== undefined) this.#denials.set(record.id, failure);
    this.#write([{ key: DeferralStatusKey, value: "denied" }]);
  }

  /**
   * Runs a workflow body so every settled state is recorded, and keeps the workflow open
   * until resume and settled updates waiting on it have answered.
   */
  async run<T>(body: () => Promise<T>, summary: (result: T) => unknown = (r) => r): Promise<T> {
    try {
      const result = await body();
      this.settle({ status: "completed", result: summary(result) });
      return result;
    } catch (err) {
      this.settle({ status: "failed", error: failureInfo(err) });
      throw err;
    } finally {
      // Even a cancelled run answers the resumes and settled calls still waiting on it.
      await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    }
  }

  private find(id: string): DeferralRecord | undefined {
    return this.records.find((r) => r.id === id);
  }

  // Cheap refusals: a rejected update leaves no trace in history.
  private validate(request: ResumeRequest): void {
    const record = this.find(request?.deferralId);
    if (!record) throw new DeferralNotFoundError({ deferralId: String(request?.deferralId) }).toFailure();
    if (record.toolCallId !== request.toolCallId) {
      throw new ToolCallMismatchError({ deferralId: record.id, toolCallId: request.toolCallId }).toFailure();
    }
    if (request.reverify !== undefined && request.reverify?.id !== record.principal?.id) {
      throw new ResumeUnauthorizedError({ deferralId: record.id, returned: "a reverify principal that is not the one the run deferred as" }).toFailure();
    }
    const problem =
      plainJsonProblem(request.payload) ?? plainJsonProblem(request.resumedBy ?? null) ?? plainJsonProblem(request.reverify ?? null);
    if (problem) throw new NotPlainJsonError({ what: "payload", ...problem }).toFailure();
  }

  private async resume(request: ResumeRequest): Promise<ResumeReply> {
    const record = this.find(request.deferralId);
    if (!record) throw new DeferralNotFoundError({ deferralId: String(request.deferralId) }).toFailure();
    for (;;) {
      if (record.status === "resumed" || record.status === "needs-compaction") {
        await condition(() => record.outcome !== undefined || record.status === "denied");
        if (record.outcome) return { status: "duplicate", deferralId: record.id, outcome: record.outcome };
        continue;
      }
      if (record.status === "denied") {
        throw new DeferralDeniedError({ deferralId: record.id, reason: record.deniedReason ?? "denied" }).toFailure();
      }
      if (record.status === "expired" || Date.now() >= Date.parse(record.expiresAt)) {
        throw new DeferralExpiredError({ deferralId: record.id, expiresAt: record.expiresAt }).toFailure();
      }
      if (!this.hooks.verify) break;
      await this.verifyOnce(record);
      // Another resume, the timer or a denial may have moved the record while we waited.
      if (record.status === "deferred") break;
    }
    if (record.schema) {
      const result = new Validator(record.schema as never, "2020-12", false).validate(request.payload);
      if (!result.valid) {
        const issues = result.errors.filter((e) => e.keyword !== "properties").map((e) => `${e.instanceLocation}: ${e.error}`);
        throw new ResumePayloadError({ deferralId: record.id, issues }).toFailure();
      }
    }
    record.status = "resumed";
    record.payload = request.payload;
    record.resumedAt = new Date(Date.now()).toISOString();
    if (request.resumedBy) record.resumedBy = request.resumedBy;
    if (request.reverify) record.reverified = request.reverify;
    if (this.hooks.deferResumedStatus) this.#pendingStatus = "resumed";
    else this.#write([{ key: DeferralStatusKey, value: "resumed" }]);
    this.emit("resumed", record);
    this.phase = "running";
    await condition(() => record.outcome !== undefined || record.status === "denied");
    if (!record.outcome) throw this.#denials.get(record.id);
    return { status: "resumed", deferralId: record.id, outcome: record.outcome };
  }

  // Malformed threads and other agents' state are refused before anything is recorded.
  private validateStepState(request: ReplaceStepStateRequest): void {
    const record = this.find(request?.deferralId);
    if (!record) throw new DeferralNotFoundError({ deferralId: String(request?.deferralId) }).toFailure();
    const agentId = record.agentId ?? "(plain workflow)";
    if (!this.hooks.replaceMessages || !this.hooks.stepState) {
      throw new StepStateError({ agentId, reason: "a plain workflow's deferral has no step state to replace" }).toFailure();
    }
    const next = request.stepState;
    if (typeof next !== "object" || next === null || next.agentId !== record.agentId) {
      throw new StepStateError({ agentId, reason: `the step state is bound to agent "${String(next?.agentId)}"` }).toFailure();
    }
    if (next.deferredToolCallId !== record.toolCallId) {
      throw new StepStateError({ agentId, reason: `the step state defers call "${String(next.deferredToolCallId)}", not "${record.toolCallId}"` }).toFailure();
    }
    const current = WAITING.has(record.status) ? this.hooks.stepState(record) : undefined;
    if (current && (next.turnsUsed !== current.turnsUsed || JSON.stringify(next.usage) !== JSON.stringify(current.usage))) {
      throw new StepStateError({ agentId, reason: "turnsUsed and usage cannot be rewritten: shrinking a thread does not give the run its budget back" }).toFailure();
    }
    try {
      assertResumableThread(next.messages, record.status === "needs-compaction" ? undefined : record.toolCallId);
    } catch (err) {
      throw asFailure(err);
    }
  }

  private replaceStepState(request: ReplaceStepStateRequest): ReplaceStepStateReply {
    const record = this.find(request.deferralId)!;
    const before = this.view(record.id)!;
    if (!WAITING.has(record.status) || before.fingerprint !== request.expectedFingerprint) {
      return { won: false, deferral: before };
    }
    this.hooks.replaceMessages!(record, request.stepState.messages);
    // A compacted thread lets a run that overflowed after its resume continue.
    if (record.status === "needs-compaction") {
      record.status = "resumed";
      this.#write([{ key: DeferralStatusKey, value: "resumed" }]);
    }
    return { won: true, deferral: this.view(record.id)! };
  }

  // Concurrent resumes of one deferral share one check instead of one activity each.
  private verifyOnce(record: DeferralRecord): Promise<void> {
    let pending = this.#verifying.get(record.id);
    if (!pending) {
      pending = this.hooks.verify!(record)
        .catch((err: unknown) => {
          this.deny(record, err instanceof ApplicationFailure && err.type ? err.type : "verification failed", err);
          throw err;
        })
        .finally(() => this.#verifying.delete(record.id));
      this.#verifying.set(record.id, pending);
    }
    return pending;
  }

  private emit(type: DeferralEvent["type"], record: DeferralRecord): void {
    this.#events.event({
      type,
      deferralId: record.id,
      runId: record.runId,
      ...(record.agentId ? { agentId: record.agentId } : {}),
      toolCallId: record.toolCallId,
      at: new Date(Date.now()).toISOString(),
      expiresAt: record.expiresAt,
      ...(type === "resumed" && record.resumedBy ? { resumedBy: record.resumedBy } : {}),
    });
  }
}

export function ackOf(record: DeferralRecord): DeferredAck {
  return {
    status: "deferred",
    deferralId: record.id,
    ...(record.schema ? { schema: record.schema } : {}),
    expiresAt: record.expiresAt,
  };
}

function asFailure(err: unknown): unknown {
  return typeof (err as { toFailure?: unknown })?.toFailure === "function" ? (err as { toFailure(): unknown }).toFailure() : err;
}

function failureInfo(err: unknown): FailureInfo {
  if (err instanceof ApplicationFailure) {
    return { ...(err.type ? { code: err.type } : {}), message: err.message, ...(err.details?.[0] !== undefined ? { fields: err.details[0] } : {}) };
  }
  return { message: err instanceof Error ? err.message : String(err) };
}
