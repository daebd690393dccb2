import { decisionFor, type DecidedCall, type Decision, editedArguments, requiresOf, oversizedEdits, oversizedResponses, policyDeniedResult, rejectedResult, respondedResult, requestCalls, undecidedResult, type ApprovalCall, type GateVerdict } from "../../src/core/approval.js";
import { condition } from "@temporalio/workflow";
import { livePermissions, permissionGoneResult, permitting } from "../../src/core/approval-permissions.js";
import type { AgentDescription } from "../../src/core/contracts.js";
import type { DeferralRecord } from "../../src/core/deferral-record.js";
import { deniedResult } from "../../src/core/denied-result.js";
import { DeferralNotConfiguredError } from "../../src/core/errors/setup.js";
import type { JsonObject, JsonValue, Principal } from "../../src/core/json.js";
import type { ChatMessage, ToolCall } from "../../src/core/messages.js";
import { ownEntry } from "../../src/core/own.js";
import { jsonBytes, payloadTooLarge } from "../../src/core/payload-size.js";
import { notifyApprovers } from "./notify.js";
import type { DeferralBook, ParkResult, Parking, WaitStage } from "../deferrals/book.js";
import type { ParkRequest } from "../deferrals/records.js";
import type { TranscriptRoom } from "../shared/transcript-room.js";

/*
 * Approval requests of gated tools, for runs and threads alike: which calls of a model's
 * answer wait, the one request they wait on (one record, one token, one link per step),
 * telling the approvers, and landing the decision in the transcript. The host (a run or a
 * thread) decides only when it waits and what runs the approved calls.
 *
 * However a request ends, no call of it runs without a yes: a rejected call, every call of
 * a denied request, and every call of a request that expired before anyone decided gets a
 * result saying so, which the model reads before it goes on. An expiry is an answer nobody
 * gave, not a failure of the run or the thread: the `expired` event fires, the record reads
 * `expired`, and a decision that comes later is refused with RC5047.
 */

/** What a request needs of the run or thread it waits in. */
export interface ApprovalHost {
  readonly agentId: string;
  readonly principal: Principal | undefined;
  readonly book: DeferralBook;
  /** The transcript as it is now (a run's is replaced by a rewrite). */
  messages(): ChatMessage[];
  /** The worker's copy of the transcript is stale from message `index` on: the next model call sends it again from there. */
  resend(index: number): void;
  /** Gives a call that will not run its result. */
  answer(call: ToolCall, content: string): void;
}

/**
 * What an approved call runs with: the decision's deferral, and whether the approver edited
 * it (the call's arguments are then the edit: it is sent once, not beside them).
 */
export type Approved = { deferralId: string; edited?: true; permissionId?: string; by?: Principal };

/**
 * Whether `call` waits for a decision: a call of a gated tool that the worker did not clear
 * (its `needsApproval` policy allowed it, or the arguments do not parse, which the tool call
 * then tells the model without running anything) nor deny (see `deniedByPolicy`). Decided
 * from the agent's recorded description, so a call is gated whatever the model emits.
 */
export function isGated(described: Pick<AgentDescription, "tools">, call: ToolCall, verdict: GateVerdict | undefined): boolean {
  return (
    ownEntry(described.tools, call.function.name)?.approval !== undefined &&
    !verdict?.cleared.includes(call.id) &&
    !verdict?.permitted?.some((p) => p.toolCallId === call.id) &&
    policyDenial(described, call, verdict) === undefined
  );
}

/** A call a standing permission let through: to run with it as its approval, or to answer with `content` (it no longer holds). */
export type PermittedCall = { call: ToolCall; approved: Approved } | { call: ToolCall; content: string };

/**
 * The calls of `calls` the worker let through on a standing permission (`verdict.permitted`),
 * checked again against the host's own records and clock, since a revocation or the
 * permission's end may have come while the model wrote: each runs as approved by that
 * permission (`approved`), or, when it no longer holds, gets `content` saying so and runs
 * nothing (the model may call again, and a person is asked).
 */
export function permittedCalls(
  described: Pick<AgentDescription, "tools">,
  records: readonly DeferralRecord[],
  calls: readonly ToolCall[],
  verdict: GateVerdict | undefined,
  principal: Principal | undefined,
): PermittedCall[] {
  if (!verdict?.permitted) return [];
  const now = Date.now();
  const live = livePermissions(records, now);
  return calls.flatMap((call): PermittedCall[] => {
    const entry = verdict.permitted!.find((p) => p.toolCallId === call.id);
    if (!entry || ownEntry(described.tools, call.function.name)?.approval === undefined) return [];
    const permission = live.find((p) => p.permissionId === entry.permissionId);
    if (!permission || !permitting([permission], call, principal, now)) return [{ call, content: permissionGoneResult(call.function.name, entry.permissionId) }];
    return [{ call, approved: { deferralId: permission.approvalId, permissionId: permission.permissionId } }];
  });
}

