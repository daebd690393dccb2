import { handlePermissions } from "../approvals/permissions.js";
import { ActivityFailure, ApplicationFailure, CancellationScope, ContinueAsNew, getExternalWorkflowHandle, isCancellation, setHandler, sleep, workflowInfo } from "@temporalio/workflow";
import { ErrorCode } from "../../src/core/errors/codes.js";
import { RunCancelledError } from "../../src/core/errors/runs.js";
import type { AgentDescription, DescribeAgentOutput } from "../../src/core/contracts.js";
import { agentSteps } from "../shared/agent-steps.js";
import { cancelRequestProblem, deferralIdProblem, messagePageProblem, recordsPageProblem, objectArgumentProblem, refuseMalformed, streamFlushProblem, subAgentDeferralProblem, threadPrefixProblem } from "../../src/core/request-shapes.js";
import { threadStreamSignal } from "../../src/core/wire/thread.js";
import { agentSinks } from "../shared/sinks.js";
import { workflowDeferralRuntime } from "../deferrals/runtime.js";
import { RunStream } from "./stream.js";
import {
  cancelUpdate,
  deferralQuery,
  deferralRecordQuery,
  approvalRecordQuery,
  deferralRecordsQuery,
  denyUpdate,
  replaceStepStateUpdate,
  resumeUpdate,
  runMessagesQuery,
  runStateQuery,
  runStreamQuery,
  settledUpdate,
  subAgentDeferralSignal,
  subAgentOutcomeQuery,
  transcriptQuery,
  type SubAgentDeferral,
} from "../../src/core/wire/run.js";
import type { DeferralEvent, DeferralRecord } from "../../src/core/deferral-record.js";
import { parseDeferralId } from "../../src/core/deferral-id.js";
import type { DeferralBook } from "../deferrals/book.js";
import { AGENT_RUN_VERSION, resultSummary, type AgentResult, type AgentRunInput } from "../../src/core/run-state.js";
import { initialRunState, RunCancellation, SentTranscript, type RunContext } from "./context.js";
import { runContinuation } from "./continue-as-new.js";
import { agentDeferralBook, resultMessage } from "./deferral.js";
import { runStateView } from "./state-view.js";
import { RunTracing } from "./trace.js";
import { loop } from "./loop.js";
import { RUN_TRANSCRIPT_BYTES, TranscriptMeter } from "../../src/core/transcript-budget.js";
import { refuseOversizedDecision } from "../approvals/requests.js";
import { approvalRecordOf } from "../approvals/context.js";
import { TranscriptRoom } from "../shared/transcript-room.js";
import { refuseUnknownVersion } from "../shared/input-version.js";
import { isDescendant } from "../shared/sub-agent.js";

/**
 * One agent run: model call → the batch of tool calls in parallel → repeat, until the
 * model answers without tools or the turns run out. A tool may defer the run: it parks
 * until a resume lands the payload as that call's result. The system prompt and tool
 * list are never in workflow state: the worker prepares them for each model call.
 */
