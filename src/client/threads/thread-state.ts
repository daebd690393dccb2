import type { temporal } from "@temporalio/proto";
import { ThreadNotFoundError, ThreadTerminatedError } from "../../core/errors/threads.js";
import { threadSnapshotQuery } from "../../core/wire/thread.js";
import { retryStateOf } from "./retry-state.js";
import type { ThreadAccess } from "./thread-access.js";
import type { ThreadTarget, ThreadView } from "./thread-types.js";

/** `ThreadsClient.state`: the thread's snapshot, with the retry state of the calls Temporal holds pending. */
export async function threadState(access: ThreadAccess, options: ThreadTarget): Promise<ThreadView> {
  await access.check(options, "thread.get");
  const handle = access.handle(options.threadId);
  const [snapshot, description] = await Promise.all([
    access.query(options.threadId, () => handle.query(threadSnapshotQuery)),
    access.query(options.threadId, () => handle.describe()),
  ]);
  if (description.status.name === "TERMINATED" || description.status.name === "TIMED_OUT") {
    throw new ThreadTerminatedError({ threadId: options.threadId, closedAs: description.status.name === "TIMED_OUT" ? "timed-out" : "terminated" });
  }
  if (snapshot.deleted || description.status.name !== "RUNNING") throw new ThreadNotFoundError({ threadId: options.threadId });
  const pending = new Map((description.raw.pendingActivities ?? []).map((p) => [p.activityId ?? "", p]));
  const retry = (activityId: string | undefined) => {
    const info = activityId ? pending.get(activityId) : undefined;
    return info ? retryStateOf(info as temporal.api.workflow.v1.IPendingActivityInfo, access.client) : undefined;
  };
  const { deleted: _deleted, modelCall, toolCalls, ...rest } = snapshot;
  const modelInfo = modelCall ? pending.get(modelCall.activityId) : undefined;
  const modelRetry = retry(modelCall?.activityId);
  return {
    ...rest,
    toolCalls: toolCalls.map((call) => {
      const state = retry(call.activityId);
      return state ? { ...call, retry: { ...state, maxAttempts: call.maxAttempts ?? state.maxAttempts } } : call;
    }),
    ...(modelCall
      ? { modelCall: { messageId: modelCall.messageId, attempt: modelInfo?.attempt ?? 1, ...(modelRetry ? { retry: modelRetry } : {}) } }
      : {}),
  };
}
