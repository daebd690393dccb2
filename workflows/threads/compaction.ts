import { isCancellation, proxyActivities, uuid4, workflowInfo } from "@temporalio/workflow";
import { compactionCut, compactionDue, isSummary, summaryMessage, type SummarizeOutput } from "../../src/core/compaction.js";
import { CompactionFailedError } from "../../src/core/errors/threads.js";
import { jsonBytes } from "../../src/core/payload-size.js";
import type { ThreadActivities, ThreadMessage, ThreadPrepared } from "../../src/core/thread-contracts.js";
import { toChat } from "../../src/core/thread-transcript.js";
import { modelCallOptions } from "../shared/activity-options.js";
import { failureOf } from "./failure.js";
import type { ThreadState } from "./state.js";

/**
 * Before a model call: when the agent's threads compact and the transcript has passed its
 * plan's room share or token budget, the older turns are replaced by one summary message,
 * written by the `summarizeTranscript` activity (whose input, in this run's history, keeps
 * the originals: `thread.archive` says where). Without `compaction` in the agent's
 * description it schedules nothing, so threads without it replay as before. A failed or
 * refused summary changes nothing: the turn goes on with the whole transcript, and the
 * thread tries again next turn (AI1031 in `compactionError`).
 */
export function compactIfDue(thread: ThreadState, prepared: ThreadPrepared): Promise<void> | undefined {
  const plan = prepared.compaction;
  // Undefined, not a resolved promise, when nothing is due: an await would let the status
  // hook's local activity be scheduled before the model call, against recorded histories.
  if (!plan || thread.compactionPaused) return undefined;
  const bytesBefore = thread.usedBytes();
  if (!compactionDue(plan, bytesBefore)) return undefined;
  const busy = new Set([...thread.asyncCalls.keys(), ...thread.held.keys(), ...thread.running.keys()]);
  const cut = compactionCut(thread.messages.map(toChat), plan.keepTurns, busy);
  if (cut === 0) return undefined;
  return compact(thread, prepared, cut, bytesBefore);
}

async function compact(thread: ThreadState, prepared: ThreadPrepared, cut: number, bytesBefore: number): Promise<void> {
  const replaced = thread.messages.slice(0, cut);
  const previousSummary = isSummary(replaced[0]);
  const replacesBytes = jsonBytes(replaced.map(toChat));
  const activityId = `compact-${uuid4()}`;
  const { summarizeTranscript } = proxyActivities<ThreadActivities>({ ...modelCallOptions(prepared, activityId), summary: `compact ${cut} messages` });
  let answer: SummarizeOutput;
  try {
    answer = await summarizeTranscript({
      agentId: thread.agentId,
      threadId: thread.threadId,
      messages: replaced,
      ...(previousSummary ? { previousSummary: true as const } : {}),
      replacesBytes,
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    thread.compactionFailed(failureOf(err));
    return;
  }
  // Checked where the state lives too: the worker refuses such answers first.
  const text = typeof answer?.summary === "string" ? answer.summary.trim() : "";
  const message = summaryMessage(text);
  if (text === "" || jsonBytes(message) >= replacesBytes) {
    const reason = text === "" ? "empty" : "too-long";
    const error = new CompactionFailedError({ threadId: thread.threadId, reason, detail: `the summarizer's answer (${jsonBytes(message)} bytes) was refused` });
    thread.compactionFailed({ code: error.code, message: error.message });
    return;
  }
  const summary = { ...message, id: uuid4(), createdAt: thread.now() } as ThreadMessage;
  thread.compacted(cut, summary, { runId: workflowInfo().runId, activityId, from: previousSummary ? 1 : 0, count: cut - (previousSummary ? 1 : 0) }, bytesBefore);
}
