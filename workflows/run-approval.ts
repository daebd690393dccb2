import { decisionFor, editedArguments, oversizedEdits, rejectedResult, requestCalls, type ApprovalCall, type GateVerdict } from "../src/core/approval.js";
import type { AgentDescription, RunToolCall, ToolCallOutput } from "../src/core/contracts.js";
import { deniedResult } from "../src/core/denied-result.js";
import { DeferralExpiredError } from "../src/core/errors/deferrals.js";
import { DeferralNotConfiguredError } from "../src/core/errors/setup.js";
import type { JsonObject, JsonValue, Principal } from "../src/core/json.js";
import type { DeferralRecord } from "../src/core/deferral-record.js";
import { jsonBytes, payloadTooLarge } from "../src/core/payload-size.js";
import type { ChatMessage, ToolCall } from "../src/core/messages.js";
import { ownEntry } from "../src/core/own.js";
import { notifyApprovers } from "./approval-notify.js";
import { runBatch, type BatchDeferral } from "./run-batch.js";
import type { RunContext } from "./run-context.js";
import { parkRequest } from "./run-deferral.js";
import type { TranscriptRoom } from "./transcript-room.js";

/**
 * What an approved call runs with: the decision's deferral, and whether the approver edited
 * it (the call's arguments are then the edit: it is sent once, not beside them).
 */
export type Approved = { deferralId: string; edited?: true };

/** How an approved call is marked: edited or not. */
export function approvedAs(deferralId: string, input: JsonObject | undefined): Approved {
  return { deferralId, ...(input !== undefined ? { edited: true as const } : {}) };
}

/** What a gated call's activity is told besides the call: its approval, or that its request expired (the agent's onExpired answers). */
export type GatedCallExtra = Pick<RunToolCall, "approved" | "expired">;

/**
 * The calls of an answer that wait for a decision: every call of a gated tool but those
 * the worker cleared (its `needsApproval` function said no, or the arguments do not parse,
 * which the tool call then tells the model without running anything). Decided from the
 * agent's recorded description, so a call is gated whatever the model emits.
 */
export function gatedCalls(described: Partial<AgentDescription>, calls: readonly ToolCall[], verdict: GateVerdict | undefined): ToolCall[] {
  return calls.filter((call) => ownEntry(described.tools, call.function.name)?.approval !== undefined && !verdict?.cleared.includes(call.id));
}

/**
 * Parks the run on one approval request for every gated call of the step, then lands the
 * decisions: rejected calls get the reason as their result without running; approved ones
 * run as a batch, with the approver's edit where there is one (the transcript then shows the
 * call as it ran). Returns a deferral an approved handler asked for with `ctx.defer()`.
 */
