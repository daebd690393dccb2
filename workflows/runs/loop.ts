import { ActivityFailure, ApplicationFailure, CancelledFailure, workflowInfo } from "@temporalio/workflow";
import type { AgentModelCallInput, ModelCallOutput, RunToolCall, RunToolCallOutput } from "../../src/core/contracts.js";
import { messageFingerprint } from "../../src/core/fingerprint.js";
import { ErrorCode } from "../../src/core/errors/codes.js";
import { MaxTurnsError } from "../../src/core/errors/limits.js";
import { addUsage, type ChatMessage, type ToolCall } from "../../src/core/messages.js";
import { ownEntry } from "../../src/core/own.js";
import { jsonBytes, MAX_PAGE_BYTES } from "../../src/core/payload-size.js";
import type { AgentResult } from "../../src/core/run-state.js";
import { callOccurrence } from "../../src/core/thread-transcript.js";
import { referToolResults } from "../../src/core/tool-result-refs.js";
import { decideThenRun, runBatch, SIBLING_DEFERRED } from "./batch.js";
import { deniedByPolicy, isGated, permittedCalls } from "../approvals/requests.js";
import { permissionsField } from "../approvals/permissions.js";
import type { RunContext } from "./context.js";
import { deferUntilAnswered } from "./deferral.js";
import { refuseTooManyCalls } from "../shared/transcript-room.js";
import { callSubAgent } from "./sub-agent.js";

/**
 * The agent loop of a run: model call → the batch of tool calls in parallel → repeat, until
 * the model answers without tools or the turns run out. A tool may defer the run, and calls
 * of tools that need approval park it until a person decides.
 */
