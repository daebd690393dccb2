import { Validator } from "@cfworker/json-schema";
import { ApplicationFailure } from "@temporalio/workflow";
import type { DeferralRecord, ResumeReply, ResumeRequest } from "../../src/core/deferral-record.js";
import { ApprovalEscalatedError } from "../../src/core/errors/deferrals.js";
import { requiresOf } from "../../src/core/approval.js";
import { DeferralChangedError } from "../../src/core/errors/deferrals.js";
import { DeferralDeniedError } from "../../src/core/errors/deferrals.js";
import { DeferralExpiredError } from "../../src/core/errors/deferrals.js";
import { DeferralNotFoundError } from "../../src/core/errors/deferrals.js";
import { NotPlainJsonError } from "../../src/core/errors/deferrals.js";
import { ResumePayloadError } from "../../src/core/errors/deferrals.js";
import { ResumeUnauthorizedError } from "../../src/core/errors/deferrals.js";
import { ToolCallMismatchError } from "../../src/core/errors/deferrals.js";
import { plainJsonProblem } from "../../src/core/json-check.js";
import { bindingProblem, proofMalformed, proofProblem } from "../../src/core/proof.js";
import { ResumeTokenError } from "../../src/core/errors/deferrals.js";
import { decidedEntryOf, decisionIssues, newDecisions, type DecidedCall, type Decision } from "../../src/core/approval.js";
import type { JsonValue } from "../../src/core/json.js";
import { livePermissions } from "../../src/core/approval-permissions.js";
import { refuseMalformed, resumeRequestProblem } from "../../src/core/request-shapes.js";
import { resumeUpdate } from "../../src/core/wire/run.js";
import type { DeferralDenials } from "./denials.js";
import type { SettledOutcome } from "./outcome.js";
import type { DeferralRecords } from "./records.js";
import type { DeferralRuntime } from "./runtime.js";
import type { DeferralVisibility } from "./visibility.js";

export interface ResumeProtocolOptions {
  /** Checks that the deferred step can still continue; throws a typed failure to deny it. */
  verify?(record: DeferralRecord): Promise<void>;
  /**
   * Write a claim's "resumed" status with the run's next step instead of in the claim's
   * own workflow task, which is on the path from resume() to the next model call. Hosts
   * with no next step to ride on (a plain workflow, a thread) write it at once.
   */
  deferResumedStatus?: boolean;
  /**
   * A decision on some of an approval request's calls is answered `accepted` at once rather
   * than once its calls have results: hosts whose callers follow them instead (a thread).
   */
  acceptsAtOnce?: boolean;
}

/**
 * The resume update. The token's signature, and the authorize hook, were checked by the
 * client; here the documented order again where the state lives: a malformed proof or a
 * token bound to another execution → record exists → call binding → proof of the token (→
 * reverified principal → denied → deadline → what was shown → plain JSON → schema of a first resume) in the
 * validator, then lifecycle (a duplicate gets the first outcome) → denied → deadline →
 * continuation check → schema → claim. Each refusal leaves the record as it was; those of
 * the validator leave no history either.
 */
export class ResumeProtocol {
  // Concurrent resumes of one deferral share one check instead of one activity each.
  readonly #verifying = new Map<string, Promise<void>>();
  /** Set while the run continues as new: resumes still waiting for its next settled state answer "running". */
  #continuing = false;

  constructor(
    private readonly runtime: Pick<DeferralRuntime, "condition" | "now" | "execution">,
    private readonly records: DeferralRecords,
    private readonly visibility: DeferralVisibility,
    private readonly denials: DeferralDenials,
    private readonly outcome: SettledOutcome,
    private readonly options: ResumeProtocolOptions = {},
  ) {}

