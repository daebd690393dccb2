import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  isCancellation,
  allHandlersFinished,
  makeContinueAsNewFunc,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
} from "@temporalio/workflow";
import { ErrorCode } from "../src/core/errors/codes.js";
import { DefinitionChangedError } from "../src/core/errors/definition-changed.js";
import { MaxTurnsError } from "../src/core/errors/max-turns.js";
import { RunCancelledError } from "../src/core/errors/run-cancelled.js";
import { StepStateError } from "../src/core/errors/step-state.js";
import { addUsage, type ChatMessage, type ToolCall } from "../src/core/messages.js";
import { referToolResults } from "../src/core/tool-result-refs.js";
import { callOccurrence } from "../src/core/thread-transcript.js";
import type { AgentActivities, AgentDescription, DeferralRequest, DescribeAgentOutput, PreparedAgent, ToolCallOutput } from "../src/core/contracts.js";
import { legacyOptions } from "./activity-options.js";
import { agentSteps, stepModelInput, toolGaveUp } from "./agent-steps.js";
import { ownEntry } from "../src/core/own.js";
import { cancelRequestProblem, deferralIdProblem, messagePageProblem, refuseMalformed, threadPrefixProblem } from "../src/core/request-shapes.js";
import { jsonBytes, MAX_PAGE_BYTES, MAX_PAYLOAD_BYTES, tailOf } from "../src/core/payload-size.js";
import type { DeferralRecord } from "../src/core/deferral-record.js";
import {
  cancelUpdate,
  deferralQuery,
  deferralRecordQuery,
  denyUpdate,
  replaceStepStateUpdate,
  resumeUpdate,
  runMessagesQuery,
  runStateQuery,
  settledUpdate,
  transcriptQuery,
} from "../src/core/wire/run.js";
import { RECENT_MESSAGES, RECENT_MESSAGES_BYTES, resultSummary, type AgentResult, type AgentRunInput, type RunCarry, type RunState } from "../src/core/run-state.js";
import { initialRunState, RunCancellation, TranscriptSync, type RunContext } from "./run-context.js";
import { agentDeferralBook, deferUntilAnswered, parkRequest, resultMessage } from "./run-deferral.js";
import { RunTracing } from "./run-trace.js";
import { RUN_TRANSCRIPT_BYTES, TranscriptMeter } from "../src/core/transcript-budget.js";
import { refuseTooManyCalls, TranscriptRoom } from "./transcript-room.js";
import { TranscriptFullError } from "../src/core/errors/transcript-full.js";

const SIBLING_DEFERRED =
  "Error: a sibling tool call deferred this run first, so this call's deferral was withdrawn: its handler ran, but its request was not kept and its link will not work. Call it again after the run resumes if it is still needed.";

/** Marks runs in which a tool call that ran out of attempts is told to the model (before, it failed the run). */
const TOOL_ATTEMPTS_PATCH = "tool-attempts-bounded";
/** A run that cannot continue as new ends (AI1018) before Temporal's 51,200 events or 50 MB would terminate it. */
const HISTORY_EVENTS_BACKSTOP = 45_000;
const HISTORY_BYTES_BACKSTOP = 44_040_192;
/** Marks runs whose model calls name their tool results instead of carrying them (each stored once). */
const TOOL_RESULT_REFS_PATCH = "durable-agents.tool-result-refs";

const { prepareAgent } = proxyLocalActivities<AgentActivities>(legacyOptions.runPrepare);

/**
 * One agent run: model call → the batch of tool calls in parallel → repeat, until the
 * model answers without tools or the turns run out. A tool may defer the run: it parks
 * until a resume lands the payload as that call's result. The system prompt and tool
 * list are never in workflow state: the worker prepares them for each model call.
 */
