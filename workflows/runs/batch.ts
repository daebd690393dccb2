import { CancelledFailure } from "@temporalio/workflow";
import type { GateVerdict } from "../../src/core/approval.js";
import type { DeferralRequest, RunToolCallOutput } from "../../src/core/contracts.js";
import { ErrorCode } from "../../src/core/errors/codes.js";
import type { ToolCall } from "../../src/core/messages.js";
import { toolGaveUp } from "../shared/agent-steps.js";
import { landDecision, PartialDecisions, requestApproval, type ApprovalHost, type Approved } from "../approvals/requests.js";
import type { RunContext } from "./context.js";
import { definitionOf, parkRequest } from "./deferral.js";

/** What a call told it lost the batch's deferral to an earlier sibling reads. */
export const SIBLING_DEFERRED =
  "Error: a sibling tool call deferred this run first, so this call's deferral was withdrawn: its handler ran, but its request was not kept and its link will not work. Call it again after the run resumes if it is still needed.";

/** The call whose deferral a batch parks the run for, and what its handler asked. */
export interface BatchDeferral {
  call: ToolCall;
  request: DeferralRequest;
}

/**
 * Runs a batch of tool calls in parallel and lands their results in call order. Siblings
 * all finish (their results persist) before a deferral parks the run: the first deferral
 * in the model's emission order wins and is returned; later ones are told to retry. A
 * cancel, or a call that failed for good, stops the run with what did finish kept.
 * `fromTools` collects the calls whose results the next model call may name by reference.
 */
export function runBatch(run: RunContext, calls: readonly ToolCall[], invoke: (call: ToolCall) => Promise<RunToolCallOutput>, fromTools: Set<string>): Promise<BatchDeferral | undefined> {
  // A chain rather than async/await: Temporal's promise hook traces every promise a workflow makes.
  return Promise.allSettled(calls.map((call) => invoke(call))).then((settled) => landBatch(run, calls, settled, fromTools));
}

/** A batch's settled calls, landed in call order (see {@link runBatch}). */
function landBatch(run: RunContext, calls: readonly ToolCall[], settled: Array<PromiseSettledResult<RunToolCallOutput>>, fromTools: Set<string>): BatchDeferral | undefined {
  const { state, book, cancellation, prepared } = run;
  // A call whose bounded attempts ran out is for the model to hear about, not the run's end.
  settled.forEach((s, i) => {
    const told = s.status === "rejected" ? toolGaveUp(s.reason, calls[i]!.function.name) : undefined;
    if (told) settled[i] = { status: "fulfilled", value: { content: told, isError: true } };
  });
  const outputs = settled.map((s) => (s.status === "fulfilled" ? s.value : undefined));
  const cancelled = cancellation.requested();
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (cancelled || failed) {
    // Calls that did finish keep their results in the transcript, even though the run stops.
    calls.forEach((call, i) => {
      const out = outputs[i];
      if (out && "content" in out) state.messages.push({ role: "tool", tool_call_id: call.id, content: out.content });
    });
    // A deferral that raced the cancellation is recorded denied (RC5054): its link is dead.
    const deferred = calls.findIndex((_, i) => outputs[i] && "deferred" in outputs[i]!);
    if (cancelled && deferred >= 0) {
      const request = (outputs[deferred] as { deferred: DeferralRequest }).deferred;
      book.refuse(parkRequest(state, prepared(), calls[deferred]!, request), ErrorCode.DeferralCancelled);
    }
    throw cancelled ? new CancelledFailure("cancelled") : failed!.reason;
  }
  let winner: BatchDeferral | undefined;
  calls.forEach((call, i) => {
    const out = outputs[i] as RunToolCallOutput;
    if ("deferred" in out) {
      // The first deferral in the model's emission order wins; later ones are told to retry.
      if (!winner) winner = { call, request: out.deferred };
      else state.messages.push({ role: "tool", tool_call_id: call.id, content: SIBLING_DEFERRED });
    } else {
      state.messages.push({ role: "tool", tool_call_id: call.id, content: out.content });
      fromTools.add(call.id);
    }
  });
  return winner;
}

/**
 * Parks the run on one approval request for every gated call of the step, then lands the
 * decision: calls that will not run get their results; approved ones run as a batch, with
 * the approver's edit where there is one. Returns a deferral an approved handler asked for
 * with `ctx.defer()`.
 */
export async function decideThenRun(
  run: RunContext,
  gated: readonly ToolCall[],
  verdict: GateVerdict | undefined,
  invoke: (call: ToolCall, approved: Approved) => Promise<RunToolCallOutput>,
  fromTools: Set<string>,
): Promise<BatchDeferral | undefined> {
  const { state, book, prepared, tracing, transcript } = run;
  const host: ApprovalHost = {
    agentId: state.agentId,
    principal: state.principal,
    book,
    messages: () => state.messages,
    resend: (index) => (transcript.sentLength = Math.min(transcript.sentLength, index)),
    answer: (call, content) => state.messages.push({ role: "tool", tool_call_id: call.id, content }),
  };
  tracing.end("deferred", { deferralId: book.nextDeferralId(), turnsUsed: state.turnsUsed });
  const parking = requestApproval(host, prepared(), gated, verdict, { record: definitionOf(prepared()) });
  // Calls decided one at a time run as they are decided; the first deferral one of them asks for wins, as in a batch.
  let winner: BatchDeferral | undefined;
  const decidedAlone = new PartialDecisions(
    host,
    parking.record,
    gated,
    (call, approved, by) => {
      // Acting on a stored identity from here on, as after any resume.
      state.restored = true;
      if (by) state.resumedBy = by;
      return runBatch(run, [call], (c) => invoke(c, approved), fromTools).then((deferred) => {
        if (deferred && winner) state.messages.push({ role: "tool", tool_call_id: deferred.call.id, content: SIBLING_DEFERRED });
        else winner ??= deferred;
      });
    },
    (entry) => {
      entry.outcome = book.outcome.last;
      // Once every call of the decision has its result: one word to a caller that shows the request (a thread), per decision.
      if (parking.record.approval?.decided?.every((d) => d.outcome !== undefined)) run.tellDecided?.(parking.record);
    },
  );
  let parked: Awaited<typeof parking.outcome>;
  try {
    parked = await Promise.race([parking.outcome, decidedAlone.failed]);
  } catch (err) {
    decidedAlone.stop();
    throw err;
  }
  decidedAlone.stop();
  tracing.next(state.agentId, { event: parked.kind, deferralId: parked.record.id, at: new Date().toISOString() });
  if (parked.kind === "resumed") {
    // Identity is restored from storage, not re-verified, unless the resume vouched for it live.
    state.restored = !parked.reverified;
    if (parked.reverified) state.principal = parked.reverified;
    if (parked.resumedBy) state.resumedBy = parked.resumedBy;
  }
  const alone = decidedAlone.decidedIds();
  const approved = landDecision(host, parked, alone.size > 0 ? gated.filter((c) => !alone.has(c.id)) : gated);
  const byId = new Map(approved.map((a) => [a.call.id, a.approved]));
  const last = approved.length === 0 ? undefined : runBatch(run, approved.map((a) => a.call), (call) => invoke(call, byId.get(call.id)!), fromTools);
  if (alone.size === 0) return last;
  // The model goes on once every call of the step has its result.
  const [, deferred] = await Promise.all([decidedAlone.finished(), last]);
  if (deferred && winner) state.messages.push({ role: "tool", tool_call_id: deferred.call.id, content: SIBLING_DEFERRED });
  return winner ?? deferred;
}
