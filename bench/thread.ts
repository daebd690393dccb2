/**
 * "A 1,000-message thread": 500 turns (a user message and its answer each) through one
 * thread, against the agent-run baseline on the same server, model server and process.
 * Reports history bytes per message (over every run of the thread's continue-as-new
 * chain) and time per turn; then what streaming adds to history per turn.
 */
import { randomUUID } from "node:crypto";
import { Client, Connection } from "@temporalio/client";
import proto from "@temporalio/proto";
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { AgentClient, defineAgent, ThreadsClient } from "../src/index.js";
import { startScriptedModelServer, startTemporal, type ScriptStep } from "../src/testing/index.js";
import { bundleAgentWorkflows, createAgentWorker, openaiModel } from "../src/worker.js";
import { threadSnapshotQuery } from "../src/workflow.js";
import { median, progress, prompt, round, searchTool, toolLoop } from "./lib.js";

const { History, HistoryEvent } = proto.temporal.api.history.v1;
const { EventType } = proto.temporal.api.enums.v1;

const TURNS = 500;
const ANSWER_CHARS = 200;
const BASELINE_RUNS = 30;
const TOOL_LOOP_TURNS = 100;
const STREAM_TURNS = 8;
// Fixed usage: the scripted server would otherwise estimate it by scanning every request's thread.
const USAGE = { promptTokens: 100, completionTokens: 10 };

const answer = (n: number) => `Answer ${n}: ${"durable threads keep their history linear. ".repeat(8)}`.slice(0, ANSWER_CHARS);

export async function main(): Promise<Record<string, unknown>> {
  Runtime.install({ logger: new DefaultLogger("WARN") });
  const temporal = await startTemporal({ log: (line) => progress(`temporal: ${line}`) });
  const cleanup: Array<() => Promise<unknown>> = [() => temporal.stop()];
  try {
    const [connection, native, model, bundle] = await Promise.all([
      // Histories of a long thread can exceed grpc-js's 4 MB default receive size.
      Connection.connect({ address: temporal.address, channelArgs: { "grpc.max_receive_message_length": 256 * 1024 * 1024 } }),
      NativeConnection.connect({ address: temporal.address }),
      startScriptedModelServer(),
      bundleAgentWorkflows(),
    ]);
    cleanup.push(() => connection.close(), () => native.close(), () => model.close());
    const client = new Client({ connection, namespace: temporal.namespace });
    const agent = defineAgent({
      id: "bench-chat",
      model: "bench-model",
      system: "You answer briefly; you may search.",
      tools: [searchTool(ANSWER_CHARS).sdk],
      maxTurns: TOOL_LOOP_TURNS,
    });
    const taskQueue = `bench-thread-${randomUUID()}`;
    const worker = await createAgentWorker({
      connection: native,
      namespace: temporal.namespace,
      taskQueue,
      agents: [agent],
      model: openaiModel({ baseURL: model.url, apiKey: "bench" }),
      workflowBundle: bundle,
    });
    const running = worker.run();
    cleanup.push(async () => {
      worker.shutdown();
      await running;
    });
    const threads = new ThreadsClient({ client, taskQueue, agent });
    const agents = new AgentClient({ client, taskQueue });
    // Scripted requests keep whole threads; drop them so a long bench does not hoard memory.
    const forget = () => void model.requests.splice(0);

    // ---- the thread: 500 turns, 1,000 messages ----------------------------------------
    const first = prompt("thread bench");
    model.respond(first, (_req, turn): ScriptStep => ({ text: answer(turn), usage: USAGE }));
    const { threadId } = await threads.createThread({ prompt: first });
    await untilMessages(threads, threadId, 2);
    const turnMs: number[] = [];
    for (let turn = 1; turn < TURNS; turn++) {
      const startedAt = performance.now();
      await threads.sendMessage({ threadId, prompt: `question ${turn}` });
      await untilMessages(threads, threadId, 2 * (turn + 1));
      turnMs.push(performance.now() - startedAt);
      if (turn % 100 === 0) {
        progress(`thread: ${turn} turns, median ${round(median(turnMs))} ms/turn`);
        forget();
      }
    }
    model.assertNoFailures();
    const view = await threads.state({ threadId });
    const threadHistory = await chainStats(client, threadId);
    progress(`thread: ${view.messageCount} messages over ${threadHistory.runs} runs, ${kb(threadHistory.bytes)}`);

    // ---- the agent-run baseline ---------------------------------------------------------
    const runMs: number[] = [];
    for (let i = 0; i < BASELINE_RUNS; i++) {
      const conversation = prompt("run bench");
      model.script(conversation, [{ text: answer(0), usage: USAGE }]);
      const startedAt = performance.now();
      await agents.run(agent, { prompt: conversation });
      runMs.push(performance.now() - startedAt);
    }
    forget();
    const loop = prompt("run loop bench");
    model.respond(loop, toolLoop(TOOL_LOOP_TURNS));
    const loopId = `bench-run-${randomUUID()}`;
    await agents.run(agent, { prompt: loop, runId: loopId });
    forget();
    const loopHistory = await chainStats(client, loopId);
    // A prompt, then a model call and a tool result per turn but the last.
    const loopMessages = 1 + 2 * (TOOL_LOOP_TURNS - 1) + 1;
    progress(`agent run: ${round(median(runMs))} ms per one-turn run; ${TOOL_LOOP_TURNS}-turn run ${kb(loopHistory.bytes)}`);

    // ---- what streaming adds ------------------------------------------------------------
    const streamed = await streamingSample(threads, model, true);
    const unstreamed = await streamingSample(threads, model, false);
    const extraPerTurn = (streamed.bytes - unstreamed.bytes) / STREAM_TURNS;
    progress(`streaming: ${round(streamed.signals / STREAM_TURNS)} batches and ${kb(extraPerTurn)} more history per streamed turn`);

    const threadBytesPerMessage = threadHistory.bytes / view.messageCount;
    const runBytesPerMessage = loopHistory.bytes / loopMessages;
    const threadMsPerTurn = median(turnMs);
    const runMsPerTurn = median(runMs);
    return {
      bench: "thread",
      thread: {
        messages: view.messageCount,
        turns: TURNS,
        runs: threadHistory.runs,
        historyBytes: threadHistory.bytes,
        events: threadHistory.events,
        bytesPerMessage: Math.round(threadBytesPerMessage),
        msPerTurnMedian: round(threadMsPerTurn, 1),
        msPerTurnP90: round(nearestRank(turnMs, 90), 1),
        largest: threadHistory.byType.slice(0, 4),
      },
      agentRun: {
        oneTurnRunMsMedian: round(runMsPerTurn, 1),
        toolLoop: { turns: TOOL_LOOP_TURNS, messages: loopMessages, historyBytes: loopHistory.bytes, bytesPerMessage: Math.round(runBytesPerMessage) },
      },
      ratio: {
        msPerTurn: round(threadMsPerTurn / runMsPerTurn, 3),
        bytesPerMessage: round(threadBytesPerMessage / runBytesPerMessage, 3),
      },
      streaming: {
        turns: STREAM_TURNS,
        answerChars: streamed.answerChars,
        batchesPerTurn: round(streamed.signals / STREAM_TURNS, 1),
        extraBytesPerTurn: Math.round(extraPerTurn),
        bytesPerTurnStreamed: Math.round(streamed.bytes / STREAM_TURNS),
        bytesPerTurnUnstreamed: Math.round(unstreamed.bytes / STREAM_TURNS),
      },
    };
  } finally {
    for (const step of cleanup.reverse()) await step().catch((err: unknown) => progress(`cleanup: ${String(err)}`));
  }
}