export async function agentRun(input: AgentRunInput): Promise<AgentResult> {
  const state = initialRunState(input);
  let prepared: PreparedAgent | undefined;
  const transcript = new TranscriptSync();
  // From version 3 on the run's steps go through the agent-step layer; older runs keep
  // scheduling the activities their histories hold.
  const steps = input.version !== undefined && input.version >= 3 ? agentSteps() : undefined;
  const definitionCheck: RunContext["definitionCheck"] = {};
  // Only runs on the agent-step layer are traced: older histories schedule what they hold.
  const tracing = steps ? RunTracing.ofWorkflow(input.carried?.trace) : undefined;
  const book = agentDeferralBook({ state, transcript, definitionCheck }, input.version, {
    reprepare,
    reprepared(agent) {
      prepared = agent;
    },
  });
  // Everything the run does happens in this scope, so `cancel()`, a timeout and a cancel
  // from Temporal itself all reach the model call or tool in flight, or the deferral.
  const scope = new CancellationScope();
  const cancellation = new RunCancellation(scope);
  const meter = new TranscriptMeter();
  const room = new TranscriptRoom("run", workflowInfo().workflowId, RUN_TRANSCRIPT_BYTES, () => meter.total(state.messages));

  // All registered before the first await: an update that came with the start sees the run before it has done anything.
  setHandler(deferralQuery, (id) => {
    refuseMalformed(deferralQuery.name, deferralIdProblem(id));
    return book.records.view(id);
  });
  setHandler(deferralRecordQuery, (id) => {
    refuseMalformed(deferralRecordQuery.name, deferralIdProblem(id));
    return book.records.read(id);
  });
  setHandler(settledUpdate, () => book.outcome.settled());
  setHandler(resumeUpdate, (request) => book.resumes.resume(request), {
    validator: (request) => {
      book.resumes.validate(request);
      // A first resume's payload joins the transcript: refused, token unspent, when it has no room.
      if (book.records.find(request.deferralId)?.status === "deferred") room.refuseUnlessFits(resultMessage(request.toolCallId, request.payload), "the resume payload", { answerFollows: true });
    },
  });
  setHandler(replaceStepStateUpdate, (request) => book.stepStates.replace(request), { validator: (request) => book.stepStates.validate(request) });
  setHandler(denyUpdate, (request) => book.deny(request), { validator: (request) => book.validateDeny(request) });
  setHandler(runStateQuery, (): RunState => {
    const waiting = book.current();
    // Never the whole transcript: it may be larger than a query's answer can be.
    const { messages, ...rest } = state;
    return {
      ...rest,
      status: book.phase,
      recentMessages: tailOf(messages, RECENT_MESSAGES, RECENT_MESSAGES_BYTES),
      messageCount: messages.length,
      ...(waiting ? { deferralId: waiting.id } : {}),
    };
  });
  setHandler(runMessagesQuery, (request) => {
    refuseMalformed(runMessagesQuery.name, messagePageProblem(request));
    return transcript.page(state.messages, request);
  });
  setHandler(transcriptQuery, (request) => {
    refuseMalformed(transcriptQuery.name, threadPrefixProblem(request));
    return transcript.prefix(state.messages, request.epoch, request.length);
  });
  setHandler(cancelUpdate, (request) => cancellation.cancel(request?.reason || "cancelled"), {
    validator: (request) => refuseMalformed(cancelUpdate.name, cancelRequestProblem(request)),
  });

  // What an earlier execution of this run handed on: its records (their ids go on counting) and what the worker's cache has seen.
  if (input.carried) {
    book.records.list.push(...input.carried.records);
    transcript.epoch = input.carried.epoch;
    transcript.sentLength = input.carried.sentLength;
  }
  const deadline = input.carried ? input.carried.deadline : input.timeoutMs ? Date.now() + input.timeoutMs : undefined;
  if (deadline !== undefined) {
    const left = input.carried ? Math.max(1, deadline - Date.now()) : input.timeoutMs!;
    void CancellationScope.nonCancellable(() => sleep(left)).then(() => cancellation.cancel(`timed out after ${input.timeoutMs}ms`));
  }
  /**
   * Version 4 on: between turns, with nothing waiting and no update in flight, a run whose
   * history Temporal says is long (or past `maxHistoryEvents`) continues as new, carrying
   * what it holds, so a long run does not meet Temporal's history limits. One whose carry
   * would not fit a payload (a transcript over 1.5 MB) goes on as it is.
   */
  const continueIfDue = async (): Promise<void> => {
    if ((input.version ?? 0) < 4) return;
    const info = workflowInfo();
    const due = info.continueAsNewSuggested || (input.maxHistoryEvents !== undefined && info.historyLength >= input.maxHistoryEvents);
    if (!due || book.current() || definitionCheck.record) return;
    // Resumes waiting for the run's next settled state are answered "running" (their clients
    // follow the run); anything else still in flight (an old client's settled update) is
    // given a moment, then the run goes on in this execution and tries again next turn.
    const undo = book.resumes.releaseForContinue();
    if (!(await condition(allHandlersFinished, "10s"))) {
      undo();
      return;
    }
    const trace = tracing?.handOn();
    const carried: RunCarry = {
      messages: state.messages,
      turnsUsed: state.turnsUsed,
      usage: state.usage,
      restored: state.restored,
      ...(state.principal ? { principal: state.principal } : {}),
      ...(state.resumedBy ? { resumedBy: state.resumedBy } : {}),
      records: book.records.list,
      epoch: transcript.epoch,
      sentLength: transcript.sentLength,
      ...(deadline !== undefined ? { deadline } : {}),
      continuedRuns: (input.carried?.continuedRuns ?? 0) + 1,
      ...(trace ? { trace } : {}),
    };
    const next: AgentRunInput = { ...input, carried };
    if (jsonBytes(next, MAX_PAYLOAD_BYTES) > MAX_PAYLOAD_BYTES) {
      undo();
      // Too large to carry, it goes on here; near Temporal's limits (which would terminate
      // it) it ends with a typed code instead (version 5 on).
      if ((input.version ?? 0) >= 5 && (info.historyLength >= HISTORY_EVENTS_BACKSTOP || info.historySize >= HISTORY_BYTES_BACKSTOP)) {
        throw new TranscriptFullError({
          host: "run",
          id: info.workflowId,
          what: `its next step (its history, ${info.historyLength} events and ${info.historySize} bytes, is near Temporal's limits, and the transcript is too large to carry into a new execution)`,
          bytes: meter.total(state.messages),
          leftBytes: 0,
          limitBytes: MAX_PAYLOAD_BYTES,
        }).toFailure();
      }
      return;
    }
    tracing?.end("continued", { turnsUsed: state.turnsUsed });
    await makeContinueAsNewFunc<typeof agentRun>({
      ...(info.memo ? { memo: info.memo } : {}),
      typedSearchAttributes: info.typedSearchAttributes,
    })(next);
  };
  const run: RunContext = { state, book, transcript, cancellation, prepared: () => prepared!, deferralRefused: input.deferralRefused, definitionCheck, steps, continueIfDue, tracing, room };

  return book.run(
    async () => {
      try {
        const result = await scope.run(async () => {
          if (steps) {
            // The first step's span opens with the description (no command of its own).
            const ask = { agentId: input.agentId, trace: tracing!.firstStep(new Date().toISOString()) };
            prepared = await steps.describe(ask);
            tracing!.began((prepared as DescribeAgentOutput).trace);
          } else {
            prepared = await prepareAgent({ agentId: input.agentId });
          }
          state.maxTurns = prepared.maxTurns;
          return loop(run);
        });
        tracing?.end("completed", { turnsUsed: state.turnsUsed });
        return result;
      } catch (err) {
        // Nothing is open after a continue-as-new or a park that failed: then this is a no-op.
        tracing?.end(cancellation.requested() || isCancellation(err) ? "cancelled" : "failed", { turnsUsed: state.turnsUsed, ...failureType(err) });
        if (cancellation.requested() || isCancellation(err)) {
          // A cancelled run leaves no live approval link behind.
          book.denyWaiting(ErrorCode.RunCancelled);
          throw new RunCancelledError({
            reason: cancellation.reason ?? "the workflow was cancelled",
            turnsUsed: state.turnsUsed,
            usage: state.usage,
          }).toFailure();
        }
        // Surface the activity's typed failure itself, so the caller sees its code on top.
        throw err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : err;
      }
    },
    // Resumes are answered with this; the transcript is read a page at a time (runMessagesQuery).
    resultSummary,
  );
}