/**
 * The calls of `calls` their tool's `needsApproval` policy denied, each with what the model
 * reads for it (a rejection by policy, with the reason): they never run and nothing parks.
 */
export function deniedByPolicy(described: Pick<AgentDescription, "tools">, calls: readonly ToolCall[], verdict: GateVerdict | undefined): Array<{ call: ToolCall; content: string }> {
  if (!verdict?.denied) return [];
  return calls.flatMap((call) => {
    const reason = policyDenial(described, call, verdict);
    return reason === undefined ? [] : [{ call, content: policyDeniedResult(call.function.name, reason) }];
  });
}

/** The reason a policy denied `call` with, when it is a call of a gated tool that it denied. */
function policyDenial(described: Pick<AgentDescription, "tools">, call: ToolCall, verdict: GateVerdict | undefined): string | undefined {
  if (!verdict?.denied || ownEntry(described.tools, call.function.name)?.approval === undefined) return undefined;
  return verdict.denied.find((d) => d.toolCallId === call.id)?.reason;
}

/**
 * Parks on one request for the `gated` calls of a step and tells their approvers (an
 * activity, only when a tool has a `notify` hook). `record` adds the host's own fields to
 * the request's record (a run's definition, a thread's answer id).
 */
export function requestApproval(
  host: ApprovalHost,
  described: Pick<AgentDescription, "tools" | "timeouts">,
  gated: readonly ToolCall[],
  verdict: GateVerdict | undefined,
  extra: { record?: Partial<ParkRequest>; answerId?: string; notify?: { threadId?: string; firstRunId?: string } } = {},
): Parking {
  const calls = requestCalls(gated, verdict);
  // Without a digest no decision could prove it holds the request's token.
  if (!verdict?.digest || verdict.ttlMs === undefined) throw new DeferralNotConfiguredError({ where: `tool "${calls[0]!.toolName}" (needsApproval)` }).toFailure();
  const schedule = verdict.remindMs || verdict.escalate ? { ...(verdict.remindMs ? { remindMs: verdict.remindMs } : {}), ...(verdict.escalate ? { escalate: verdict.escalate } : {}) } : undefined;
  const told = { ...extra.notify, ...(host.principal ? { principal: host.principal } : {}) };
  const parking = host.book.park({
    ...extra.record,
    toolCallId: calls[0]!.toolCallId,
    toolName: calls[0]!.toolName,
    agentId: host.agentId,
    meta: mergedMeta(calls),
    ttlMs: verdict.ttlMs,
    ...(host.principal ? { principal: host.principal } : {}),
    digest: verdict.digest,
    approval: { calls, ...(extra.answerId !== undefined ? { answerId: extra.answerId } : {}), ...(schedule ? { schedule } : {}) },
  }, schedule ? (record) => approvalStages(host.agentId, described, record, told, (r) => host.book.relisted(r)) : undefined);
  const { record } = parking;
  void notifyApprovers(described, { agentId: host.agentId, deferralId: record.id, expiresAt: record.expiresAt, calls, ...told });
  return parking;
}

/**
 * The reminders and the escalation of a request (none without `approval.remind` or
 * `approval.escalate`), for the host to wait through: each tells the approvers again, by an
 * activity it does not wait for, so a decision is never held up by a notification. What
 * already happened (kept on the record) is not done again when the request is waited on again.
 */
export function approvalStages(
  agentId: string,
  described: Pick<AgentDescription, "tools" | "timeouts">,
  record: DeferralRecord,
  told: { threadId?: string; firstRunId?: string; principal?: Principal },
  /** The inbox's row of the request changed (its `requires`): list it as it now is. */
  relisted?: (record: DeferralRecord) => void,
): WaitStage[] {
  const schedule = record.approval?.schedule;
  if (!schedule || !record.approval) return [];
  const { calls } = record.approval;
  const expiresAt = Date.parse(record.expiresAt);
  const notify = (reason: { reason: "reminder"; reminder: number } | { reason: "escalated" }) =>
    void notifyApprovers(described, { agentId, deferralId: record.id, expiresAt: record.expiresAt, calls, ...told, ...reason, ...(schedule.escalated ? { requires: requiresOf(record.meta) } : {}) });
  const stages: WaitStage[] = (schedule.remindMs ?? []).flatMap((before, i) =>
    i < (schedule.reminded ?? 0)
      ? []
      : [{ at: expiresAt - before, run: () => {
          schedule.reminded = i + 1;
          schedule.remindedAt = [...(schedule.remindedAt ?? []), new Date(Date.now()).toISOString()];
          notify({ reason: "reminder", reminder: i + 1 });
        } }],
  );
  const escalation = schedule.escalate;
  if (escalation && !schedule.escalated) {
    stages.push({
      at: Date.parse(record.deferredAt) + escalation.afterMs,
      run: () => {
        schedule.escalated = { at: new Date(Date.now()).toISOString(), from: requiresOf(record.meta) };
        record.meta = { ...record.meta, requires: [...escalation.requires] };
        relisted?.(record);
        notify({ reason: "escalated" });
      },
    });
  }
  return stages;
}


