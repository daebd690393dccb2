import { assertResumableThread } from "../../src/core/thread-transcript.js";
import { assertRewriteKeeps } from "../../src/core/transcript-trust.js";
import type { DeferralRecord, ReplaceStepStateReply, ReplaceStepStateRequest, StepState } from "../../src/core/deferral-record.js";
import { DeferralNotFoundError } from "../../src/core/errors/deferrals.js";
import { StepStateError } from "../../src/core/errors/deferrals.js";
import { refuseMalformed, replaceStepStateProblem } from "../../src/core/request-shapes.js";
import { replaceStepStateUpdate } from "../../src/core/wire/run.js";
import { WAITING, type DeferralRecords } from "./records.js";
import type { DeferralVisibility } from "./visibility.js";

/** Replaces the thread of a waiting record; only agent runs have one. */
export type ReplaceMessages = (record: DeferralRecord, messages: StepState["messages"]) => void;

/**
 * The replaceStepState update: a compare-and-swap of a waiting deferral's thread (a
 * compaction). Losing the swap is an ordinary `won: false`; a thread the run could not
 * re-enter, one that changes the deferred call, and (unless vouched for) one with tool
 * calls, results or system messages the run did not have are refused before anything is
 * recorded. Those checks live in the validator only: histories replay the swaps they hold.
 */
export class StepStateSwap {
  constructor(
    private readonly records: DeferralRecords,
    private readonly visibility: DeferralVisibility,
    private readonly replaceMessages?: ReplaceMessages,
  ) {}

  // Malformed threads and other agents' state are refused before anything is recorded.
  validate(request: ReplaceStepStateRequest): void {
    refuseMalformed(replaceStepStateUpdate.name, replaceStepStateProblem(request));
    const record = this.records.find(request?.deferralId);
    if (!record) throw new DeferralNotFoundError({ deferralId: String(request?.deferralId) }).toFailure();
    const agentId = record.agentId ?? "(plain workflow)";
    if (!this.replaceMessages || !this.records.hasStepState) {
      throw new StepStateError({ agentId, reason: "a plain workflow's deferral has no step state to replace" }).toFailure();
    }
    const next = request.stepState;
    if (typeof next !== "object" || next === null || next.agentId !== record.agentId) {
      throw new StepStateError({ agentId, reason: `the step state is bound to agent "${String(next?.agentId)}"` }).toFailure();
    }
    if (next.deferredToolCallId !== record.toolCallId) {
      throw new StepStateError({ agentId, reason: `the step state defers call "${String(next.deferredToolCallId)}", not "${record.toolCallId}"` }).toFailure();
    }
    const current = this.records.stepStateOf(record);
    if (current && (next.turnsUsed !== current.turnsUsed || JSON.stringify(next.usage) !== JSON.stringify(current.usage))) {
      throw new StepStateError({ agentId, reason: "turnsUsed and usage cannot be rewritten: shrinking a thread does not give the run its budget back" }).toFailure();
    }
    try {
      // An approval request waits on every call it lists; a deferral on one.
      const deferred = record.approval ? record.approval.calls.map((c) => c.toolCallId) : [record.toolCallId];
      assertResumableThread(next.messages, record.status === "needs-compaction" ? undefined : deferred);
      // What the approver decides on, and what speaks for the model, the tools or the operator.
      for (const deferredToolCallId of deferred) {
        if (current) assertRewriteKeeps(current.messages, next.messages, { deferredToolCallId, trusted: request.trustTranscript === true });
      }
    } catch (err) {
      throw asFailure(err);
    }
  }

  replace(request: ReplaceStepStateRequest): ReplaceStepStateReply {
    const record = this.records.find(request.deferralId)!;
    const before = this.records.view(record.id)!;
    if (!WAITING.has(record.status) || before.fingerprint !== request.expectedFingerprint) {
      return { won: false, deferral: before };
    }
    this.replaceMessages!(record, request.stepState.messages);
    // A compacted thread lets a run that overflowed after its resume continue.
    if (record.status === "needs-compaction") {
      record.status = "resumed";
      this.visibility.status("resumed");
    }
    return { won: true, deferral: this.records.view(record.id)! };
  }
}

function asFailure(err: unknown): unknown {
  return typeof (err as { toFailure?: unknown })?.toFailure === "function" ? (err as { toFailure(): unknown }).toFailure() : err;
}
