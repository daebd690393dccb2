import { Context } from "@temporalio/activity";
import type { AgentToolCallInput } from "../src/core/contracts.js";
import type { JsonValue } from "../src/core/json.js";
import { jsonBytes } from "../src/core/payload-size.js";
import type { SubAgentToolProgress, ToolProgressUpdate } from "../src/core/thread-contracts.js";
import { checkedProgress, MAX_PROGRESS_BYTES, PROGRESS_INTERVAL_MS } from "../src/core/tool-progress.js";
import type { StreamSettings } from "./settings.js";
import type { PublishContext, StreamTransport } from "../src/stream/transport.js";

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
  const sender = progressSender(transport, input.workflowId, runId === undefined ? {} : { runId });
  // A thread's sub-agent: the thread's readers see its tools' progress as the calling call's, throttled apart.
  const join = input.host === "run" ? input.joinStream : undefined;
  const joined = join ? progressSender(transport, join.threadId, { runId: join.runId }) : undefined;
  return {
    report(data, toolName) {
      const value = checked(data, toolName);
      const at = new Date().toISOString();
      sender.send({ seq: 0, type: "tool-progress", toolCallId: input.toolCall.id, toolName, data: value, at });
      if (join && joined) joined.send({ seq: 0, type: "tool-progress", toolCallId: join.toolCallId, toolName: join.toolName, data: subAgentToolData(input, toolName, value) as never, at });
    },
    close: () => {
      sender.close();
      joined?.close();
    },
  };
}

/** Room kept below `MAX_PROGRESS_BYTES` for the entry's other fields (as a sub-agent's answer keeps). */
const ENTRY_ROOM = 1024;

/** What a thread's readers get of a sub-agent's tool report: marked with the sub-agent, and never over the entry's bound. */
function subAgentToolData(input: AgentToolCallInput, toolName: string, data: JsonValue): SubAgentToolProgress {
  const marked: SubAgentToolProgress = { agent: input.agentId, runId: input.workflowId, tool: { toolCallId: input.toolCall.id, toolName }, data };
  return jsonBytes(marked, MAX_PROGRESS_BYTES) <= MAX_PROGRESS_BYTES - ENTRY_ROOM ? marked : { ...marked, data: null, truncated: true };
}

/** Progress entries of one call on their way to readers: the latest, at most once per interval. */
export interface ProgressSender {
  send(entry: ToolProgressUpdate): void;
  /** Nothing more is sent; what waits is dropped, or, with `flush`, sent now. */
  close(options?: { flush?: boolean }): void;
}

/**
 * Publishes `workflowId`'s progress entries on `transport`, throttled as `ctx.progress` is
 * (the first at once, later ones at most every `PROGRESS_INTERVAL_MS`, the latest replacing
 * what waits, never while a publish is in flight). A lost entry only delays what readers see.
 */
export function progressSender(transport: StreamTransport, workflowId: string, context: PublishContext): ProgressSender {
  let waiting: ToolProgressUpdate | undefined;
  let timer: NodeJS.Timeout | undefined;
  let inFlight = false;
  let lastSentAt = 0;
  let closed = false;
  const publish = (entry: ToolProgressUpdate) =>
    transport
      .publish(workflowId, { after: 0, entries: [entry] }, context)
      // A lost entry only delays what readers see: the next report, or the result, follows.
      .catch(() => undefined);
  const send = () => {
    timer = undefined;
    if (closed || !waiting || inFlight) return;
    const entry = waiting;
    waiting = undefined;
    inFlight = true;
    lastSentAt = Date.now();
    void publish(entry).finally(() => {
      inFlight = false;
      schedule();
    });
  };
  const schedule = () => {
    if (closed || !waiting || timer || inFlight) return;
    timer = setTimeout(send, Math.max(0, lastSentAt + PROGRESS_INTERVAL_MS - Date.now()));
  };
  return {
    send(entry) {
      if (closed) return;
      waiting = entry;
      schedule();
    },
    close({ flush = false } = {}) {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      if (flush && waiting) void publish(waiting);
      waiting = undefined;
    },
  };
}
