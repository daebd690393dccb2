import { ActivityFailure, ApplicationFailure, CancelledFailure, patched, proxyActivities, workflowInfo } from "@temporalio/workflow";
import type { AgentActivities, AgentDescription } from "../src/core/contracts.js";
import { ErrorCode } from "../src/core/errors/codes.js";
import { MaxTurnsError } from "../src/core/errors/limits.js";
import { addUsage, type ChatMessage, type ToolCall } from "../src/core/messages.js";
import { ownEntry } from "../src/core/own.js";
import { jsonBytes, MAX_PAGE_BYTES } from "../src/core/payload-size.js";
import type { AgentResult } from "../src/core/run-state.js";
import { callOccurrence } from "../src/core/thread-transcript.js";
import { referToolResults } from "../src/core/tool-result-refs.js";
import { legacyOptions } from "./activity-options.js";
import { stepModelInput } from "./agent-steps.js";
import { runBatch, SIBLING_DEFERRED } from "./run-batch.js";
import type { RunContext } from "./run-context.js";
import { decideThenRun, gatedCalls } from "./run-approval.js";
import { deferUntilAnswered } from "./run-deferral.js";
import { refuseTooManyCalls } from "./transcript-room.js";
import { callSubAgent } from "./run-sub-agent.js";

/** Marks runs whose model calls name their tool results instead of carrying them (each stored once). */
const TOOL_RESULT_REFS_PATCH = "durable-agents.tool-result-refs";

/**
 * The agent loop of a run: model call → the batch of tool calls in parallel → repeat, until
 * the model answers without tools or the turns run out. A tool may defer the run, and calls
 * of tools that need approval park it until a person decides.
 */
