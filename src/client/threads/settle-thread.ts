import type { Client } from "@temporalio/client";
import { ThreadNotFoundError, ThreadTerminatedError } from "../../core/errors/threads.js";
import type { ThreadStatus } from "../../core/thread-contracts.js";
import { threadSnapshotQuery } from "../../core/wire/thread.js";
import { currentDetails } from "../history-watch.js";
import { WorkFollow } from "../work-follow.js";
import { unservedError } from "../bounded-query.js";
import { parseStatusLine } from "../../core/status-line.js";
import { threadState } from "./thread-state.js";
import type { ThreadAccess } from "./thread-access.js";
import type { ThreadSettledOptions, ThreadTarget, ThreadView } from "./thread-types.js";

/** The activities of a turn at work (workflows/shared/agent-steps.ts): while one is pending the thread is not at rest. */
const TURN_ACTIVITIES = new Set(["callAgentModel", "callAgentTool"]);

/**
 * `ThreadsClient.settled`: waits until nothing runs, reading the thread's state
 * only when its history moved and its status line says it may be at rest.
 */
export async function settleThread(access: ThreadAccess, options: ThreadTarget & ThreadSettledOptions): Promise<ThreadView> {
  await access.check(options, "thread.get");
  const { threadId } = options;
  options.signal?.throwIfAborted();
  // One read held open per wait at most (a namespace's long-polls are bounded): the follow
  // below also says when the thread closed (terminated, timed out, deleted), which would
  // otherwise answer its last state forever.
  const polling = new AbortController();
  const signal = options.signal ? AbortSignal.any([polling.signal, options.signal]) : polling.signal;
  const givenUp = options.signal ? abortOf(options.signal) : undefined;
  const until = <T>(read: Promise<T>): Promise<T> => (givenUp ? Promise.race([read, givenUp.aborted]) : read);
  try {
    // Queries are billed actions (or a busy worker's activations); describes and history
    // reads are not. The state is queried only when the history moved and nothing is under
    // way (no workflow task, no model or tool call), and then the status line says the
    // thread may be at rest (a message queued behind a finished turn is what the query
    // still rules out). Between looks the history is long-polled: WorkFollow.
    // A workflow task no worker takes within the reads' timeout: AI1015 if none polls its
    // queue (the server says so alone), else a busy worker, waited for.
    const follow = new WorkFollow(access.client, threadId, TURN_ACTIVITIES, signal, access.reads.timeoutMs);
    const startedAt = Date.now();
    for (;;) {
      const { moved, running, stalled, closed } = await until(access.read(threadId, () => follow.next()));
      if (closed) throw await until(closedError(access.client, threadId));
      if (stalled) {
        const unserved = await until(access.read(threadId, () => unservedError(access.client, access.reads, threadId, Date.now() - startedAt)));
        if (unserved) throw unserved;
      }
      if (!moved || running) continue;
      const text = await until(access.query(threadId, () => currentDetails(access.client, threadId)));
      const line = text === undefined ? undefined : parseStatusLine(text);
      // A line that counts the queue settles the question alone: one read, the answer's.
      if (line?.queued !== undefined) {
        if (!line.active && (line.queued === 0 || /^(failed|stopped)\b/.test(line.text))) return await until(threadState(access, options));
      } else if (line === undefined || !line.active) {
        const snapshot = await until(access.query(threadId, () => access.handle(threadId).query(threadSnapshotQuery)));
        if (snapshot.deleted) throw new ThreadNotFoundError({ threadId });
        const halted = snapshot.status === "stopped" || snapshot.status === "failed";
        // Not at rest after all (a queued message): the turn it starts moves the history again.
        if (!isActive(snapshot.status) && (snapshot.queued.length === 0 || halted)) return await until(threadState(access, options));
      }
    }
  } finally {
    polling.abort();
    givenUp?.dispose();
  }
}

/** Rejects with the signal's reason once it aborts; `dispose` stops listening (a caller may pass one signal to many waits). */
function abortOf(signal: AbortSignal): { aborted: Promise<never>; dispose(): void } {
  let listener: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    listener = () => reject(signal.reason);
    signal.addEventListener("abort", listener, { once: true });
  });
  aborted.catch(() => undefined);
  return { aborted, dispose: () => signal.removeEventListener("abort", listener!) };
}

/**
 * How the thread's workflow closed, from its last event (a read of history, free): AI1029
 * when Temporal terminated it (with the operator's reason) or it timed out, AI1020 when it
 * ended otherwise (deleted).
 */
async function closedError(client: Client, threadId: string): Promise<Error> {
  const page = await client.workflowService
    .getWorkflowExecutionHistoryReverse({ namespace: client.options.namespace, execution: { workflowId: threadId }, maximumPageSize: 1 })
    .catch(() => undefined);
  const last = page?.history?.events?.[0];
  const terminated = last?.workflowExecutionTerminatedEventAttributes;
  if (terminated) return new ThreadTerminatedError({ threadId, closedAs: "terminated", ...(terminated.reason ? { reason: terminated.reason } : {}) });
  if (last?.workflowExecutionTimedOutEventAttributes) return new ThreadTerminatedError({ threadId, closedAs: "timed-out" });
  return new ThreadNotFoundError({ threadId });
}

function isActive(status: ThreadStatus): boolean {
  return status === "streaming" || status === "awaiting_tool_results";
}

/**
 * Whether a thread whose status line (the workflow's current details, see the thread's
 * status text in workflows/) reads `line` may be at rest: idle, completed, failed or
 * stopped. Anything else (a turn or a tool running, a call awaiting its answer or an
 * approval) is not; a line this does not know is checked with a query.
 */