import { allHandlersFinished, CancellationScope, condition, ContinueAsNew } from "@temporalio/workflow";
import { parkedLine } from "../../src/core/status-line.js";
import type { SubAgentDeferral } from "../../src/core/wire/run.js";
import { ackOf, type DeferralRecord, type DenyReply, type DenyRequest, type StepState } from "../../src/core/deferral-record.js";
import { DeferralAlreadyResumedError } from "../../src/core/errors/deferrals.js";
import { DeferralDeniedError } from "../../src/core/errors/deferrals.js";
import { DeferralExpiredError } from "../../src/core/errors/deferrals.js";
import { DeferralNotFoundError } from "../../src/core/errors/deferrals.js";
import { denyRequestProblem, refuseMalformed } from "../../src/core/request-shapes.js";
import { denyUpdate } from "../../src/core/wire/run.js";
import type { JsonValue, Principal } from "../../src/core/json.js";
import type { ToolCall } from "../../src/core/messages.js";
import { DeferralDenials } from "./denials.js";
import { failureInfo, SettledOutcome } from "./outcome.js";
import { DeferralRecords, type ParkRequest } from "./records.js";
import type { DeferralRuntime } from "./runtime.js";
import { DeferralVisibility } from "./visibility.js";
import { ResumeProtocol, type ResumeProtocolOptions } from "./resume-protocol.js";
import { StepStateSwap, type ReplaceMessages } from "./step-state-swap.js";

export interface DeferralHooks extends ResumeProtocolOptions {
  /** The step state of a waiting record (deferred or needs-compaction), for the store. */
  stepState?(record: DeferralRecord): StepState | undefined;
  /** Replaces the thread of a waiting record; only agent runs have one. */
  replaceMessages?: ReplaceMessages;
  /** The record's deferred call as the transcript now holds it (agent runs). */
  deferredCall?(record: DeferralRecord): ToolCall | undefined;
}

export type ParkResult =
  | { kind: "resumed"; record: DeferralRecord; payload: JsonValue; resumedBy?: Principal; reverified?: Principal }
  | { kind: "expired"; record: DeferralRecord }
  /** Someone denied it with `deferrals.deny()`: `record.denial` says why and who. */
  | { kind: "denied"; record: DeferralRecord & { denial: NonNullable<DeferralRecord["denial"]> } };

/**
 * Something a waiting record does at a time of its own before it expires (an approval
 * request's reminder or escalation): `run` is called when `at` (epoch ms) comes and nobody
 * decided yet. It must not wait on anything, so a decision is never held up by it.
 */
export interface WaitStage {
  at: number;
  run(): void;
}

/** A deferral just parked: its record at once (to tell people of it), and how the wait ends. */
export interface Parking {
  readonly record: DeferralRecord;
  readonly outcome: Promise<ParkResult>;
}

/**
 * A run's deferrals, inside its workflow: parking until a resume or the TTL, refusals,
 * parking for compaction, and the settled outcome. Shared by agent runs and plain
 * workflows; the workflow registers the handlers, which answer from `records`,
 * `outcome`, `resumes` and `stepStates`.
 */
export class DeferralBook {
  readonly records: DeferralRecords;
  readonly outcome: SettledOutcome;
  readonly resumes: ResumeProtocol;
  readonly stepStates: StepStateSwap;
  readonly #visibility: DeferralVisibility;
  readonly #denials: DeferralDenials;

