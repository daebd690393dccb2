/**
 * "A thread that lives for months": `turns` turns (1,000 by default; `npm run bench --
 * long-thread 10000`) of 4 KB user messages through one thread of an agent that compacts
 * (`compaction: { keepTurns: 4, maxInputTokens: 32_000 }`). Without compaction the thread
 * would be refused with AI1018 after about 300 turns. Reports history bytes per run (over
 * the continue-as-new chain), the model's input per turn (estimated tokens: JSON bytes / 4),
 * billed actions per turn (the dev server's counter, over the first and the last 100
 * turns, the bench's own polling queries left out), the compactions, and the median turn
 * latency over turns 51–150 against the last 100.
 */
import { Client } from "@temporalio/client";
import { defineAgent, jsonBytes, THREAD_TRANSCRIPT_BYTES } from "../src/index.js";
import { startTemporal } from "../src/testing/index.js";
import { threadSnapshotQuery } from "../src/workflow.js";
import { startAgentStack } from "../test/agent-stack.js";
import { actionCounter, type Measured } from "./actions.js";
import { freePort, installRuntime, median, MODEL, percentile, positiveInt, progress, round, USAGE } from "./lib.js";

const MESSAGE_BYTES = 4096;
const KEEP_TURNS = 4;
const MAX_INPUT_TOKENS = 32_000;
/** Turns whose actions are counted together, at the start and at the end. */
const WINDOW = 100;
const SUMMARIZER = "Summarize the conversation for the assistant that continues it.";