export async function loop(run: RunContext): Promise<AgentResult> {
  const { state, book, transcript, cancellation, prepared, deferralRefused, definitionCheck, steps, tracing } = run;
  const callTool = (input: RunToolCall): Promise<RunToolCallOutput> => steps.callTool(input);
  const { workflowId, runId, taskQueue, firstExecutionRunId } = workflowInfo();
  // A call's result gets its share of the transcript's room (one call alone unless a batch says otherwise).
  const toolInput = (toolCall: ToolCall, maxResultBytes = run.room.share(1)): RunToolCall => ({
    ...tracing.field(),
    host: "run",
    agentId: state.agentId,
    workflowId,
    taskQueue,
    toolCall,
    deferralId: book.nextDeferralId(),
    restored: state.restored,
    ...(state.principal ? { principal: state.principal } : {}),
    ...(state.resumedBy ? { resumedBy: state.resumedBy } : {}),
    ...(deferralRefused ? { deferralRefused } : {}),
    // Its tokens are bound to the first execution, which the tool's activity cannot see once the run continued as new.
    ...(firstExecutionRunId !== runId ? { firstRunId: firstExecutionRunId } : {}),
    maxResultBytes,
    ...occurrenceOf(state.messages, toolCall.id),
    ...run.stream.joined(),
  });

  // Tool calls whose results came back from a tool activity since the last model call: in
  // history already, so that call names them rather than carrying them (each stored once).
  const fromTools = new Set<string>();
  // A chain rather than async/await: Temporal's promise hook traces every promise a workflow makes.
  const modelCall = (): Promise<ModelCallOutput> => {
    // A local activity runs here, unrecorded: it takes the whole transcript rather than
    // rely on a cache its worker may lack (reading the run by query would wait for the
    // very workflow task the call runs in).
    const local = steps.localModelCalls();
    let baseLength = local ? 0 : transcript.sentLength;
    let delta = state.messages.slice(baseLength);
    // A delta too large for the activity's input (big results of a parallel batch, a long
    // rewritten transcript) is not sent: the worker, whose copy then falls short, reads the
    // transcript a page at a time by query instead.
    if (!local && jsonBytes(delta, MAX_PAGE_BYTES) > MAX_PAGE_BYTES) {
      baseLength = state.messages.length;
      delta = [];
    }
    const check = definitionCheck.record?.status === "resumed" ? definitionCheck.record : undefined;
    // The fingerprint of the message before the delta guards the worker's cached copy.
    const tail = state.messages[baseLength - 1];
    const input: AgentModelCallInput = {
      ...tracing.field(),
      host: "run",
      agentId: state.agentId,
      workflowId,
      transcriptId: runId,
      epoch: transcript.epoch,
      baseLength,
      ...(tail ? { baseTail: messageFingerprint(tail) } : {}),
      delta,
      restored: state.restored,
      ...(state.principal ? { principal: state.principal } : {}),
      ...(check ? { definitionCheck: { deferralId: check.id, definitionHash: check.definitionHash ?? "", ...(check.definitionParts ? { definitionParts: check.definitionParts } : {}) } } : {}),
      room: run.room.forAnswer(),
      gate: { deferralId: book.nextDeferralId(), ...(firstExecutionRunId !== runId ? { firstRunId: firstExecutionRunId } : {}) },
      ...permissionsField(book.records.list),
      ...run.describing(),
    };
    const referred = local ? undefined : referToolResults(delta, fromTools);
    const streaming = run.stream.answer(state.messages);
    const byRef = referred && referred.refs.length > 0 ? { delta: referred.delta, toolResultRefs: referred.refs } : {};
    return steps.callModel({ ...input, ...byRef, ...streaming }, undefined, state.turnsUsed + 1).then(
      (reply) => {
        run.learned(reply);
        fromTools.clear();
        // The worker caches its own answer too: the next call need not send it back.
        transcript.sentLength = state.messages.length + 1;
        definitionCheck.record = undefined;
        book.flushStatus();
        return reply;
      },
      async (err: unknown) => {
        run.stream.abandoned(cancellation.requested());
        const failure = err instanceof ActivityFailure ? err.cause : err;
        if (check && failure instanceof ApplicationFailure && (failure.type === ErrorCode.DefinitionChanged || failure.type === ErrorCode.StepStateInvalid)) {
          // The resumed step cannot continue: the deferral is denied and the resume refused with this code.
          book.denyClaimed(check, failure.type, failure);
          throw failure;
        }
        // After a resume the approval is spent: an overflow parks the run for compaction instead of failing it.
        const resumed = book.lastResumed();
        if (!resumed || !isOverflowFailure(err)) throw err;
        await book.awaitCompaction(resumed);
        return modelCall();
      },
    );
  };

  const stopIfCancelled = () => {
    if (cancellation.requested()) throw new CancelledFailure("cancelled");
  };

  for (;;) {
    stopIfCancelled();
    // Undefined on most turns: nothing to await (each await is a promise Temporal's hook traces).
    const continuing = run.continueIfDue();
    if (continuing) await continuing;
    const maxTurns = run.maxTurns();
    if (state.turnsUsed >= maxTurns) {
      throw new MaxTurnsError({ maxTurns, turnsUsed: state.turnsUsed, usage: state.usage }).toFailure();
    }
    const reply = await modelCall();
    refuseTooManyCalls(state.agentId, prepared().maxToolCalls, reply.message.tool_calls?.length ?? 0, state.principal);
    state.turnsUsed += 1;
    state.usage = addUsage(state.usage, reply.usage);
    state.messages.push(reply.message);
    run.stream.answered(state.messages, (reply.message.tool_calls?.length ?? 0) > 0);
    // A cancel that came while the model answered stops the run here, with the answer counted.
    stopIfCancelled();

    const calls = reply.message.tool_calls ?? [];
    if (calls.length === 0) {
      // Not the transcript: it may be larger than a result can be (agents.messages() pages it).
      return { status: "completed", text: reply.message.content ?? "", ...("output" in reply ? { output: reply.output } : {}), turnsUsed: state.turnsUsed, usage: state.usage, messageCount: state.messages.length };
    }
    stopIfCancelled();
    // Calls of tools that need approval wait for a decision; the rest run at once, and all of
    // them finish (their results persist) before the run parks.
    const gated = calls.filter((call) => isGated(prepared(), call, reply.gate));
    // Calls a policy denied run nothing and wait for nobody: the model reads why.
    const denied = deniedByPolicy(prepared(), calls, reply.gate);
    // Calls a standing permission lets run go with it as their approval; one revoked or lapsed meanwhile runs nothing.
    const permits = permittedCalls(prepared(), book.records.list, calls, reply.gate, state.principal);
    const lapsed = permits.flatMap((p) => ("content" in p ? [p] : []));
    denied.push(...lapsed);
    const byPermit = new Map(permits.flatMap((p) => ("approved" in p ? [[p.call.id, p.approved] as const] : [])));
    const free = gated.length === 0 && denied.length === 0 ? calls : calls.filter((call) => !gated.includes(call) && !denied.some((d) => d.call === call));
    const share = run.room.share(calls.length);
    // Sub-agents share the turns left, less one for this run to answer with what they said.
    const subAgents = prepared().agents;
    const childCalls = subAgents ? free.filter((call) => ownEntry(subAgents, call.function.name) !== undefined) : [];
    // Read again: the first answer may have been what described the agent.
    const childTurns = childCalls.length > 0 ? Math.floor((run.maxTurns() - state.turnsUsed - 1) / childCalls.length) : 0;
    let winner = await runBatch(
      run,
      free,
      (call) => {
        if (childCalls.includes(call)) return callSubAgent(run, call, ownEntry(subAgents, call.function.name)!, childTurns, share);
        const approved = byPermit.get(call.id);
        return callTool({ ...toolInput(call, share), ...(approved ? { approved } : {}) });
      },
      fromTools,
    );
    // Their results are in no activity's: the next model call carries them.
    for (const call of childCalls) fromTools.delete(call.id);
    for (const { call, content } of denied) state.messages.push({ role: "tool", tool_call_id: call.id, content });
    if (gated.length > 0) {
      // One request per step: a handler's ctx.defer() beside it is withdrawn, as a later sibling's is.
      if (winner) state.messages.push({ role: "tool", tool_call_id: winner.call.id, content: SIBLING_DEFERRED });
      winner = await decideThenRun(run, gated, reply.gate, (call, approved) => callTool({ ...toolInput(call, share), approved }), fromTools);
    }
    if (winner) await deferUntilAnswered(run, winner, callTool, toolInput);
  }
}


/** Which use of its id a call is, when the model reused the id of an earlier call (the first use adds nothing). */
function occurrenceOf(messages: readonly ChatMessage[], toolCallId: string): { occurrence?: number } {
  const occurrence = callOccurrence(messages, toolCallId);
  return occurrence > 1 ? { occurrence } : {};
}

function isOverflowFailure(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === ErrorCode.ContextOverflow;
}