  constructor(
    private readonly runtime: DeferralRuntime,
    hooks: DeferralHooks = {},
  ) {
    this.records = new DeferralRecords(runtime, hooks.stepState, hooks.deferredCall);
    this.#visibility = new DeferralVisibility(runtime);
    this.#denials = new DeferralDenials(this.#visibility);
    this.outcome = new SettledOutcome(runtime, this.records, this.#visibility);
    this.resumes = new ResumeProtocol(runtime, this.records, this.#visibility, this.#denials, this.outcome, hooks);
    this.stepStates = new StepStateSwap(this.records, this.#visibility, hooks.replaceMessages);
  }

  get phase(): SettledOutcome["phase"] {
    return this.outcome.phase;
  }

  /** The id the next deferral of this run will have; tool handlers see it before they defer. */
  nextDeferralId(): string {
    return this.records.nextId();
  }

  /** The record currently waiting for its resume, if any. */
  current(): DeferralRecord | undefined {
    return this.records.current();
  }

  /** The most recently resumed record, if the run has been resumed. */
  lastResumed(): DeferralRecord | undefined {
    return this.records.lastResumed();
  }

  /**
   * Parks the run until a resume claims the deferral, a denial comes or its TTL runs out.
   * The record exists (listed, its event emitted) when this returns.
   */
  park(request: ParkRequest, stages?: (record: DeferralRecord) => WaitStage[]): Parking {
    const record = this.records.add(request, "deferred");
    this.#visibility.listed(record);
    this.#visibility.row(this.records.read(record.id)!);
    this.#visibility.emit("deferred", record);
    const ack = ackOf(record);
    this.outcome.settle(ack);
    this.runtime.parked?.(ack);
    // Tool name and deferral id only: what the UI shows must not depend on a codec to stay
    // private. Without a schema that is the whole acknowledgment: callers read it for free.
    const line = parkedLine(record.toolName, record.id, record.expiresAt, record.schema !== undefined);
    this.#details(line);
    // The expiry timer carries the line too: its event lands in the history in the same
    // workflow task as the search attributes that list the deferral, so a caller watching
    // the history for the park has the acknowledgment in hand (settle.ts), with no query.
    return { record, outcome: this.#wait(record, request.ttlMs, line, stages?.(record)) };
  }

  /** A waiting request's row changed (its `requires`, escalated): the inbox lists it as it now is. */
  relisted(record: DeferralRecord): void {
    if (record.status === "deferred") this.#visibility.row(this.records.read(record.id) ?? record);
  }

  /**
   * A sub-agent of this run parked on a deferral of its own: this run waits on it too. It is
   * listed with the sub-agent's deferral (so `run()` and `settled()` answer with it; the
   * lists show the sub-agent's row only) and settles as deferred. Its status line names the
   * sub-agent rather than spelling the acknowledgment, which readers take from the record.
   */
  subAgentParked(child: SubAgentDeferral): void {
    this.#visibility.listed({ id: child.deferralId, status: "deferred", expiresAt: child.expiresAt });
    const ack = ackOf({ id: child.deferralId, schema: child.schema, expiresAt: child.expiresAt });
    this.outcome.settle(ack);
    this.runtime.parked?.(ack);
    this.#details(`waiting on sub-agent ${child.agentId} (deferral ${child.deferralId}) until ${child.expiresAt}`);
  }

  /** The sub-agent's deferral was resumed, denied or expired: this run goes on with it. */
  subAgentMoved(child: SubAgentDeferral): void {
    if (child.status === "resumed" && !this.outcome.subAgentOutcomes.has(child.deferralId)) this.outcome.subAgentOutcomes.set(child.deferralId, null);
    this.#visibility.status(child.status);
    this.outcome.moving();
    this.#details(`running (sub-agent ${child.agentId}: deferral ${child.deferralId} ${child.status})`);
  }

  /**
   * Waits again on a record made earlier (a thread's request outlives a stopped turn): for
   * the rest of its TTL while it is deferred, not at all once a decision, a denial or its
   * expiry has come.
   */
  async waitAgain(record: DeferralRecord, stages?: WaitStage[]): Promise<ParkResult> {
    if (record.status === "deferred") return this.#wait(record, Math.max(1, Date.parse(record.expiresAt) - this.runtime.now()), undefined, stages);
    return this.#result(record);
  }

  async #wait(record: DeferralRecord, ttlMs: number, summary?: string, stages: readonly WaitStage[] = []): Promise<ParkResult> {
    const waiting = () => record.status === "deferred";
    // Without stages the wait is one timer, as it always was (recorded histories replay it).
    for (const stage of [...stages].sort((a, b) => a.at - b.at)) {
      if (this.runtime.now() >= Date.parse(record.expiresAt)) break;
      const ms = stage.at - this.runtime.now();
      // A stage whose time passed while nobody waited (a thread's stopped turn) runs now.
      if (ms > 0 && (await this.runtime.condition(() => !waiting(), ms, summary)) !== false) return this.#result(record);
      // A decision accepted in the same workflow task as the timer wins: nothing more happens.
      if (!waiting()) return this.#result(record);
      stage.run();
    }
    if (stages.length > 0) ttlMs = Math.max(1, Date.parse(record.expiresAt) - this.runtime.now());
    const settled = await this.runtime.condition(() => !waiting(), ttlMs, summary);
    if (!settled) {
      record.status = "expired";
      this.#visibility.status("expired");
      this.#visibility.emit("expired", record);
      this.outcome.moving();
      this.#details(`running (deferral ${record.id} expired)`);
      return { kind: "expired", record };
    }
    return this.#result(record);
  }

  /** What a record that stopped waiting says: denied (or refused), resumed with its payload, or expired. */
  #result(record: DeferralRecord): ParkResult {
    if (record.status === "expired") return { kind: "expired", record };
    if (record.status === "denied") {
      if (record.denial) {
        this.outcome.moving();
        this.#details(`running (deferral ${record.id} denied)`);
        return { kind: "denied", record: record as DeferralRecord & { denial: NonNullable<DeferralRecord["denial"]> } };
      }
      throw this.#denials.failureOf(record);
    }
    this.outcome.moving();
    this.#details(`running (resumed from deferral ${record.id})`);
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
    const record = this.records.add(request, "denied");
    record.deniedReason = reason;
    this.#visibility.listed(record);
    return record;
  }

  /**
   * Cheap refusals of a deny, so a refused one writes no history: malformed (AI1012),
   * unknown (RC5046), already denied (RC5050), expired (RC5047), already resumed (RC5057).
   */
  validateDeny(request: DenyRequest): void {
    refuseMalformed(denyUpdate.name, denyRequestProblem(request));
    const record = this.records.find(request.deferralId);
    if (!record) throw new DeferralNotFoundError({ deferralId: request.deferralId }).toFailure();
    if (record.status === "denied") throw new DeferralDeniedError({ deferralId: record.id, reason: record.deniedReason ?? "denied" }).toFailure();
    if (record.status === "expired" || this.runtime.now() >= Date.parse(record.expiresAt)) {
      throw new DeferralExpiredError({ deferralId: record.id, expiresAt: record.expiresAt }).toFailure();
    }
    if (record.status !== "deferred") throw new DeferralAlreadyResumedError({ deferralId: record.id }).toFailure();
  }

  /** Denies a waiting deferral on purpose (`deferrals.deny()`): the parked run wakes up to it. */
  deny(request: DenyRequest): DenyReply {
    this.validateDeny(request);
    const record = this.records.find(request.deferralId)!;
    record.denial = { reason: request.reason, ...(request.deniedBy ? { by: request.deniedBy } : {}), at: new Date(this.runtime.now()).toISOString() };
    this.#denials.deny(record, "denied", undefined);
    return { status: "denied", deferralId: record.id };
  }

  /** Denies whatever deferral the run is waiting on (the run is being cancelled). */
  denyWaiting(reason: string): void {
    const waiting = this.current();
    if (!waiting) return;
    waiting.deniedAt = new Date(this.runtime.now()).toISOString();
    this.#denials.deny(waiting, reason, undefined);
  }

  /**
   * Denies a deferral whose resume was claimed but whose step then could not continue
   * (the definition changed): the resume waiting on it is refused with `failure`.
   */
  denyClaimed(record: DeferralRecord, reason: string, failure: unknown): void {
    this.#denials.denyClaimed(record, reason, failure);
  }

  /**
   * The resumed run overflowed the model's context window: rather than fail and waste the
   * approval, it waits (payload kept) until a thread rewrite wins, then continues.
   */
  async awaitCompaction(record: DeferralRecord): Promise<void> {
    record.status = "needs-compaction";
    this.#visibility.status("needs-compaction");
    this.outcome.settle({ status: "needs-compaction", deferralId: record.id });
    this.#details(`awaiting a shorter transcript (deferral ${record.id}): the resumed run outgrew the model's context window; replaceDeferredThread to go on`);
    await this.runtime.condition(() => record.status !== "needs-compaction");
    this.outcome.moving();
    this.#details(`running (transcript of deferral ${record.id} replaced)`);
  }

  #details(text: string): void {
    this.runtime.details?.(text);
  }

  /** Writes a status a claim left for later (call once the run has taken its next step). */
  flushStatus(): void {
    this.#visibility.flush();
  }

  /**
   * Runs a workflow body so every settled state is recorded, and keeps the workflow open
   * until resume and settled updates waiting on it have answered.
   */
  async run<T>(body: () => Promise<T>, summary: (result: T) => unknown = (r) => r): Promise<T> {
    this.#details("running");
    try {
      const result = await body();
      this.outcome.settle({ status: "completed", result: summary(result) });
      this.#details("completed");
      return result;
    } catch (err) {
      // Continuing as new is not an outcome: the next execution settles the run.
      if (err instanceof ContinueAsNew) throw err;
      const error = failureInfo(err);
      this.outcome.settle({ status: "failed", error });
      this.#details(`failed${error.code ? ` (${error.code})` : ""}`);
      throw err;
    } finally {
      // Even a cancelled run answers the resumes and settled calls still waiting on it.
      await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    }
  }
}