  // Cheap refusals: a rejected update leaves no trace in history.
  validate(request: ResumeRequest): void {
    refuseMalformed(resumeUpdate.name, resumeRequestProblem(request));
    if (proofMalformed(request?.proof)) throw new ResumeTokenError({ reason: "the proof is malformed" }).toFailure();
    this.#checkBinding(request);
    const record = this.records.find(request?.deferralId);
    if (!record) throw new DeferralNotFoundError({ deferralId: String(request?.deferralId) }).toFailure();
    if (record.toolCallId !== request.toolCallId) {
      throw new ToolCallMismatchError({ deferralId: record.id, toolCallId: request.toolCallId }).toFailure();
    }
    this.#checkPossession(record, request);
    if (request.reverify !== undefined && request.reverify?.id !== record.principal?.id) {
      throw new ResumeUnauthorizedError({ deferralId: record.id, returned: "a reverify principal that is not the one the run deferred as" }).toFailure();
    }
    this.#checkLifecycle(record);
    this.#checkShown(record, request);
    this.#checkEscalated(record, request);
    const problem =
      plainJsonProblem(request.payload) ?? plainJsonProblem(request.resumedBy ?? null) ?? plainJsonProblem(request.reverify ?? null);
    if (problem) throw new NotPlainJsonError({ what: "payload", ...problem }).toFailure();
    this.#checkSchemaEarly(record, request);
  }

