import { Context } from "@temporalio/activity";
import type { AgentToolCallInput } from "../src/core/contracts.js";
import type { ToolProgressUpdate } from "../src/core/thread-contracts.js";
import { checkedProgress, PROGRESS_INTERVAL_MS } from "../src/core/tool-progress.js";
import type { StreamSettings } from "./settings.js";

/** One tool call's `ctx.progress`: checks what the handler reports, and sends the latest at most once per interval. */
export interface ProgressReporter {
  report(data: unknown, toolName: string): void;
  /** The call is over: what waits is dropped (its result is the record) and nothing more is sent. */
  close(): void;
}

/**
 * Progress goes to readers only out of band, on the worker's stream transport: no signal,
 * no history, no billed action. Without one (no streaming, deltas by signal, or a thread
 * turn sent with `stream: false`) it is checked and then dropped. Throttled per call: the
 * first report is sent at once, later ones at most every `PROGRESS_INTERVAL_MS`, the latest
 * replacing what waits, and never while a publish is in flight: a handler that reports in a
 * tight loop holds one value and one timer, whatever the rate.
 */
/** Errors `ctx.progress()` threw for its data (AI1001, AI1016): the handler's mistake, which the model reads as the tool's error. */
const refusedProgress = new WeakSet<object>();

/** Whether `err` is `ctx.progress()` refusing its data, whoever rethrew it. */
export function isRefusedProgress(err: unknown): err is Error {
  return typeof err === "object" && err !== null && refusedProgress.has(err);
}

function checked(data: unknown, toolName: string) {
  try {
    return checkedProgress(data, toolName);
  } catch (err) {
    refusedProgress.add(err as object);
    throw err;
  }
}

export function progressReporter(input: AgentToolCallInput, stream: false | StreamSettings | undefined): ProgressReporter {
  const transport = stream && stream.transport !== "workflow" && !(input.host === "thread" && input.streamed === false) ? stream.transport : undefined;
  if (!transport) return { report: (data, toolName) => void checked(data, toolName), close: () => undefined };
  const runId = Context.current().info.workflowExecution?.runId;
  const context = runId === undefined ? {} : { runId };
  let waiting: ToolProgressUpdate | undefined;
  let timer: NodeJS.Timeout | undefined;
  let inFlight = false;
  let lastSentAt = 0;
  let closed = false;
  const send = () => {
    timer = undefined;
    if (closed || !waiting || inFlight) return;
    const entry = waiting;
    waiting = undefined;
    inFlight = true;
    lastSentAt = Date.now();
    transport
      .publish(input.workflowId, { after: 0, entries: [entry] }, context)
      // A lost entry only delays what readers see: the next report, or the result, follows.
      .catch(() => undefined)
      .finally(() => {
        inFlight = false;
        schedule();
      });
  };
  const schedule = () => {
    if (closed || !waiting || timer || inFlight) return;
    timer = setTimeout(send, Math.max(0, lastSentAt + PROGRESS_INTERVAL_MS - Date.now()));
  };
  return {
    report(data, toolName) {
      const value = checked(data, toolName);
      if (closed) return;
      waiting = { seq: 0, type: "tool-progress", toolCallId: input.toolCall.id, toolName, data: value, at: new Date().toISOString() };
      schedule();
    },
    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      waiting = undefined;
    },
  };
}
