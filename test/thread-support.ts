/**
 * Thread test plumbing: a chat agent with sync, slow, async, deferring and failing tools,
 * what those tools saw, and a worker + ThreadsClient pair on a fresh task queue.
 */
import { Worker } from "@temporalio/worker";
import { z } from "zod";
import { defineAgent, defineTool, defineAsyncTool, ThreadsClient, type StreamUpdate, type ThreadStatusChange } from "../src/index.js";
import type { AuthorizeHook } from "../src/index.js";
import { SECRET, type Harness, type WorkerOverrides } from "./harness.js";

/** What the tools below saw, in order. */
export const seen: Array<{ tool: string; threadId?: string; toolCallId: string; event: string; attempt: number; key?: string; principal?: string; token?: string }> = [];

/** The answer token askHuman's callback got for a call: what the link it sends would carry. */
export const answerTokenOf = (threadId: string, toolCallId: string): string =>
  seen.find((s) => s.tool === "askHuman" && s.threadId === threadId && s.toolCallId === toolCallId)!.token!;

const abortOf = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

export const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up",
  input: z.object({ word: z.string() }),
  handler: ({ word }, ctx) => {
    seen.push({ tool: "lookup", threadId: ctx.threadId, toolCallId: ctx.toolCallId, event: "ran", attempt: ctx.attempt, principal: ctx.principal?.id });
    return `${word} means ${word.length} letters`;
  },
});

/** Threads whose running slowTask should finish now (see `release`). */
const released = new Map<string, () => void>();
const releasedOf = (threadId: string) => new Promise<void>((resolve) => released.set(threadId, resolve));
/** Lets the slowTask running in this thread finish normally. */
export const release = (threadId: string) => released.get(threadId)?.();

/** Runs until its signal fires or the test releases it, the first time; returns at once afterwards. */
export const slowTask = defineTool({
  name: "slowTask",
  description: "A slow task that stops when cancelled",
  input: z.object({ job: z.string() }),
  async handler({ job }, ctx) {
    const earlier = seen.filter((s) => s.tool === "slowTask" && s.threadId === ctx.threadId && s.toolCallId === ctx.toolCallId && s.event === "started").length;
    seen.push({ tool: "slowTask", threadId: ctx.threadId, toolCallId: ctx.toolCallId, event: "started", attempt: ctx.attempt });
    if (earlier > 0) return `${job} done`;
    const outcome = await Promise.race([releasedOf(ctx.threadId!).then(() => "finished"), abortOf(ctx.signal).then(() => "aborted")]);
    seen.push({ tool: "slowTask", threadId: ctx.threadId, toolCallId: ctx.toolCallId, event: String(outcome), attempt: ctx.attempt });
    if (outcome === "aborted") throw new Error("aborted");
    return `${job} done slowly`;
  },
});

/** An async tool: the callback notifies (records); the answer comes through addToolResult. */
export const askHuman = defineAsyncTool({
  name: "askHuman",
  description: "Asks a human, who answers later",
  input: z.object({ question: z.string() }),
  callback: ({ question }, ctx) => {
    seen.push({
      tool: "askHuman",
      threadId: ctx.threadId,
      toolCallId: ctx.toolCallId,
      event: `asked: ${question}`,
      attempt: ctx.attempt,
      key: ctx.idempotencyKey,
      token: ctx.answerToken,
    });
  },
});

/** Defers on its first call in a thread (which fails the turn); answers plainly after that. */
export const deferrer = defineTool({
  name: "deferrer",
  description: "Tries to defer",
  input: z.object({}),
  handler: (_input, ctx) => {
    const earlier = seen.filter((s) => s.tool === "deferrer" && s.threadId === ctx.threadId).length;
    seen.push({ tool: "deferrer", threadId: ctx.threadId, toolCallId: ctx.toolCallId, event: "called", attempt: ctx.attempt });
    return earlier === 0 ? ctx.defer({ ttl: "1h" }) : "answered without deferring";
  },
});

export const chatAgent = defineAgent({
  id: "chat",
  model: "gpt-4.1-mini",
  system: "You chat and use tools.",
  tools: [lookup, slowTask, askHuman, deferrer],
  maxTurns: 4,
});

export interface ThreadRig {
  threads: ThreadsClient;
  taskQueue: string;
  changes: ThreadStatusChange[];
  /** The status transitions one thread went through, in order, as "from→to". */
  transitions(threadId: string): string[];
}

/** A worker for `agents` on a fresh queue, with a status hook that records, and a ThreadsClient for it. */
export async function threadRig(
  h: Harness,
  agents = [chatAgent],
  options: { authorize?: AuthorizeHook; overrides?: WorkerOverrides } = {},
): Promise<ThreadRig> {
  const changes: ThreadStatusChange[] = [];
  // Threads hang off the AgentClient the harness makes, as users reach them: `agents.threads`.
  const { taskQueue, agents: client } = await h.worker(agents, {
    // Async tools' callbacks get answer tokens minted with it.
    deferral: { secret: SECRET },
    ...options.overrides,
    threads: {
      onStatusChange: (change) => void changes.push(change),
      ...options.overrides?.threads,
    },
    client: { ...options.overrides?.client, threads: { agent: agents[0]!, ...(options.authorize ? { authorize: options.authorize } : {}) } },
  });
  const threads = client.threads;
  return {
    threads,
    taskQueue,
    changes,
    transitions: (threadId) => changes.filter((c) => c.threadId === threadId).map((c) => `${c.previousStatus}→${c.status}`),
  };
}

/** Every run of a thread, oldest first, following the continue-as-new chain. */
export async function runsOf(threads: ThreadsClient, threadId: string) {
  const runs: Array<{ runId: string; history: Awaited<ReturnType<ReturnType<ThreadsClient["workflowHandle"]>["fetchHistory"]>> }> = [];
  let runId: string | undefined = (await threads.workflowHandle(threadId).describe()).raw.workflowExecutionInfo?.firstRunId ?? undefined;
  while (runId) {
    const history = await threads.client.workflow.getHandle(threadId, runId).fetchHistory();
    runs.push({ runId, history });
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
}

/** Replays every run of these threads against the current workflow code; returns the failures. */
export async function replayFailures(h: Harness, threads: ThreadsClient, threadIds: string[]): Promise<string[]> {
  const histories = [];
  for (const threadId of threadIds) {
    for (const run of await runsOf(threads, threadId)) histories.push({ workflowId: threadId, history: run.history });
  }
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: h.bundle, replayName: "thread-replay" }, histories as never)) {
    if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
  }
  return failures;
}

/** The text a reader shows: each answer's deltas, dropped at a reset, replaced by the message once it is complete. */
export function render(updates: StreamUpdate[]): Map<string, string> {
  const text = new Map<string, string>();
  for (const u of updates) {
    if (u.type === "text-delta") text.set(u.messageId, (text.get(u.messageId) ?? "") + u.text);
    if (u.type === "reset") text.delete(u.messageId);
    if (u.type === "message" && u.message.role === "assistant") text.set(u.message.id, u.message.content ?? "");
  }
  return text;
}

/** The stream id each model call of the thread was scheduled with, in order (absent: the call does not stream). */
export async function modelCallStreamIds(threads: ThreadsClient, threadId: string): Promise<Array<string | undefined>> {
  const history = await threads.workflowHandle(threadId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name?.toLowerCase().includes("model"))
    .map((e) => (JSON.parse(Buffer.from(e.activityTaskScheduledEventAttributes!.input!.payloads![0]!.data!).toString("utf8")) as { streamId?: string }).streamId);
}
