import { handlePermissions } from "../approvals/permissions.js";
import { allHandlersFinished, condition, makeContinueAsNewFunc, setHandler, workflowInfo } from "@temporalio/workflow";
import { AGENT_THREAD_VERSION, type ThreadInput } from "../../src/core/thread-contracts.js";
import * as wire from "../../src/core/wire/thread.js";
import * as runWire from "../../src/core/wire/run.js";
import { jsonBytes } from "../../src/core/payload-size.js";
import { MAX_CARRY_BYTES } from "../../src/core/transcript-budget.js";
import { deferralIdProblem, objectArgumentProblem, recordsPageProblem, refuseMalformed, streamFlushProblem, transcriptRequestProblem } from "../../src/core/request-shapes.js";
import { agentSteps } from "../shared/agent-steps.js";
import { refuseOversizedDecision } from "../approvals/requests.js";
import { approvalRecordOf } from "../approvals/context.js";
import { ThreadApprovals } from "./approvals.js";
import { nextRunInput } from "./carry.js";
import { ThreadControls } from "./controls.js";
import { ThreadInbox } from "./inbox.js";
import { ThreadQueries } from "./queries.js";
import { workflowThreadRuntime } from "./runtime.js";
import { ThreadState } from "./state.js";
import { SubAgentRequests } from "./sub-agent-requests.js";
import { runTurn } from "./turn.js";
import { TurnTracing } from "./trace.js";
import { refuseUnknownVersion } from "../shared/input-version.js";

/**
 * A chat thread: one long-lived workflow with an inbox. Each message runs the agent loop
 * (model call → tools → model call …) as a turn; messages sent meanwhile queue up. The
 * thread continues as new when Temporal suggests it, carrying its transcript, inbox,
 * pending async calls and stream position. It ends only when deleted.
 */
export async function agentThread(input: ThreadInput): Promise<{ deleted: true }> {
  refuseUnknownVersion("agentThread", input, AGENT_THREAD_VERSION);
  // A first turn starts here, before the handlers exist: a message sent right after createThread finds it running.
  const thread = new ThreadState(input, workflowThreadRuntime());
  const queries = new ThreadQueries(thread);
  const inbox = new ThreadInbox(thread);
  const controls = new ThreadControls(thread);
  const approvals = new ThreadApprovals(input.carried?.records);
  thread.approvals = approvals;
  const subAgentRequests = new SubAgentRequests();
  thread.subAgentRequests = subAgentRequests;
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
      thread.rollover.recordedEvents++;
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
      // Its edits and reasons join the transcript, which the thread carries: checked against its room as a message is.
      refuseOversizedDecision(approvals.book.records.find(request.deferralId), request.payload, thread.messages, thread.room, request.resumedBy);
    },
  });
  // A sub-agent of the turn parked on an approval request, or it moved on: shown with the thread's own.
  setHandler(runWire.subAgentDeferralSignal, recorded((message) => subAgentRequests.heard(thread, message)));
  setHandler(runWire.denyUpdate, recorded((request) => approvals.book.deny(request)), { validator: (request) => approvals.book.validateDeny(request) });
  handlePermissions(() => approvals.book.records.list, recorded);
  setHandler(runWire.deferralRecordQuery, (id) => {
    refuseMalformed(runWire.deferralRecordQuery.name, deferralIdProblem(id));
    return approvals.book.records.read(id);
  });
  setHandler(runWire.deferralRecordsQuery, (request) => {
    refuseMalformed(runWire.deferralRecordsQuery.name, recordsPageProblem(request));
    return approvals.book.records.page(request.offset);
  });
  setHandler(runWire.approvalRecordQuery, (id) => {
    refuseMalformed(runWire.approvalRecordQuery.name, deferralIdProblem(id));
    return approvalRecordOf(approvals.book.records, thread.messages, id);
  });
  setHandler(runWire.deferralQuery, (id) => {
    refuseMalformed(runWire.deferralQuery.name, deferralIdProblem(id));
    return approvals.book.records.view(id);
  });
  const turns = new TurnTracing(workflowInfo().workflowId, workflowInfo().runId);
  const steps = turns.steps(agentSteps());

  for (;;) {
    if (thread.deleteRequested) break;
    if (thread.turnActive()) {
      if ((await runTurn(thread, steps, turns)) === "rollover") await rollover(thread);
      continue;
    }
    if (inbox.canTakeNext()) {
      inbox.takeNext();
      continue;
    }
    if (thread.rollover.due()) {
      await rollover(thread);
      continue;
    }
    // Rollover is checked above, each time a recorded event wakes the loop: an update the
    // server leaves out of history (refused, or arriving as the run continues as new) still
    // wakes the workflow live, and a wait reading the history length could then roll over at
    // a point replay never reaches.
    const wake = thread.rollover.wake();
    await condition(() => thread.deleteRequested || thread.turnActive() || inbox.canTakeNext() || wake());
  }
  // Deleted: let the status hook and the delete update finish before the workflow closes,
  // and the sub-agents the turn ran end their cancellation (denying what they wait on)
  // rather than be terminated with the thread.
  await thread.localChain;
  await condition(() => thread.subAgents.size === 0);
  await condition(allHandlersFinished);
  return { deleted: true };
}

/**
 * Continues as new with everything the thread holds; returns only if a delete came first,
 * or if the carry would be over what Temporal accepts (it would terminate the thread): the
 * thread then goes on in this run.
 */
async function rollover(thread: ThreadState): Promise<void> {
  await thread.localChain;
  // A stopped turn's sub-agent may still be ending its cancellation: the next run would not hear of it.
  await condition(() => thread.subAgents.size === 0);
  await condition(allHandlersFinished);
  if (thread.deleteRequested) return;
  const info = workflowInfo();
  const next = nextRunInput(thread);
  if (jsonBytes(next, MAX_CARRY_BYTES) > MAX_CARRY_BYTES) {
    thread.rollover.carryRefused = true;
    return;
  }
  await makeContinueAsNewFunc<typeof agentThread>({
    ...(info.memo ? { memo: info.memo } : {}),
    typedSearchAttributes: info.typedSearchAttributes,
  })(next);
}