/**
 * Lands how the request ended on those of its calls in `gated` (the ones the host still
 * waits on: not those decided one at a time before, which `PartialDecisions` landed): each
 * call that will not run gets its result now; approved calls are returned, edited as the
 * approver said (the transcript then shows them as they run), for the host to run.
 */
export function landDecision(host: ApprovalHost, parked: ParkResult, gated: readonly ToolCall[]): Array<{ call: ToolCall; approved: Approved }> {
  const approved: Array<{ call: ToolCall; approved: Approved }> = [];
  for (const waiting of parked.record.approval?.calls ?? []) {
    const call = gated.find((c) => c.id === waiting.toolCallId);
    if (!call) continue;
    if (parked.kind === "expired") {
      host.answer(call, undecidedResult(call.function.name, "its approval request expired before anyone decided"));
    } else if (parked.kind === "denied") {
      host.answer(call, deniedResult(parked.record.denial.reason, parked.record.denial.by?.id));
    } else {
      const run = landOne(host, call, decisionFor(parked.payload, call.id), parked.resumedBy, parked.record.id);
      if (run) approved.push(run);
    }
  }
  return approved;
}

/** Lands one call's decision: a response or a rejection as its result now; an approval returned (edited as decided) for the host to run. */
function landOne(host: ApprovalHost, call: ToolCall, decision: Decision | undefined, by: Principal | undefined, deferralId: string): { call: ToolCall; approved: Approved } | undefined {
  if (decision && "respond" in decision) {
    // A person answered in the tool's place: the tool never runs.
    host.answer(call, respondedResult(decision.respond));
    return undefined;
  }
  if (decision?.approved) {
    const edited = decision.input === undefined ? call : showAsRun(host, call, decision.input);
    return { call: edited, approved: { deferralId, ...(decision.input !== undefined ? { edited: true as const } : {}) } };
  }
  host.answer(call, rejectedResult(call.function.name, decision && "reason" in decision ? decision.reason : undefined, by));
  return undefined;
}

/**
 * Decisions that come call by call while a request waits (a resume deciding some of its
 * calls leaves the record deferred and adds them to `approval.decided`): each lands as soon
 * as it is accepted, an approved call starting at once, while the request's own wait (its
 * one timer) goes on for the rest. Waiting here is a condition, never a timer: a request
 * decided whole in one resume schedules exactly what it always did. `settle` tells each
 * decided call's resume what it is answered with, once its call has a result.
 */
