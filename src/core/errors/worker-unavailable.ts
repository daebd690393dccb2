import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface WorkerUnavailableFields {
  /** The task queue the workflow's tasks go to. */
  taskQueue: string;
  /** The workflow (run or thread id) whose state was read. */
  workflowId: string;
  /** How long the read waited: the client's `queryTimeout`, a few times over when workers poll. */
  waitedMs: number;
  /** Workers the server saw polling the task queue lately: 0 means none runs. */
  pollers: number;
}

/**
 * AI1015: A read that only a worker can answer (a query of a run's or thread's state, a
 * deferral record) got no answer in time: no worker polls the task queue, or the ones that
 * do were too busy. Nothing was changed.
 */
export class WorkerUnavailableError extends DurableAgentsError<WorkerUnavailableFields> {
  static readonly code = ErrorCode.WorkerUnavailable;
  readonly code = ErrorCode.WorkerUnavailable;
  constructor(f: WorkerUnavailableFields) {
    const why =
      f.pollers === 0
        ? "no worker polls it. Start a worker on that task queue (createAgentWorker), then try again"
        : `${f.pollers} worker(s) polled it lately but none answered: they are busy or stuck, or stopped a moment ago. Try again, or raise the client's queryTimeout`;
    super(`[AI1015] No worker answered on task queue "${f.taskQueue}" within ${f.waitedMs} ms (reading "${f.workflowId}"): ${why}.`, f);
  }
}
