import { isGrpcCancelledError, isGrpcDeadlineError, WorkflowNotFoundError, type Client } from "@temporalio/client";
import { WorkerUnavailableError } from "../core/errors/runs.js";

/** The default of the clients' `queryTimeout`. */
export const DEFAULT_QUERY_TIMEOUT_MS = 5_000;

/** How long a read that a worker must answer may wait, and what to name when it does not come. */
export interface QueryDeadline {
  timeoutMs: number;
  /** The client's task queue: named when the workflow's own cannot be read. */
  taskQueue?: string;
}

// temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW: queries are workflow tasks.
const WORKFLOW_TASK_QUEUE = 1;
// How much earlier than the client's deadline the server's may pass.
const CLOCK_SLACK_MS = 50;
// The diagnosis reads only the server (no worker): it answers at once or not at all.
const DIAGNOSIS_MS = 3_000;
/**
 * Timeouts a read waits, in all, while workers do poll the task queue: they are busy (a
 * long replay, a burst of reads), or stopped a moment ago (the server lists pollers for a
 * while after their last poll).
 */
const BUSY_TIMEOUTS = 3;

/**
 * Runs `call`, a read only a worker can answer (a workflow query, made on `client`'s
 * connection), within `deadline`. Without it Temporal holds a query for a task queue no
 * worker polls about 30 s and then fails with a bare ServiceError. Here, when the timeout
 * passes, the server says whether any worker polled the workflow's task queue lately:
 * none, and the read fails at once with AI1015 naming the queue; some (or the server, as
 * overloaded as its workers, does not say), and it is asked again, up to `BUSY_TIMEOUTS`
 * timeouts in all, before AI1015. Other failures (not found, a
 * refused query) pass through unchanged. Queries change nothing, so asking again is safe.
 */
export async function boundedQuery<T>(client: Client, deadline: QueryDeadline, workflowId: string, call: () => Promise<T>): Promise<T> {
  const startedAt = Date.now();
  for (let attempt = 1; ; attempt++) {
    const deadlineAt = Date.now() + deadline.timeoutMs;
    try {
      return await client.withDeadline(deadlineAt, call);
    } catch (err) {
      // The server resets a stream whose deadline passed (CANCELLED), which may be read
      // before the client's own DEADLINE_EXCEEDED fires.
      const timedOut = isGrpcDeadlineError(err) || (isGrpcCancelledError(err) && Date.now() >= deadlineAt - CLOCK_SLACK_MS);
      if (!timedOut) throw err;
    }
    const { taskQueue, pollers } = await taskQueueOf(client, deadline, workflowId);
    if (pollers !== 0 && attempt < BUSY_TIMEOUTS) continue;
    throw new WorkerUnavailableError({ taskQueue: taskQueue ?? "(unknown)", workflowId, waitedMs: Date.now() - startedAt, ...(pollers === undefined ? {} : { pollers }) });
  }
}

/**
 * AI1015 for `workflowId` when the server says no worker polled its task queue lately;
 * undefined when some did (busy, or about to take its task) or the server did not say. A
 * read of the server alone: what a wait asks when a workflow task is not taken for a while.
 */
export async function unservedError(client: Client, deadline: QueryDeadline, workflowId: string, waitedMs: number): Promise<WorkerUnavailableError | undefined> {
  const { taskQueue, pollers } = await taskQueueOf(client, deadline, workflowId);
  return pollers === 0 ? new WorkerUnavailableError({ taskQueue: taskQueue ?? "(unknown)", workflowId, waitedMs, pollers }) : undefined;
}

/** The workflow's task queue and how many workers polled it lately (unknown when the server did not say); throws when the workflow is gone. */
async function taskQueueOf(client: Client, deadline: QueryDeadline, workflowId: string): Promise<{ taskQueue?: string; pollers?: number }> {
  let taskQueue = deadline.taskQueue;
  try {
    return await client.withDeadline(Date.now() + DIAGNOSIS_MS, async () => {
      taskQueue = (await client.workflow.getHandle(workflowId).describe()).taskQueue;
      const { pollers } = await client.workflowService.describeTaskQueue({
        namespace: client.options.namespace,
        taskQueue: { name: taskQueue },
        taskQueueType: WORKFLOW_TASK_QUEUE,
      });
      return { taskQueue, pollers: pollers?.length ?? 0 };
    });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw err;
    // The server did not say either: as busy as the workers, it is no evidence that none runs.
    return taskQueue ? { taskQueue } : {};
  }
}