export class PartialDecisions {
  readonly #running: Array<Promise<void>> = [];
  #stopped = false;
  #error: { err: unknown } | undefined;
  #fail!: (err: unknown) => void;
  /** Rejects when an approved call's run fails (the host's wait races it); never resolves. */
  readonly failed = new Promise<never>((_, reject) => (this.#fail = reject));

  constructor(
    private readonly host: ApprovalHost,
    private readonly record: DeferralRecord,
    private readonly gated: readonly ToolCall[],
    private readonly run: (call: ToolCall, approved: Approved, by: Principal | undefined) => Promise<void>,
    private readonly settle: (entry: DecidedCall) => void,
  ) {
    this.failed.catch(() => undefined);
    // A cancelled wait (a thread's stopped turn) stops the watch: what comes meanwhile lands when the request is waited on again.
    this.#watch().catch(() => undefined);
  }

  /** The calls decided one at a time (landed or about to be): the request's end lands the others. */
  decidedIds(): Set<string> {
    return new Set((this.record.approval?.decided ?? []).map((d) => d.decision.toolCallId));
  }

  /** Stops watching once the request ended, landing what came in the same workflow task as its end. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#land();
  }

  /** Waits for the approved calls started here; throws the first one's failure. */
  async finished(): Promise<void> {
    await Promise.all(this.#running);
    if (this.#error) throw this.#error.err;
  }

  async #watch(): Promise<void> {
    for (;;) {
      await condition(() => this.#stopped || (this.record.approval?.decided ?? []).some((d) => !d.landed));
      if (this.#stopped) return;
      this.#land();
    }
  }

  #land(): void {
    for (const entry of this.record.approval?.decided ?? []) {
      if (entry.landed) continue;
      entry.landed = true;
      const call = this.gated.find((c) => c.id === entry.decision.toolCallId);
      const approved = call ? landOne(this.host, call, entry.decision, entry.by, this.record.id) : undefined;
      if (!approved) {
        this.settle(entry);
        continue;
      }
      this.#running.push(
        this.run(approved.call, approved.approved, entry.by).then(
          () => this.settle(entry),
          (err: unknown) => {
            // Kept, never left unhandled (that would fail the workflow task): `finish` throws it.
            this.#error ??= { err };
            this.#fail(err);
          },
        ),
      );
    }
  }
}

/**
 * The model sees an edited call as it ran: the answer holding it is replaced by a copy whose
 * call has the approved input (the request's record keeps what the model wrote), and the
 * worker is sent the transcript again from that answer on, since its cached copy holds the old one.
 */
function showAsRun(host: ApprovalHost, call: ToolCall, input: JsonObject): ToolCall {
  const edited: ToolCall = { ...call, function: { ...call.function, arguments: JSON.stringify(input) } };
  const messages = host.messages();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "assistant" || !message.tool_calls?.some((c) => c.id === call.id)) continue;
    messages[i] = { ...message, tool_calls: message.tool_calls.map((c) => (c.id === call.id ? edited : c)) };
    host.resend(i);
    break;
  }
  return edited;
}

/**
 * Refuses, in the resume update's validator (so nothing is recorded and the token stays
 * unspent), a decision on `record` whose edits could not travel: AI1016 when the request's
 * calls with the edits in place weigh over `MAX_APPROVAL_BYTES`, or the model's answer as
 * edited over one payload; AI1018 when the transcript has no room for the answer as edited
 * and the rejected calls' reasons. `messages` is the transcript holding the answer.
 */
export function refuseOversizedDecision(record: DeferralRecord | undefined, payload: unknown, messages: readonly ChatMessage[], room: TranscriptRoom, resumedBy?: Principal): void {
  if (!record?.approval || record.status !== "deferred") return;
  const { calls } = record.approval;
  const edits = editedArguments(calls, payload);
  // The results the decision lands without running anything: rejections, and responses in the tools' place.
  const rejected = calls.flatMap((call) => {
    const decision = decisionFor(payload as JsonValue, call.toolCallId);
    if (decision && "respond" in decision) return decision.respond === undefined ? [] : [toolResult(call.toolCallId, respondedResult(decision.respond))];
    return decision && decision.approved === false ? [toolResult(call.toolCallId, rejectedResult(call.toolName, typeof decision.reason === "string" ? decision.reason : undefined, resumedBy))] : [];
  });
  const oversized = oversizedResponses(calls, payload) ?? (edits ? oversizedEdits(calls, edits) : undefined);
  if (oversized) throw oversized.toFailure();
  const answer = answerOf(messages, record.approval.answerId, calls[0]!.toolCallId);
  const asRun = answer && edits ? { ...answer, tool_calls: answer.tool_calls!.map((c) => (edits.has(c.id) ? { ...c, function: { ...c.function, arguments: edits.get(c.id)! } } : c)) } : undefined;
  if (asRun) {
    const tooLarge = payloadTooLarge(asRun, "The model's answer with the decision's edited input", { hint: "Nothing was decided and the token is still usable: decide again with a smaller edit." });
    if (tooLarge) throw tooLarge.toFailure();
  }
  if (!asRun && rejected.length === 0) return;
  // The answer as edited takes the place of the one the model wrote.
  room.refuseUnlessFits([asRun ?? null, ...rejected], "the decision (its edited input, rejection reasons and responses)", { answerFollows: true, freeing: asRun ? jsonBytes(answer) : 0 });
}

/** The answer of the model that holds the request's calls: by its id in a thread, else the latest holding `toolCallId`. */
function answerOf(messages: readonly ChatMessage[], answerId: string | undefined, toolCallId: string): (ChatMessage & { role: "assistant" }) | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "assistant" || !message.tool_calls?.some((c) => c.id === toolCallId)) continue;
    if (answerId !== undefined && (message as { id?: string }).id !== answerId) continue;
    return message as ChatMessage & { role: "assistant" };
  }
  return undefined;
}

/** The request's meta: every call's, merged; the `requires` lists joined, so a hook routing on them sees all. */
function mergedMeta(calls: readonly ApprovalCall[]): JsonObject {
  const meta: JsonObject = {};
  const requires: string[] = [];
  for (const call of calls) {
    for (const [key, value] of Object.entries(call.meta ?? {})) {
      if (key === "requires" && Array.isArray(value)) {
        for (const r of value) if (typeof r === "string" && !requires.includes(r)) requires.push(r);
      } else if (!Object.prototype.hasOwnProperty.call(meta, key)) {
        meta[key] = value;
      }
    }
  }
  return requires.length > 0 ? { ...meta, requires } : meta;
}

function toolResult(toolCallId: string, content: string): ChatMessage {
  return { role: "tool", tool_call_id: toolCallId, content };
}
