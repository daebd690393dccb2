import { permissionsField } from "../approvals/permissions.js";
import { CancellationScope, CancelledFailure, uuid4 } from "@temporalio/workflow";
import { addUsage } from "../../src/core/messages.js";
import { jsonBytes, MAX_PAGE_BYTES } from "../../src/core/payload-size.js";
import type { ThreadPrepared } from "../../src/core/thread-contracts.js";
import { messageFingerprint } from "../../src/core/fingerprint.js";
import { toChat } from "../../src/core/thread-transcript.js";
import type { AgentSteps } from "../shared/agent-steps.js";
import type { ThreadState } from "./state.js";
import { refuseTooManyCalls } from "../shared/transcript-room.js";

/** One model call of a turn: the transcript the worker lacks goes out, the answer joins the transcript. */
export async function callModel(thread: ThreadState, prepared: ThreadPrepared, steps: AgentSteps): Promise<void> {
  const messageId = uuid4();
  const activityId = `model-${messageId}`;
  const streamSeq = thread.stream.begin(messageId);
  const streamed = thread.streamEnabled && thread.turnStreamed;
  thread.modelCall = { activityId, messageId };
  let baseLength = thread.sentLength;
  let delta = thread.messages.slice(baseLength).map(toChat);
  // A delta too large for the activity's input (a seeded transcript, big async results) is
  // not sent: the worker, whose copy then falls short, reads the transcript by query a page at a time.
  if (jsonBytes(delta, MAX_PAGE_BYTES) > MAX_PAGE_BYTES) {
    baseLength = thread.messages.length;
    delta = [];
  }
  const tail = thread.messages[baseLength - 1];
  const call = {
    agentId: thread.agentId,
    baseLength,
    ...(tail ? { baseTail: messageFingerprint(toChat(tail)) } : {}),
    delta,
    ...(thread.principal ? { principal: thread.principal } : {}),
  };
  const reply = await steps.callModel(
    {
      ...call,
      host: "thread",
      workflowId: thread.threadId,
      transcriptId: thread.firstRunId,
      // Each compaction rewrites the transcript: the worker's copy from before must not serve as a prefix.
      epoch: thread.archive.length,
      ...(streamed ? { streamId: messageId, streamSeq } : {}),
      room: thread.room.forAnswer(),
      gate: { deferralId: thread.approvals?.book.nextDeferralId() ?? "", firstRunId: thread.firstRunId },
      ...(thread.approvals ? permissionsField(thread.approvals.book.records.list) : {}),
      ...(thread.preparedUnverified ? { knownHash: prepared.hash } : {}),
    },
    activityId,
    thread.turnSteps + 1,
  );
  // The call waits for a stop to reach it; an answer that came in anyway is not the stopped turn's.
  if (CancellationScope.current().consideredCancelled) throw new CancelledFailure("the turn was stopped");
  // The agent changed since this run described it: this answer's checks, the rest of the turn and later turns use what it is now.
  if (reply.described) thread.prepare(reply.described);
  else thread.preparedUnverified = false;
  // Checked where the state lives too: the worker refuses such answers first, but messages
  // queued while the model wrote may have taken the room it was given.
  refuseTooManyCalls(thread.agentId, (reply.described ?? prepared).maxToolCalls, reply.message.tool_calls?.length ?? 0, thread.principal);
  thread.room.refuseUnlessFits(reply.message, "the model's answer", { answerFollows: false });
  thread.modelCall = undefined;
  thread.lastGate = reply.gate;
  thread.turnSteps += 1;
  thread.modelCalls += 1;
  thread.usage = addUsage(thread.usage, reply.usage);
  thread.append(reply.message, messageId);
  // The worker cached its own answer too: the next call need not send it back.
  thread.sentLength = thread.messages.length;
}