/** Polls the thread (a query, no history) until its transcript has `count` messages and nothing runs. */
async function untilMessages(threads: ThreadsClient, threadId: string, count: number): Promise<void> {
  const handle = threads.workflowHandle(threadId);
  for (;;) {
    const snapshot = await handle.query(threadSnapshotQuery);
    if (snapshot.messageCount >= count && snapshot.status === "completed" && snapshot.queued.length === 0) return;
    if (snapshot.status === "failed") throw new Error(`the bench thread failed: ${snapshot.lastError?.message}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** A thread whose answers stream for about two seconds each, with streaming on or off. */
async function streamingSample(threads: ThreadsClient, model: Awaited<ReturnType<typeof startScriptedModelServer>>, stream: boolean) {
  const long = answer(0).repeat(3);
  const first = prompt(`stream bench ${stream}`);
  model.respond(first, () => ({ text: long, chunkDelay: 25, usage: USAGE }));
  const { threadId } = await threads.createThread({ prompt: first, stream });
  await untilMessages(threads, threadId, 2);
  for (let turn = 1; turn < STREAM_TURNS; turn++) {
    await threads.sendMessage({ threadId, prompt: `more ${turn}` });
    await untilMessages(threads, threadId, 2 * (turn + 1));
  }
  const stats = await chainStats(threads.client, threadId);
  const signals = stats.byType.find((t) => t.type === "WORKFLOW_EXECUTION_SIGNALED")?.count ?? 0;
  return { bytes: stats.bytes, signals, answerChars: long.length };
}

/** History size of a workflow over every run of its continue-as-new chain. */
async function chainStats(client: Client, workflowId: string) {
  const description = await client.workflow.getHandle(workflowId).describe();
  let runId: string | undefined = description.raw.workflowExecutionInfo?.firstRunId ?? description.runId;
  let bytes = 0;
  let events = 0;
  let runs = 0;
  const byType = new Map<string, { type: string; count: number; bytes: number }>();
  while (runId) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    runs += 1;
    bytes += History.encode(history).finish().length;
    for (const event of history.events ?? []) {
      events += 1;
      const type = (EventType[event.eventType ?? 0] ?? String(event.eventType)).replace(/^EVENT_TYPE_/, "");
      const entry = byType.get(type) ?? { type, count: 0, bytes: 0 };
      entry.count += 1;
      entry.bytes += HistoryEvent.encode(event).finish().length;
      byType.set(type, entry);
    }
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return { bytes, events, runs, byType: [...byType.values()].sort((a, b) => b.bytes - a.bytes) };
}

function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