export async function loop(run: RunContext): Promise<AgentResult> {
  const { state, book, transcript, cancellation, prepared, deferralRefused, definitionCheck, steps, tracing } = run;
  const options = legacyOptions.runCall(prepared().timeouts);
  const { callModel } = proxyActivities<AgentActivities>(options);
  const onQueue = new Map<string | undefined, AgentActivities["callTool"]>();
  // A tool with its own `queue` runs on that task queue's work pool.
  const callTool: AgentActivities["callTool"] = (input) => {
    if (steps) return steps.callTool({ ...input, host: "run", taskQueue });
    const queue = ownEntry(prepared().toolQueues, input.toolCall.function.name);
    let call = onQueue.get(queue);
    if (!call) {
      call = proxyActivities<AgentActivities>({ ...options, ...(queue ? { taskQueue: queue } : {}) }).callTool;
      onQueue.set(queue, call);
    }
    return call(input);
  };
  const { workflowId, runId, taskQueue, firstExecutionRunId } = workflowInfo();
  // A call's result gets its share of the transcript's room (one call alone unless a batch says otherwise).
  const toolInput = (toolCall: ToolCall, maxResultBytes = steps ? run.room.share(1) : undefined) => ({
    ...tracing?.field(),
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
    ...(maxResultBytes !== undefined ? { maxResultBytes } : {}),
    ...occurrenceOf(state.messages, toolCall.id),
  });

  // Tool calls whose results came back from a tool activity since the last model call: in
  // history already, so that call can name them (version 3 on, where the worker knows how).
  const fromTools = new Set<string>();
  const modelCall = async () => {
    for (;;) {
      // A local activity runs here, unrecorded: it takes the whole transcript rather than
      // rely on a cache its worker may lack (reading the run by query would wait for the
      // very workflow task the call runs in).
      const local = steps?.localModelCalls() === true;
      let baseLength = local ? 0 : transcript.sentLength;
      let delta = state.messages.slice(baseLength);
      // A delta too large for the activity's input (big results of a parallel batch, a long
      // rewritten transcript) is not sent: the worker, whose copy then falls short, reads the
      // transcript a page at a time by query instead.
      if (!local && jsonBytes(delta, MAX_PAGE_BYTES) > MAX_PAGE_BYTES && patched("durable-agents.delta-by-query")) {
        baseLength = state.messages.length;
        delta = [];
      }
      const check = definitionCheck.record?.status === "resumed" ? definitionCheck.record : undefined;
      const input = {
        ...tracing?.field(),
        agentId: state.agentId,
        workflowId,
        runId,
        epoch: transcript.epoch,
        baseLength,
        delta,
        restored: state.restored,
        ...(state.principal ? { principal: state.principal } : {}),
        ...(check ? { definitionCheck: { deferralId: check.id, definitionHash: check.definitionHash ?? "", ...(check.definitionParts ? { definitionParts: check.definitionParts } : {}) } } : {}),
        ...(steps ? { room: run.room.forAnswer(), gate: { deferralId: book.nextDeferralId(), ...(firstExecutionRunId !== runId ? { firstRunId: firstExecutionRunId } : {}) } } : {}),
      };
      const referred = steps && !local ? referToolResults(delta, fromTools) : undefined;
      // Runs before the agent-step layer keep the calls their histories hold: they do not stream.
      const streaming = steps ? run.stream.answer(state.messages) : {};
      const byRef = referred && referred.refs.length > 0 && patched(TOOL_RESULT_REFS_PATCH) ? { delta: referred.delta, toolResultRefs: referred.refs } : {};
      try {
        const reply = steps ? await steps.callModel({ ...stepModelInput(input, state.messages), ...byRef, ...streaming }, undefined, state.turnsUsed + 1) : await callModel(input);
        fromTools.clear();
        // From version 3 on the worker caches its own answer too: the next call need not send it back.
        transcript.sentLength = state.messages.length + (steps ? 1 : 0);
        definitionCheck.record = undefined;
        book.flushStatus();
        return reply;
      } catch (err) {
        run.stream.abandoned(cancellation.requested());
        const failure = err instanceof ActivityFailure ? err.cause : err;
        if (check && failure instanceof ApplicationFailure && (failure.type === ErrorCode.DefinitionChanged || failure.type === ErrorCode.StepStateInvalid)) {
          // The resumed step cannot continue: the deferral is denied and the resume refused with this code.
          book.denyClaimed(check, failure.type, failure);
          throw failure;
        }
        // After a resume the approval is spent: an overflow parks the run for compaction instead of failing it.
        const resumed = book.lastResumed();
        if (!resumed || !isContextOverflow(err)) throw err;
        await book.awaitCompaction(resumed);
      }
    }
  };

  const stopIfCancelled = () => {
    if (cancellation.requested()) throw new CancelledFailure("cancelled");
  };

  for (;;) {
    stopIfCancelled();
    await run.continueIfDue();
    const maxTurns = run.maxTurns();
    if (state.turnsUsed >= maxTurns) {
      throw new MaxTurnsError({ maxTurns, turnsUsed: state.turnsUsed, usage: state.usage }).toFailure();
    }
    const reply = await modelCall();
    if (steps) refuseTooManyCalls(state.agentId, (prepared() as Partial<AgentDescription>).maxToolCalls, reply.message.tool_calls?.length ?? 0, state.principal);
    state.turnsUsed += 1;
    state.usage = addUsage(state.usage, reply.usage);
    state.messages.push(reply.message);
    run.stream.answered(state.messages, (reply.message.tool_calls?.length ?? 0) > 0);
    // A cancel that came while the model answered stops the run here, with the answer counted.
    if (steps) stopIfCancelled();

    const calls = reply.message.tool_calls ?? [];
    if (calls.length === 0) {
      // Not the transcript: it may be larger than a result can be (agents.messages() pages it).
      return { status: "completed", text: reply.message.content ?? "", ...("output" in reply ? { output: reply.output } : {}), turnsUsed: state.turnsUsed, usage: state.usage, messageCount: state.messages.length };
    }
    stopIfCancelled();
    // Calls of tools that need approval wait for a decision; the rest run at once, and all of
    // them finish (their results persist) before the run parks.
    const gated = steps ? gatedCalls(prepared() as Partial<AgentDescription>, calls, reply.gate) : [];
    const free = gated.length === 0 ? calls : calls.filter((call) => !gated.includes(call));
    const share = steps ? run.room.share(calls.length) : undefined;
    // Sub-agents share the turns left, less one for this run to answer with what they said.
    const subAgents = steps ? (prepared() as Partial<AgentDescription>).agents : undefined;
    const childCalls = subAgents ? free.filter((call) => ownEntry(subAgents, call.function.name) !== undefined) : [];
    const childTurns = childCalls.length > 0 ? Math.floor((maxTurns - state.turnsUsed - 1) / childCalls.length) : 0;
    let winner = await runBatch(
      run,
      free,
      (call) => (childCalls.includes(call) ? callSubAgent(run, call, ownEntry(subAgents, call.function.name)!, childTurns) : callTool(toolInput(call, share))),
      fromTools,
    );
    // Their results are in no activity's: the next model call carries them.
    for (const call of childCalls) fromTools.delete(call.id);
    if (gated.length > 0) {
      // One request per step: a handler's ctx.defer() beside it is withdrawn, as a later sibling's is.
      if (winner) state.messages.push({ role: "tool", tool_call_id: winner.call.id, content: SIBLING_DEFERRED });
      winner = await decideThenRun(run, gated, reply.gate, (call, extra) => callTool({ ...toolInput(call, share), ...extra }), fromTools);
    }
    if (winner) await deferUntilAnswered(run, winner, (input) => callTool(input), toolInput);
  }
}


/** Which use of its id a call is, when the model reused the id of an earlier call (the first use adds nothing). */
function occurrenceOf(messages: readonly ChatMessage[], toolCallId: string): { occurrence?: number } {
  const occurrence = callOccurrence(messages, toolCallId);
  return occurrence > 1 ? { occurrence } : {};
}

function isContextOverflow(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === ErrorCode.ContextOverflow;
}