export async function agentRun(input: AgentRunInput): Promise<AgentResult> {
  refuseUnknownVersion("agentRun", input, AGENT_RUN_VERSION);
  const state = initialRunState(input);
  let prepared: AgentDescription | undefined;
  const transcript = new SentTranscript();
  const steps = agentSteps(input.firstCall);
  const definitionCheck: RunContext["definitionCheck"] = {};
  const tracing = RunTracing.ofWorkflow(input.carried?.trace);
  const runtime = workflowDeferralRuntime();
  const sinks = agentSinks();
  const stream = new RunStream(
    input.stream === true,
    { publish: (batch) => sinks.stream(workflowInfo().workflowId, batch), details: (line) => runtime.details?.(line), now: () => new Date().toISOString() },
    input.carried?.stream,
    state.messages.length,
    input.joinStream,
  );
  const book = agentDeferralBook(
    { state, transcript, definitionCheck },
    // The status line carries the stream's position; deferrals show in the stream.
    {
      ...runtime,
      details: (text) => stream.show(text),
      emit(event) {
        runtime.emit(event);
        stream.deferral(event, state.messages);
        if (input.parent) tellParent(input.parent.workflowId, input.agentId, event, book);
      },
    },
  );
  const children = new Set<string>();
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
  setHandler(deferralRecordsQuery, (request) => {
    refuseMalformed(deferralRecordsQuery.name, recordsPageProblem(request));
    return book.records.page(request.offset);
  });
  setHandler(approvalRecordQuery, (id) => {
    refuseMalformed(approvalRecordQuery.name, deferralIdProblem(id));
    return approvalRecordOf(book.records, state.messages, id);
  });
  setHandler(subAgentOutcomeQuery, (id) => {
    refuseMalformed(subAgentOutcomeQuery.name, deferralIdProblem(id));
    return book.outcome.subAgentOutcomes.get(id) ?? null;
  });
  handlePermissions(() => book.records.list);
  setHandler(settledUpdate, () => book.outcome.settled());
  setHandler(resumeUpdate, (request) => book.resumes.resume(request), {
    validator: (request) => {
      book.resumes.validate(request);
      // A first resume's payload joins the transcript: refused, token unspent, when it has no room.
      if (book.records.find(request.deferralId)?.status === "deferred") room.refuseUnlessFits(resultMessage(request.toolCallId, request.payload), "the resume payload", { answerFollows: true });
      // An approval's edits are scheduled and shown as the calls' arguments: bounded before anything is.
      refuseOversizedDecision(book.records.find(request.deferralId), request.payload, state.messages, room, request.resumedBy);
    },
  });
  setHandler(replaceStepStateUpdate, (request) => book.stepStates.replace(request), { validator: (request) => book.stepStates.validate(request) });
  setHandler(denyUpdate, (request) => book.deny(request), { validator: (request) => book.validateDeny(request) });
  setHandler(runStateQuery, () => runStateView(state, book, stream));
  setHandler(runMessagesQuery, (request) => {
    refuseMalformed(runMessagesQuery.name, messagePageProblem(request));
    return transcript.page(state.messages, request);
  });
  setHandler(transcriptQuery, (request) => {
    refuseMalformed(transcriptQuery.name, threadPrefixProblem(request));
    return transcript.prefix(state.messages, request.epoch, request.length);
  });
  setHandler(runStreamQuery, (request) => {
    refuseMalformed(runStreamQuery.name, objectArgumentProblem(request));
    return stream.since(workflowInfo().workflowId, Number(request.fromSeq));
  });
  // Deltas from a worker that streams by signal; a malformed batch is dropped, never a failed task.
  setHandler(threadStreamSignal, (flush) => {
    if (stream.deltas && streamFlushProblem(flush) === undefined) stream.accept(flush);
  });
  // A sub-agent (or one of its own) parked, and this run parks with it, or its deferral moved
  // on. Heard only from sub-agents running now and theirs; passed up to this run's caller.
  setHandler(subAgentDeferralSignal, (child) => {
    if (subAgentDeferralProblem(child) !== undefined || !isDescendant(children, parseDeferralId(child.deferralId)?.runId)) return;
    // A request told of again with the calls decided so far: this run waits on it as before, and passes the word up.
    if (child.status === "deferred") {
      if (child.decided === undefined) book.subAgentParked(child);
    } else book.subAgentMoved(child);
    if (input.parent) getExternalWorkflowHandle(input.parent.workflowId).signal(subAgentDeferralSignal, child).catch(() => undefined);
  });
  setHandler(cancelUpdate, (request) => cancellation.cancel(request?.reason || "cancelled"), {
    validator: (request) => refuseMalformed(cancelUpdate.name, cancelRequestProblem(request)),
  });

  // What an earlier execution of this run handed on: its records (their ids go on counting) and what the worker's cache has seen.
  if (input.carried) {
    book.records.list.push(...input.carried.records);
    for (const [id, first] of Object.entries(input.carried.subAgentOutcomes ?? {})) book.outcome.subAgentOutcomes.set(id, first);
    transcript.epoch = input.carried.epoch;
    transcript.sentLength = input.carried.sentLength;
  }
  const deadline = input.carried ? input.carried.deadline : input.timeoutMs ? Date.now() + input.timeoutMs : undefined;
  if (deadline !== undefined) {
    const left = input.carried ? Math.max(1, deadline - Date.now()) : input.timeoutMs!;
    void CancellationScope.nonCancellable(() => sleep(left)).then(() => cancellation.cancel(`timed out after ${input.timeoutMs}ms`));
  }
  const continueIfDue = runContinuation(input, { state, book, transcript, definitionCheck, tracing, stream }, deadline, meter);
  // A new run's first model call describes the agent, saving the marker of a local activity
  // (a billed action); a continued run, whose turns may be spent already, describes it first.
  const describesFirst = !input.carried && (input.turnCap === undefined || input.turnCap >= 1);
  const describing = describesFirst ? { describe: { trace: tracing.firstStep(new Date().toISOString()) } } : {};
  const learned = (described: AgentDescription, trace: string | undefined) => {
    prepared = described;
    tracing.began(trace);
    state.maxTurns = run.maxTurns();
  };
  const run: RunContext = {
    state,
    book,
    transcript,
    cancellation,
    prepared: () => prepared!,
    describing: () => (prepared ? {} : describing),
    learned: (reply) => {
      if (!prepared && reply.described) learned(reply.described, reply.trace);
    },
    deferralRefused: input.deferralRefused,
    definitionCheck,
    steps,
    continueIfDue,
    tracing,
    room,
    stream,
    // Before the first answer described the agent, only a sub-agent's cap bounds the turns (the first is always taken).
    maxTurns: () => Math.min(prepared?.maxTurns ?? Number.POSITIVE_INFINITY, input.turnCap ?? Number.POSITIVE_INFINITY),
    children,
    ...(input.parent ? { tellDecided: (record: DeferralRecord) => tellParentDecided(input.parent!.workflowId, input.agentId, record) } : {}),
  };

  return book.run(
    async () => {
      try {
        const result = await scope.run(async () => {
          if (!describesFirst) {
            // The step's span opens with the description (no command of its own).
            const described = await steps.describe({ agentId: input.agentId, trace: tracing.firstStep(new Date().toISOString()) });
            learned(described as AgentDescription, (described as DescribeAgentOutput).trace);
          }
          return loop(run);
        });
        tracing.end("completed", { turnsUsed: state.turnsUsed });
        stream.end("completed", state.messages);
        return result;
      } catch (err) {
        // Nothing is open after a continue-as-new or a park that failed: then this is a no-op.
        tracing.end(cancellation.requested() || isCancellation(err) ? "cancelled" : "failed", { turnsUsed: state.turnsUsed, ...failureType(err) });
        if (!(err instanceof ContinueAsNew)) stream.end(cancellation.requested() || isCancellation(err) ? "stopped" : "failed", state.messages);
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

/** Tells the run this one is a sub-agent of about a deferral's life. A parent that is gone is no one to tell. */
function tellParent(parentId: string, agentId: string, event: DeferralEvent, book: DeferralBook): void {
  const record = book.records.find(event.deferralId);
  const message: SubAgentDeferral = {
    agentId,
    deferralId: event.deferralId,
    status: event.type,
    expiresAt: event.expiresAt,
    ...(event.type === "deferred" && record?.schema ? { schema: record.schema } : {}),
    // A thread that called this run shows its request with its own (a run parent ignores them).
    ...(event.type === "deferred" && record?.approval ? { calls: record.approval.calls.map(({ toolCallId, toolName, arguments: args }) => ({ toolCallId, toolName, arguments: args })) } : {}),
  };
  getExternalWorkflowHandle(parentId).signal(subAgentDeferralSignal, message).catch(() => undefined);
}

/** Tells the run (or thread) this one is a sub-agent of which calls of its waiting request are decided so far. */
function tellParentDecided(parentId: string, agentId: string, record: DeferralRecord): void {
  if (record.status !== "deferred" || !record.approval) return;
  const message: SubAgentDeferral = {
    agentId,
    deferralId: record.id,
    status: "deferred",
    expiresAt: record.expiresAt,
    calls: record.approval.calls.map(({ toolCallId, toolName, arguments: args }) => ({ toolCallId, toolName, arguments: args })),
    decided: (record.approval.decided ?? []).map((d) => d.decision.toolCallId),
  };
  getExternalWorkflowHandle(parentId).signal(subAgentDeferralSignal, message).catch(() => undefined);
}

/** The error code a failed step's span is marked with. */
function failureType(err: unknown): { errorType?: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type ? { errorType: cause.type } : {};
}