export async function main(): Promise<Record<string, unknown>> {
  const turns = process.argv[3] === undefined ? 1000 : positiveInt("turns", process.argv[3]);
  if (turns < 2 * WINDOW + 20) throw new Error(`long-thread needs at least ${2 * WINDOW + 20} turns`);
  installRuntime();
  const metricsPort = await freePort();
  const server = await startTemporal({ local: true, metricsPort, log: (line) => progress(`temporal: ${line}`) });
  // A run's history may be larger than grpc-js's 4 MB default receive size.
  const stack = await startAgentStack({ temporal: server, connection: { channelArgs: { "grpc.max_receive_message_length": 256 * 1024 * 1024 } }, log: (line) => progress(`temporal: ${line}`) }).catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  try {
    const { measure } = actionCounter(metricsPort, stack.namespace);
    const agent = defineAgent({
      id: "long-thread",
      model: MODEL,
      system: "You chat.",
      compaction: { keepTurns: KEEP_TURNS, maxInputTokens: MAX_INPUT_TOKENS, summarizer: { system: SUMMARIZER } },
    });
    const client = new Client({ connection: stack.connection, namespace: stack.namespace });
    const { agents } = await stack.worker([agent], { client: { client, threads: { agent } } });
    const threads = agents.threads;
    /** Estimated input tokens of each turn's model call, in order; and each summarizer call's. */
    const inputTokens: number[] = [];
    const summarizerInputTokens: number[] = [];
    stack.model.respondToAny((request) => {
      const tokens = Math.ceil(jsonBytes(request.messages) / 4);
      if (request.messages[0]?.content === SUMMARIZER) {
        summarizerInputTokens.push(tokens);
        return { text: `Notes on ${String(request.messages[1]!.content).length} characters of conversation: the user sent numbered 4 KB messages, each answered.`, usage: USAGE };
      }
      inputTokens.push(tokens);
      return { text: `Answer ${inputTokens.length}: noted.`, usage: USAGE };
    });
    const forget = () => void stack.model.requests.splice(0);
    const message = (turn: number) => `message ${turn}: ${"lorem ipsum dolor sit amet ".repeat(Math.ceil(MESSAGE_BYTES / 27))}`.slice(0, MESSAGE_BYTES);

    const { threadId } = await threads.createThread({ prompt: message(1), stream: false });
    const handle = threads.workflowHandle(threadId);
    /** Polls the thread (a query: answered by the worker, billed, so the windows count none of them) until `calls` model calls answered. */
    const settled = async (calls: number) => {
      for (;;) {
        const snapshot = await handle.query(threadSnapshotQuery);
        if (snapshot.modelCalls >= calls && snapshot.status === "completed" && snapshot.queued.length === 0) return snapshot;
        if (snapshot.status === "failed") throw new Error(`the bench thread failed: ${snapshot.lastError?.code} ${snapshot.lastError?.message}`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    };
    await settled(1);
    const turnMs: number[] = [0];
    const turn = async (n: number) => {
      const startedAt = performance.now();
      await threads.sendMessage({ threadId, prompt: message(n), stream: false });
      await settled(n);
      turnMs.push(performance.now() - startedAt);
      if (n % 100 === 0) {
        progress(`${n} turns: last 100 median ${round(median(turnMs.slice(-100)))} ms/turn, model input ${inputTokens.at(-1)} tokens, ${summarizerInputTokens.length} compactions`);
        forget();
      }
    };
    // The first window: turns 2..101, actions counted as one step (polls excluded: see below).
    const sent = { n: 1 };
    const windowOf = async (count: number): Promise<Measured> =>
      measure(async () => {
        for (let i = 0; i < count; i++) await turn(++sent.n);
      });
    const first = await windowOf(WINDOW);
    const compactionsInFirst = summarizerInputTokens.length;
    while (sent.n < turns - WINDOW) await turn(++sent.n);
    const compactionsBeforeLast = summarizerInputTokens.length;
    const last = await windowOf(turns - sent.n);
    const compactionsInLast = summarizerInputTokens.length - compactionsBeforeLast;
    stack.model.assertNoFailures();

    const view = await threads.state({ threadId });
    const runs = await runBytes(client, threadId);
    const entries = (await threads.streamUpdates({ threadId })).updates.filter((u) => u.type === "compacted");
    const maxRun = Math.max(...runs);
    progress(`${turns} turns: ${runs.length} runs, largest ${(maxRun / 1024).toFixed(0)} KB; ${summarizerInputTokens.length} compactions; model input max ${Math.max(...inputTokens)} tokens`);
    // What a reader's count of answers needs: the polls (queries) of `settled` are the bench's, not the thread's.
    const perTurn = (m: Measured, count: number, compactions: number) => {
      const queries = m.byOperation["QueryWorkflow"] ?? 0;
      return { actions: round((m.total - queries) / count, 2), compactions, byOperation: m.byOperation, pollQueries: queries };
    };
    // Medians over a hundred turns: the machine's other work moves single turns a lot.
    const around100 = turnMs.slice(50, 150);
    const lastTurns = turnMs.slice(-WINDOW);
    return {
      bench: "long-thread",
      turns,
      messageBytes: MESSAGE_BYTES,
      compaction: { keepTurns: KEEP_TURNS, maxInputTokens: MAX_INPUT_TOKENS },
      withoutCompactionRefusedAfterTurns: Math.floor(THREAD_TRANSCRIPT_BYTES / (MESSAGE_BYTES + 150)),
      compactions: summarizerInputTokens.length,
      runs: runs.length,
      generation: view.generation,
      historyBytesPerRun: { max: maxRun, median: Math.round(median(runs)), total: runs.reduce((a, b) => a + b, 0) },
      modelInputTokens: {
        atTurn100: inputTokens[99],
        last: inputTokens.at(-1),
        max: Math.max(...inputTokens),
        medianLast100: median(inputTokens.slice(-100)),
        summarizerMax: Math.max(0, ...summarizerInputTokens),
      },
      actionsPerTurn: { first100: perTurn(first, WINDOW, compactionsInFirst), last100: perTurn(last, WINDOW, compactionsInLast) },
      turnMs: {
        turns51to150: round(median(around100), 1),
        last100: round(median(lastTurns), 1),
        ratio: round(median(lastTurns) / median(around100), 3),
        p90turns51to150: round(percentile(around100, 90), 1),
        p90last100: round(percentile(lastTurns, 90), 1),
      },
      compactedEntries: entries.length,
      messagesListed: (await threads.listMessages({ threadId, limit: 1 })).total,
    };
  } finally {
    await stack.close().catch((err: unknown) => progress(`cleanup: ${String(err)}`));
    await server.stop().catch((err: unknown) => progress(`cleanup: ${String(err)}`));
  }
}

/** JSON-free history bytes of each run of the thread's continue-as-new chain, oldest first. */
async function runBytes(client: Client, workflowId: string): Promise<number[]> {
  const { default: proto } = await import("@temporalio/proto");
  const { History } = proto.temporal.api.history.v1;
  const description = await client.workflow.getHandle(workflowId).describe();
  let runId: string | undefined = description.raw.workflowExecutionInfo?.firstRunId ?? description.runId;
  const bytes: number[] = [];
  while (runId) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    bytes.push(History.encode(history).finish().length);
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return bytes;
}