export async function decideThenRun(
  run: RunContext,
  gated: readonly ToolCall[],
  verdict: GateVerdict | undefined,
  invoke: (call: ToolCall, extra: GatedCallExtra) => Promise<ToolCallOutput>,
  fromTools: Set<string>,
): Promise<BatchDeferral | undefined> {
  const { state, book, prepared, tracing } = run;
  const calls = requestCalls(gated, verdict);
  // Without a digest no decision could prove it holds the request's token.
  if (!verdict?.digest || verdict.ttlMs === undefined) throw new DeferralNotConfiguredError({ where: `tool "${calls[0]!.toolName}" (needsApproval)` }).toFailure();
  const request = { ...parkRequest(state, prepared(), gated[0]!, { ttlMs: verdict.ttlMs, meta: mergedMeta(calls), digest: verdict.digest }), approval: { calls } };
  tracing?.end("deferred", { deferralId: book.nextDeferralId(), turnsUsed: state.turnsUsed });
  const parking = book.park(request);
  // The record exists once park() has begun: the people to ask hear of it while the run waits.
  const record = book.records.list.at(-1)!;
  void notifyApprovers(prepared() as Partial<AgentDescription>, {
    agentId: state.agentId,
    deferralId: record.id,
    expiresAt: record.expiresAt,
    calls,
    ...(state.principal ? { principal: state.principal } : {}),
  });
  const parked = await parking;
  tracing?.next(state.agentId, { event: parked.kind, deferralId: parked.record.id, at: new Date().toISOString() });

  if (parked.kind === "resumed") {
    // Identity is restored from storage, not re-verified, unless the resume vouched for it live.
    state.restored = !parked.reverified;
    if (parked.reverified) state.principal = parked.reverified;
    if (parked.resumedBy) state.resumedBy = parked.resumedBy;
    const approved: Array<{ call: ToolCall; approved: Approved }> = [];
    for (const call of gated) {
      const decision = decisionFor(parked.payload, call.id);
      if (decision?.approved) {
        const edited = decision.input === undefined ? call : showAsRun(run, call, decision.input);
        approved.push({ call: edited, approved: approvedAs(parked.record.id, decision.input) });
      } else {
        state.messages.push(result(call, rejectedResult(call.function.name, decision?.reason, parked.resumedBy)));
      }
    }
    if (approved.length === 0) return undefined;
    const byId = new Map(approved.map((a) => [a.call.id, a.approved]));
    return runBatch(run, approved.map((a) => a.call), (call) => invoke(call, { approved: byId.get(call.id)! }), fromTools);
  }
  if (parked.kind === "denied") {
    const { reason, by } = parked.record.denial;
    for (const call of gated) state.messages.push(result(call, deniedResult(reason, by?.id)));
    return undefined;
  }
  // Expired: as for any deferral, RC5047 into the run's error channel unless the agent answers for each call.
  if (!prepared().hasOnExpired) throw new DeferralExpiredError({ deferralId: parked.record.id, expiresAt: parked.record.expiresAt }).toFailure();
  const expired = { deferralId: parked.record.id, expiresAt: parked.record.expiresAt, meta: parked.record.meta };
  for (const call of gated) {
    const out = await invoke(call, { expired });
    // onExpired may not ask again here: a gated call waits only on a request the gate makes.
    state.messages.push(result(call, "content" in out ? out.content : `Error: "${call.function.name}" was not run: its approval request expired.`));
  }
  return undefined;
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
  const rejected = calls.flatMap((call) => {
    const decision = decisionFor(payload as JsonValue, call.toolCallId);
    return decision && decision.approved === false ? [result({ id: call.toolCallId } as ToolCall, rejectedResult(call.toolName, typeof decision.reason === "string" ? decision.reason : undefined, resumedBy))] : [];
  });
  if (edits) {
    const oversized = oversizedEdits(calls, edits);
    if (oversized) throw oversized.toFailure();
  }
  const answer = answerOf(messages, record.approval.answerId, calls[0]!.toolCallId);
  const asRun = answer && edits ? { ...answer, tool_calls: answer.tool_calls!.map((c) => (edits.has(c.id) ? { ...c, function: { ...c.function, arguments: edits.get(c.id)! } } : c)) } : undefined;
  if (asRun) {
    const tooLarge = payloadTooLarge(asRun, "The model's answer with the decision's edited input", { hint: "Nothing was decided and the token is still usable: decide again with a smaller edit." });
    if (tooLarge) throw tooLarge.toFailure();
  }
  if (!asRun && rejected.length === 0) return;
  // The answer as edited takes the place of the one the model wrote.
  room.refuseUnlessFits([asRun ?? null, ...rejected], "the decision (its edited input and rejection reasons)", { answerFollows: true, freeing: asRun ? jsonBytes(answer) : 0 });
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
export function mergedMeta(calls: readonly ApprovalCall[]): JsonObject {
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

/**
 * The model sees an edited call as it ran: the answer is replaced by a copy whose call has
 * the approved input (the record keeps what the model wrote), and the worker is sent the
 * transcript again from that answer on, since its cached copy holds the old one.
 */
function showAsRun(run: RunContext, call: ToolCall, input: JsonObject): ToolCall {
  const { state, transcript } = run;
  const edited: ToolCall = { ...call, function: { ...call.function, arguments: JSON.stringify(input) } };
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const message = state.messages[i]!;
    if (message.role !== "assistant" || !message.tool_calls?.some((c) => c.id === call.id)) continue;
    state.messages[i] = { ...message, tool_calls: message.tool_calls.map((c) => (c.id === call.id ? edited : c)) };
    transcript.sentLength = Math.min(transcript.sentLength, i);
    break;
  }
  return edited;
}

function result(call: ToolCall, content: string): ChatMessage {
  return { role: "tool", tool_call_id: call.id, content };
}