  /**
   * RC5050 for a denied deferral, RC5047 for an expired one (or one whose deadline passed
   * before its timer fired): refused here, so their arguments (the proof among them) never
   * enter history. The handler checks again, for a record that moved between the two. A
   * resumed record passes: its duplicate is answered with the first outcome.
   */
  #checkLifecycle(record: DeferralRecord): void {
    if (record.status === "denied") {
      throw new DeferralDeniedError({ deferralId: record.id, reason: record.deniedReason ?? "denied" }).toFailure();
    }
    if (record.status === "expired" || (record.status === "deferred" && this.runtime.now() >= Date.parse(record.expiresAt))) {
      throw new DeferralExpiredError({ deferralId: record.id, expiresAt: record.expiresAt }).toFailure();
    }
  }

  /**
   * RC5058 for a first resume whose `shown` is not the deferred call as the run now holds
   * it: the approver decided on something else. Only here, never in the handler, so
   * histories (where validators do not run) replay as they were; and a rewrite cannot
   * change the call after this accepts, so the handler has nothing left to compare. A
   * duplicate is answered with the first outcome whatever it carries.
   */
  #checkShown(record: DeferralRecord, request: ResumeRequest): void {
    if (request.shown === undefined || record.status !== "deferred") return;
    const current = this.records.callFingerprint(record);
    if (request.shown !== current) {
      throw new DeferralChangedError({ deferralId: record.id, shown: request.shown.slice(0, 64), current }).toFailure();
    }
  }

  /**
   * AI1039 for a first decision authorized before its request escalated that arrives after:
   * the `requires` it was authorized for are no longer the request's. Only here, as `shown`:
   * one accepted before the escalation stands, and the escalation never takes it back.
   */
  #checkEscalated(record: DeferralRecord, request: ResumeRequest): void {
    const escalated = record.approval?.schedule?.escalated;
    if (request.escalated !== false || !escalated || record.status !== "deferred") return;
    throw new ApprovalEscalatedError({ approvalId: record.id, requires: requiresOf(record.meta), escalatedAt: escalated.at }).toFailure();
  }

  // ---- proof of possession ---------------------------------------------------------------

  /**
   * RC5041 unless the request proves it holds the token this record handed out. A plain
   * workflow's `defer()` without a `digest` has none to check: its token is then the only
   * check, done by the client.
   */
  #checkPossession(record: DeferralRecord, request: ResumeRequest): void {
    if (record.digest === undefined) return;
    const problem = proofProblem(request.proof, record.digest);
    if (problem) throw new ResumeTokenError({ reason: problem }).toFailure();
  }

  /**
   * RC5041 for a token bound to another execution: the client checked the namespace and
   * workflow id it can see; the first run id only the workflow knows. A token minted with
   * no binding (`mintResumeToken` for a plain workflow) is not checked here.
   */
  #checkBinding(request: ResumeRequest): void {
    const execution = this.runtime.execution?.();
    const problem = execution ? bindingProblem(request?.binding, execution) : undefined;
    if (problem) throw new ResumeTokenError({ reason: problem }).toFailure();
  }

  /**
   * An accepted update's arguments (the proof among them) enter history. Refusing a
   * schema-invalid first resume here, rather than in the handler, keeps the proof of an
   * unspent token out of history (RC5049 leaves the token unspent).
   */
  #checkSchemaEarly(record: DeferralRecord, request: ResumeRequest): void {
    if (record.digest === undefined || (!record.schema && !record.approval) || record.status !== "deferred") return;
    if (this.runtime.now() >= Date.parse(record.expiresAt)) return;
    const issues = payloadIssues(record, request.payload, this.#grants());
    if (issues) throw new ResumePayloadError({ deferralId: record.id, issues }).toFailure();
  }

  async resume(request: ResumeRequest): Promise<ResumeReply> {
    const record = this.records.find(request.deferralId);
    if (!record) throw new DeferralNotFoundError({ deferralId: String(request.deferralId) }).toFailure();
    for (;;) {
      if (record.status === "resumed" || record.status === "needs-compaction") {
        // A call decided one at a time before the request's last decision: its own outcome.
        const earlier = decidedEntryOf(record, request.payload);
        if (earlier) return this.#duplicateOf(record, earlier);
        await this.runtime.condition(() => record.outcome !== undefined || record.status === "denied" || this.#continuing);
        if (record.outcome) return { status: "duplicate", deferralId: record.id, outcome: record.outcome };
        if (this.#continuing && !isDenied(record)) return { status: "duplicate", deferralId: record.id, outcome: { status: "running" } };
        continue;
      }
      if (record.status === "denied") {
        throw new DeferralDeniedError({ deferralId: record.id, reason: record.deniedReason ?? "denied" }).toFailure();
      }
      if (record.status === "expired" || this.runtime.now() >= Date.parse(record.expiresAt)) {
        throw new DeferralExpiredError({ deferralId: record.id, expiresAt: record.expiresAt }).toFailure();
      }
      if (!this.options.verify) break;
      await this.verifyOnce(record);
      // Another resume, the timer or a denial may have moved the record while we waited.
      if (record.status === "deferred") break;
    }
    const issues = payloadIssues(record, request.payload, this.#grants());
    if (issues) throw new ResumePayloadError({ deferralId: record.id, issues }).toFailure();
    if (record.approval) {
      const decided = record.approval.decided ?? [];
      const fresh = newDecisions(request.payload, new Set(decided.map((d) => d.decision.toolCallId)));
      // Every call it decides was decided before: the first decision of each stands.
      if (fresh.length === 0) return this.#duplicateOf(record, decidedEntryOf(record, request.payload)!);
      if (decided.length + fresh.length < record.approval.calls.length) return this.#decideSome(record, request, fresh);
      // The last undecided calls: claimed as a whole decision is, the payload holding every call's decision.
      if (decided.length > 0) request = { ...request, payload: { decisions: [...decided.map((d) => d.decision), ...fresh] } as unknown as JsonValue };
    }
    this.#claim(record, request);
    await this.runtime.condition(() => record.outcome !== undefined || record.status === "denied" || this.#continuing);
    if (!record.outcome && this.#continuing && !isDenied(record)) return { status: "resumed", deferralId: record.id, outcome: { status: "running" } };
    if (!record.outcome) throw this.denials.failureOf(record);
    return { status: "resumed", deferralId: record.id, outcome: record.outcome };
  }

  /**
   * A decision on some of an approval request's calls, the others still undecided: the
   * record stays deferred (same token, same timer) and keeps them in `approval.decided`,
   * where the waiting host lands them at once. Answered once their calls have results (a
   * thread's host, which has no settled state to wait for, answers `accepted` at once).
   */
  async #decideSome(record: DeferralRecord, request: ResumeRequest, fresh: Decision[]): Promise<ResumeReply> {
    const at = new Date(this.runtime.now()).toISOString();
    const entries: DecidedCall[] = fresh.map((decision) => ({ decision, ...(request.resumedBy ? { by: request.resumedBy } : {}), at, ...(this.options.acceptsAtOnce ? { outcome: { status: "accepted" as const } } : {}) }));
    record.approval!.decided = [...(record.approval!.decided ?? []), ...entries];
    await this.runtime.condition(() => entries.every((e) => e.outcome !== undefined) || this.#continuing);
    return { status: "resumed", deferralId: record.id, outcome: entries[0]!.outcome ?? { status: "running" } };
  }

  /** A decision for a call decided before: answered with what that call's decision was. */
  async #duplicateOf(record: DeferralRecord, earlier: DecidedCall): Promise<ResumeReply> {
    await this.runtime.condition(() => earlier.outcome !== undefined || this.#continuing);
    return { status: "duplicate", deferralId: record.id, outcome: earlier.outcome ?? { status: "running" } };
  }

  /**
   * The run is about to continue as new: resumes still waiting for its next settled state
   * are answered `{ status: "running" }` now (their clients follow the run), so nothing
   * holds the execution open. Returns the undo, for when it does not continue after all.
   */
  releaseForContinue(): () => void {
    this.#continuing = true;
    return () => {
      this.#continuing = false;
    };
  }

  /** Runs the continuation check once for all resumes waiting on `record`; a failure denies it. */
  verifyOnce(record: DeferralRecord): Promise<void> {
    let pending = this.#verifying.get(record.id);
    if (!pending) {
      pending = this.options.verify!(record)
        .catch((err: unknown) => {
          this.denials.deny(record, err instanceof ApplicationFailure && err.type ? err.type : "verification failed", err);
          throw err;
        })
        .finally(() => this.#verifying.delete(record.id));
      this.#verifying.set(record.id, pending);
    }
    return pending;
  }

  /** What a decision's standing permissions are checked against: the workflow's clock, and how many the host holds (bounded). */
  #grants(): { nowMs: number; live: number } {
    const nowMs = this.runtime.now();
    return { nowMs, live: livePermissions(this.records.list, nowMs).length };
  }

  // The payload lands in the record, which wakes the parked run.
  #claim(record: DeferralRecord, request: ResumeRequest): void {
    record.status = "resumed";
    record.payload = request.payload;
    record.resumedAt = new Date(this.runtime.now()).toISOString();
    if (request.resumedBy) record.resumedBy = request.resumedBy;
    if (request.reverify) record.reverified = request.reverify;
    if (this.options.deferResumedStatus) this.visibility.statusLater("resumed");
    else this.visibility.status("resumed");
    this.visibility.emit("resumed", record);
    this.outcome.moving();
  }
}

/** Where a resume's payload fails the record: an approval request's decisions, or the deferral's schema. */
function payloadIssues(record: DeferralRecord, payload: unknown, grants: { nowMs: number; live: number }): string[] | undefined {
  if (record.approval) return decisionIssues(record.approval.calls, payload, { ...grants, ...(record.principal ? { principal: record.principal } : {}) });
  return record.schema ? schemaIssues(record.schema, payload) : undefined;
}

/**
 * Where `payload` fails `schema`, or undefined when it fits. A schema that throws while it
 * is applied refuses the payload instead of failing the workflow task.
 */
function schemaIssues(schema: object, payload: unknown): string[] | undefined {
  try {
    const result = new Validator(schema as never, "2020-12", false).validate(payload);
    if (result.valid) return undefined;
    return result.errors.filter((e) => e.keyword !== "properties").map((e) => `${e.instanceLocation}: ${e.error}`);
  } catch (err) {
    return [`the deferral's schema cannot be applied: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`];
  }
}

/** Read afresh after a wait (TypeScript's narrowing from before it does not hold). */
function isDenied(record: DeferralRecord): boolean {
  return record.status === "denied";
}