async function loop(run: RunContext): Promise<AgentResult> {
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
        ...(check ? { definitionCheck: { deferralId: check.id, definitionHash: check.definitionHash ?? "" } } : {}),
        ...(steps ? { room: run.room.forAnswer() } : {}),
      };
      const referred = steps && !local ? referToolResults(delta, fromTools) : undefined;
      const byRef = referred && referred.refs.length > 0 && patched(TOOL_RESULT_REFS_PATCH) ? { delta: referred.delta, toolResultRefs: referred.refs } : {};
      try {
        const reply = steps ? await steps.callModel({ ...stepModelInput(input, state.messages), ...byRef }, undefined, state.turnsUsed + 1) : await callModel(input);
        fromTools.clear();
        // From version 3 on the worker caches its own answer too: the next call need not send it back.
        transcript.sentLength = state.messages.length + (steps ? 1 : 0);
        definitionCheck.record = undefined;
        book.flushStatus();
        return reply;
      } catch (err) {
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
    const { maxTurns } = prepared();
    if (state.turnsUsed >= maxTurns) {
      throw new MaxTurnsError({ maxTurns, turnsUsed: state.turnsUsed, usage: state.usage }).toFailure();
    }
    const reply = await modelCall();
    if (steps) refuseTooManyCalls(state.agentId, (prepared() as Partial<AgentDescription>).maxToolCalls, reply.message.tool_calls?.length ?? 0, state.principal);
    state.turnsUsed += 1;
    state.usage = addUsage(state.usage, reply.usage);
    state.messages.push(reply.message);
    // A cancel that came while the model answered stops the run here, with the answer counted.
    if (steps) stopIfCancelled();

    const calls = reply.message.tool_calls ?? [];
    if (calls.length === 0) {
      // Not the transcript: it may be larger than a result can be (agents.messages() pages it).
      return { status: "completed", text: reply.message.content ?? "", turnsUsed: state.turnsUsed, usage: state.usage, messageCount: state.messages.length };
    }
    stopIfCancelled();
    // Siblings all finish (their results persist) before a deferral parks the run.
    const share = steps ? run.room.share(calls.length) : undefined;
    const settled = await Promise.allSettled(calls.map((call) => callTool(toolInput(call, share))));
    // A call whose bounded attempts ran out is for the model to hear about, not the run's end.
    settled.forEach((s, i) => {
      const told = steps && s.status === "rejected" ? toolGaveUp(s.reason, calls[i]!.function.name) : undefined;
      if (told && patched(TOOL_ATTEMPTS_PATCH)) settled[i] = { status: "fulfilled", value: { content: told, isError: true } };
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
    let winner: { call: ToolCall; request: DeferralRequest } | undefined;
    calls.forEach((call, i) => {
      const out = outputs[i] as ToolCallOutput;
      if ("deferred" in out) {
        // The first deferral in the model's emission order wins; later ones are told to retry.
        if (!winner) winner = { call, request: out.deferred };
        else state.messages.push({ role: "tool", tool_call_id: call.id, content: SIBLING_DEFERRED });
      } else {
        state.messages.push({ role: "tool", tool_call_id: call.id, content: out.content });
        fromTools.add(call.id);
      }
    });
    if (winner) await deferUntilAnswered(run, winner, (input) => callTool(input), toolInput);
  }
}

/** Preparation again at resume: the agent must still exist and hash as it did when it deferred. */
async function reprepare(agentId: string, record: DeferralRecord): Promise<PreparedAgent> {
  let prepared: PreparedAgent;
  try {
    prepared = await prepareAgent({ agentId });
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    if (cause instanceof ApplicationFailure && cause.type === ErrorCode.AgentNotRegistered) {
      throw new StepStateError({ agentId, reason: `no agent "${agentId}" is registered on the worker any more` }).toFailure();
    }
    throw err;
  }
  if (prepared.definitionHash !== record.definitionHash) {
    throw new DefinitionChangedError({
      deferralId: record.id,
      agentId,
      deferredHash: record.definitionHash ?? "",
      currentHash: prepared.definitionHash,
    }).toFailure();
  }
  return prepared;
}

/** Which use of its id a call is, when the model reused the id of an earlier call (the first use adds nothing). */
function occurrenceOf(messages: readonly ChatMessage[], toolCallId: string): { occurrence?: number } {
  const occurrence = callOccurrence(messages, toolCallId);
  return occurrence > 1 ? { occurrence } : {};
}

/** The error code a failed step's span is marked with. */
function failureType(err: unknown): { errorType?: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type ? { errorType: cause.type } : {};
}

function isContextOverflow(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === ErrorCode.ContextOverflow;
}

