import {
  allHandlersFinished,
  CancellationScope,
  CancelledFailure,
  condition,
  isCancellation,
  makeContinueAsNewFunc,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from "@temporalio/workflow";
import { MaxTurnsError } from "../src/core/errors/max-turns.js";
import { isDigest } from "../src/core/proof.js";
import { addUsage, type ToolCall } from "../src/core/messages.js";
import type { ThreadActivities, ThreadInput, ThreadPrepared } from "../src/core/thread-contracts.js";
import * as wire from "../src/core/wire/thread.js";
import * as runWire from "../src/core/wire/run.js";
import { ThreadApprovals } from "./thread-approvals.js";
import type { Approved } from "./run-approval.js";
import { ThreadState } from "./thread-state.js";
import { nextRunInput } from "./thread-carry.js";
import { ThreadControls } from "./thread-controls.js";
import { failureOf } from "./thread-failure.js";
import { ThreadInbox } from "./thread-inbox.js";
import { ThreadQueries } from "./thread-queries.js";
import { workflowThreadRuntime } from "./thread-runtime.js";
import { callOccurrence, fingerprint, needsAnswer, openToolCalls, toChat } from "../src/core/thread-transcript.js";
import { legacyOptions } from "./activity-options.js";
import { agentSteps, type AgentSteps } from "./agent-steps.js";
import { TurnTracing } from "./turn-trace.js";
import { ownEntry } from "../src/core/own.js";
import { jsonBytes, MAX_PAGE_BYTES } from "../src/core/payload-size.js";
import { MAX_CARRY_BYTES } from "../src/core/transcript-budget.js";
import { refuseTooManyCalls } from "./transcript-room.js";
import { deferralIdProblem, objectArgumentProblem, refuseMalformed, streamFlushProblem, transcriptRequestProblem } from "../src/core/request-shapes.js";

const { prepareThread } = proxyLocalActivities<ThreadActivities>(legacyOptions.threadPrepare);

type TurnEnd = "settled" | "rollover";

/** Marks threads whose model answers must fit the transcript's room when they land (see callModel). */
const TRANSCRIPT_BUDGET_PATCH = "durable-agents.transcript-budget";

/** Async calls registered from here on expect an answer-token digest (see runTools). */
const ANSWER_TOKENS_PATCH = "async-answer-tokens";

/**
 * From this patch on, the thread reads its history length only where a recorded event woke
 * it, never inside a `condition`. An update the server then leaves out of history (rejected,
 * or arriving as the run continues as new) still wakes the workflow live, in a task whose
 * events count; a condition reading the length could then roll over at a point replay never
 * reaches (TMPRL1100 on the next query of that run). Executions without the marker keep the
 * old waits, so their histories replay.
 */
const ROLLOVER_AT_EVENTS_PATCH = "durable-agents.rollover-at-events";

/**
 * A chat thread: one long-lived workflow with an inbox. Each message runs the agent loop
 * (model call → tools → model call …) as a turn; messages sent meanwhile queue up. The
 * thread continues as new when Temporal suggests it, carrying its transcript, inbox,
 * pending async calls and stream position. It ends only when deleted.
 */
export async function agentThread(input: ThreadInput): Promise<{ deleted: true }> {
  // A first turn starts here, before the handlers exist: a message sent right after createThread finds it running.
  const thread = new ThreadState(input, workflowThreadRuntime());
  const queries = new ThreadQueries(thread);
  const inbox = new ThreadInbox(thread);
  const controls = new ThreadControls(thread);
  const approvals = new ThreadApprovals(input.carried?.records);
  thread.approvals = approvals;
  // All registered before the first await: an update that came with the start sees the thread as it starts.
  setHandler(wire.threadSnapshotQuery, () => queries.snapshot());
  setHandler(wire.threadMessagesQuery, (page) => {
    refuseMalformed(wire.threadMessagesQuery.name, objectArgumentProblem(page));
    return queries.messages(page);
  });
  setHandler(wire.threadStreamQuery, (request) => {
    refuseMalformed(wire.threadStreamQuery.name, objectArgumentProblem(request));
    return queries.stream(request.fromSeq);
  });
  setHandler(wire.threadTranscriptQuery, (request) => {
    refuseMalformed(wire.threadTranscriptQuery.name, transcriptRequestProblem(request));
    return queries.transcript(request.length, request.offset === undefined ? undefined : { offset: request.offset, limit: request.limit! });
  });
  // A signal cannot be refused, and one that throws stays in history: garbage is dropped.
  // Handlers run only for what history records (accepted updates, signals), never validators.
  const recorded =
    <A extends unknown[], R>(handler: (...args: A) => R) =>
    (...args: A): R => {
      thread.recordedEvents++;
      return handler(...args);
    };
  setHandler(
    wire.threadStreamSignal,
    recorded((flush) => {
      if (streamFlushProblem(flush) === undefined) thread.stream.accept(flush);
    }),
  );
  setHandler(wire.threadSendUpdate, recorded((request) => inbox.send(request)), { validator: (request) => inbox.validate(request) });
  setHandler(wire.threadResumeUpdate, recorded((request) => controls.resume(request)), { validator: (request) => controls.validateResume(request) });
  setHandler(wire.threadStopUpdate, recorded(() => controls.stop()), { validator: () => thread.assertNotDeleted() });
  setHandler(wire.threadToolResultUpdate, recorded((request) => controls.toolResult(request)), { validator: (request) => controls.validateToolResult(request) });
  setHandler(wire.threadDeleteUpdate, recorded(() => controls.delete()), { validator: () => thread.assertNotDeleted() });
  // Approval requests of gated tools: decided, denied and read as a run's deferrals are.
  setHandler(runWire.resumeUpdate, recorded((request) => approvals.resume(request)), {
    validator: (request) => {
      thread.assertNotDeleted();
      approvals.book.resumes.validate(request);
    },
  });
  setHandler(runWire.denyUpdate, recorded((request) => approvals.book.deny(request)), { validator: (request) => approvals.book.validateDeny(request) });
  setHandler(runWire.deferralRecordQuery, (id) => {
    refuseMalformed(runWire.deferralRecordQuery.name, deferralIdProblem(id));
    return approvals.book.records.read(id);
  });
  setHandler(runWire.deferralQuery, (id) => {
    refuseMalformed(runWire.deferralQuery.name, deferralIdProblem(id));
    return approvals.book.records.view(id);
  });
  // From version 1 on a turn's steps go through the agent-step layer; older threads keep
  // scheduling the activities their histories hold.
  const turns = input.version !== undefined && input.version >= 1 ? new TurnTracing(workflowInfo().workflowId, workflowInfo().runId) : undefined;
  const steps = turns ? turns.steps(agentSteps()) : undefined;
  thread.rolloverInWaits = !patched(ROLLOVER_AT_EVENTS_PATCH);

  for (;;) {
    if (thread.deleteRequested) break;
    if (thread.turnActive()) {
      if ((await runTurn(thread, steps, turns)) === "rollover") await rollover(thread, input.version);
      continue;
    }
    if (inbox.canTakeNext()) {
      inbox.takeNext();
      continue;
    }
    if (thread.rolloverDue()) {
      await rollover(thread, input.version);
      continue;
    }
    // Rollover is checked above, each time a recorded event wakes the loop.
    const wake = thread.rolloverWake();
    await condition(() => thread.deleteRequested || thread.turnActive() || inbox.canTakeNext() || wake());
  }
  // Deleted: let the status hook and the delete update finish before the workflow closes.
  await thread.localChain;
  await condition(allHandlersFinished);
  return { deleted: true };
}

/**
 * Continues as new with everything the thread holds; returns only if a delete came first,
 * or if the carry would be over what Temporal accepts (it would terminate the thread): the
 * thread then goes on in this run.
 */
async function rollover(thread: ThreadState, version: number | undefined): Promise<void> {
  await thread.localChain;
  await condition(allHandlersFinished);
  if (thread.deleteRequested) return;
  const info = workflowInfo();
  const next = nextRunInput(thread, version);
  if (jsonBytes(next, MAX_CARRY_BYTES) > MAX_CARRY_BYTES) {
    thread.carryRefused = true;
    return;
  }
  await makeContinueAsNewFunc<typeof agentThread>({
    ...(info.memo ? { memo: info.memo } : {}),
    typedSearchAttributes: info.typedSearchAttributes,
  })(next);
}

/**
 * Runs the current turn until it completes, fails, is stopped, or should roll over.
 * Everything it needs is in the transcript, so it works the same for a fresh turn, a
 * resumed one, and one that continued as new halfway.
 */
async function runTurn(thread: ThreadState, steps: AgentSteps | undefined, turns: TurnTracing | undefined): Promise<TurnEnd> {
  const scope = new CancellationScope();
  thread.turnStarted(scope);
  turns?.begin(thread.agentId);
  try {
    const end = await scope.run(() => advance(thread, steps));
    turns?.end(end === "rollover" ? "continued" : "completed");
    return end;
  } catch (err) {
    // Stop and delete cancel the scope; they already set the state they want. A stopped
    // call reports its cancellation only once it has really ended, so a resume may already
    // have set the thread going again: the cancelled scope, not the status, says it was a stop.
    if (thread.deleteRequested || (isCancellation(err) && (thread.status === "stopped" || scope.consideredCancelled))) {
      turns?.end("cancelled");
      return "settled";
    }
    const failure = failureOf(err);
    turns?.end("failed", failure.code);
    thread.fail(failure);
    return "settled";
  } finally {
    thread.turnEnded();
  }
}

async function advance(thread: ThreadState, steps: AgentSteps | undefined): Promise<TurnEnd> {
  for (;;) {
    if (thread.rolloverDue()) return "rollover";
    if (!thread.prepared) {
      const knownHash = thread.lastPrepared?.hash;
      const ask = { agentId: thread.agentId, ...(knownHash ? { knownHash } : {}) };
      thread.prepare(await thread.local(() => (steps ? steps.describe(ask) : prepareThread(ask))));
    }
    const prepared = thread.prepared!;
    const open = openToolCalls(thread.messages);
    if (open.length > 0) {
      thread.setStatus("awaiting_tool_results");
      if ((await runTools(thread, prepared, open, steps)) === "rollover") return "rollover";
      continue;
    }
    if (needsAnswer(thread.messages)) {
      if (thread.turnSteps >= prepared.maxTurns) {
        throw new MaxTurnsError({ maxTurns: prepared.maxTurns, turnsUsed: thread.turnSteps, usage: thread.usage }).toFailure();
      }
      thread.setStatus("streaming");
      await callModel(thread, prepared, steps);
      continue;
    }
    thread.setStatus("completed");
    return "settled";
  }
}

async function callModel(thread: ThreadState, prepared: ThreadPrepared, steps: AgentSteps | undefined): Promise<void> {
  const messageId = uuid4();
  const activityId = `model-${messageId}`;
  const { threadCallModel } = proxyActivities<ThreadActivities>(legacyOptions.threadModel(prepared, activityId));
  thread.stream.begin(messageId);
  thread.modelCall = { activityId, messageId };
  let baseLength = thread.sentLength;
  let delta = thread.messages.slice(baseLength).map(toChat);
  // A delta too large for the activity's input (a seeded transcript, big async results) is
  // not sent: the worker, whose copy then falls short, reads the transcript by query a page at a time.
  if (jsonBytes(delta, MAX_PAGE_BYTES) > MAX_PAGE_BYTES && patched("durable-agents.delta-by-query")) {
    baseLength = thread.messages.length;
    delta = [];
  }
  const tail = thread.messages[baseLength - 1];
  const call = {
    agentId: thread.agentId,
    baseLength,
    ...(tail ? { baseTail: fingerprint(toChat(tail)) } : {}),
    delta,
    ...(thread.principal ? { principal: thread.principal } : {}),
  };
  const reply = steps
    ? await steps.callModel(
        {
          ...call,
          host: "thread",
          workflowId: thread.threadId,
          transcriptId: thread.firstRunId,
          epoch: 0,
          ...(thread.streamEnabled ? { streamId: messageId } : {}),
          room: thread.room.forAnswer(),
          gate: { deferralId: thread.approvals?.book.nextDeferralId() ?? "", firstRunId: thread.firstRunId },
        },
        activityId,
        thread.turnSteps + 1,
      )
    : await threadCallModel({ ...call, threadId: thread.threadId, firstRunId: thread.firstRunId, streamId: messageId, stream: thread.streamEnabled });
  // The call waits for a stop to reach it; an answer that came in anyway is not the stopped turn's.
  if (steps && CancellationScope.current().consideredCancelled) throw new CancelledFailure("the turn was stopped");
  // Checked where the state lives too: the worker refuses such answers first, but messages
  // queued while the model wrote may have taken the room it was given.
  refuseTooManyCalls(thread.agentId, prepared.maxToolCalls, reply.message.tool_calls?.length ?? 0, thread.principal);
  if (patched(TRANSCRIPT_BUDGET_PATCH)) thread.room.refuseUnlessFits(reply.message, "the model's answer", { answerFollows: false });
  thread.modelCall = undefined;
  thread.lastGate = reply.gate;
  thread.turnSteps += 1;
  thread.modelCalls += 1;
  thread.usage = addUsage(thread.usage, reply.usage);
  thread.append(reply.message, messageId);
  // The worker cached its own answer too: the next call need not send it back.
  thread.sentLength = thread.messages.length;
}

/**
 * Runs the open calls of the turn: sync tools to their result, async tools' callbacks to
 * their end. Returns once every call has a result, or early to roll over while only
 * async results are awaited (nothing runs then, and the calls are carried).
 */
async function runTools(thread: ThreadState, prepared: ThreadPrepared, open: ToolCall[], steps: AgentSteps | undefined): Promise<TurnEnd | "done"> {
  const failures: unknown[] = [];
  const batch = new CancellationScope();
  const started: Array<Promise<void>> = [];
  // Calls of gated tools wait for a person's decision before anything of theirs runs.
  const gated = steps && thread.approvals ? thread.approvals.gated(thread, prepared, open, thread.lastGate) : [];
  // The sync calls starting now share the room left for results; each share stays reserved until its result lands.
  const starting = open.filter(
    (call) => !gated.includes(call) && !thread.running.has(call.id) && !thread.held.has(call.id) && !ownEntry(prepared.tools, call.function.name)?.async && !thread.asyncCalls.has(call.id),
  );
  const share = steps ? thread.room.share(starting.length) : undefined;
  if (gated.length > 0) {
    const approved = (call: ToolCall, decision: Approved) => runCall(thread, prepared, call, ownEntry(prepared.tools, call.function.name), steps, thread.room.share(gated.length), decision);
    started.push(batch.run(() => thread.approvals!.decide(thread, prepared, gated, thread.lastGate, approved)).catch((err: unknown) => void failures.push(err)));
  }
  for (const call of open) {
    if (gated.includes(call) || thread.running.has(call.id) || thread.held.has(call.id)) continue;
    const spec = ownEntry(prepared.tools, call.function.name);
    const asyncState = thread.asyncCalls.get(call.id);
    if (spec?.async || asyncState) {
      if (asyncState?.callbackDone) continue;
      // Registered before anything awaits, so a result arriving early is recognised. The patch
      // marker is what tells, on replay, a call this code registered (its answers need the
      // answer token, even before the digest arrives) from one older code did.
      const digestExpected = asyncState?.digestExpected ?? (patched(ANSWER_TOKENS_PATCH) ? (true as const) : undefined);
      thread.asyncCalls.set(call.id, { toolCallId: call.id, name: call.function.name, callbackDone: false, ...(digestExpected ? { digestExpected } : {}) });
    }
    started.push(batch.run(() => runCall(thread, prepared, call, spec, steps, share)).catch((err: unknown) => void failures.push(err)));
  }
  const allAnswered = () => openToolCalls(thread.messages).length === 0;
  // Once only async answers are awaited (they may take days), roll over when due: judged
  // first in the activation that ended the last running call, then at each wake-up.
  for (let wake = () => true; ; wake = thread.rolloverWake()) {
    await condition(() => failures.length > 0 || allAnswered() || (thread.running.size === 0 && wake()));
    if (failures.length > 0 || allAnswered() || thread.rolloverDue()) break;
  }
  if (failures.length > 0) {
    batch.cancel();
    await Promise.all(started);
    throw failures[0];
  }
  return allAnswered() ? "done" : "rollover";
}

async function runCall(
  thread: ThreadState,
  prepared: ThreadPrepared,
  call: ToolCall,
  spec: ThreadPrepared["tools"][string] | undefined,
  steps: AgentSteps | undefined,
  share: number | undefined,
  approved?: Approved,
) {
  const kind = thread.asyncCalls.has(call.id) ? "async" : "sync";
  const activityId = `tool-${call.id}-${uuid4().slice(0, 8)}`;
  const maxAttempts = spec?.maxAttempts ?? 1;
  const activities = proxyActivities<ThreadActivities>(legacyOptions.threadTool(prepared, spec?.queue, activityId));
  const input = {
    agentId: thread.agentId,
    threadId: thread.threadId,
    taskQueue: workflowInfo().taskQueue,
    toolCall: call,
    ...(thread.principal ? { principal: thread.principal } : {}),
  };
  const { threadId, ...rest } = input;
  const occurrence = callOccurrence(thread.messages, call.id);
  const stepCall = { ...rest, host: "thread" as const, workflowId: threadId, ...(occurrence > 1 ? { occurrence } : {}) };
  thread.running.set(call.id, { activityId, kind, maxAttempts });
  try {
    if (kind === "sync") {
      const reserved = share ?? 0;
      thread.reservedBytes += reserved;
      let out;
      try {
        out = steps
          ? await steps.callTool({ ...stepCall, ...(share !== undefined ? { maxResultBytes: share } : {}), ...(approved ? { approved } : {}) }, activityId)
          : await activities.threadCallTool(input);
      } finally {
        thread.reservedBytes -= reserved;
      }
      if ("content" in out) thread.answer(call.id, out.content);
      return;
    }
    const firstRunId = thread.asyncCalls.get(call.id)?.digestExpected ? { firstRunId: thread.firstRunId } : {};
    const out = steps
      ? await steps.callTool({ ...stepCall, start: true, ...firstRunId }, activityId)
      : await activities.threadStartAsyncTool({ ...input, ...firstRunId });
    const state = thread.asyncCalls.get(call.id);
    if ("started" in out && out.started) {
      if (state) {
        state.callbackDone = true;
        if (isDigest(out.digest)) state.digest = out.digest;
      }
      // A worker older than answer tokens ran the callback: nobody holds a token this call
      // would accept, so the model hears it failed rather than the thread waiting forever.
      if (state?.digestExpected && state.digest === undefined) {
        thread.answer(call.id, `Error: "${call.function.name}" could not be started: its worker handed out no answer token (upgrade the worker that runs its callback).`);
      }
    } else if ("content" in out) {
      thread.answer(call.id, out.content);
    }
  } finally {
    // A stopped call may end after the next turn started it again: leave that one's entry alone.
    if (thread.running.get(call.id)?.activityId === activityId) thread.running.delete(call.id);
  }
}
