/**
 * "Cancel latency": from `agents.cancel()` (a run) or `stopThread` (a thread) to the
 * moment the model server sees the in-flight chat-completions request hang up, with the
 * model answering slowly enough that only an abort ends the request early.
 * The target: both reach the call within about a second.
 */
import { randomUUID } from "node:crypto";
import { AgentClient, ThreadsClient } from "../src/index.js";
import type { ScriptedModelServer } from "../src/testing/index.js";
import { envInt, median, percentile, progress, prompt, round, startBench } from "./lib.js";

const SAMPLES = envInt("CANCEL_SAMPLES", 7);
const TARGET_MS = 1000;
/** The model's latency: far longer than any cancel may take. */
const MODEL_DELAY_MS = 60_000;

export async function main(): Promise<Record<string, unknown>> {
  const bench = await startBench({ maxTurns: 2, toolResultBytes: 100 });
  try {
    const { model, client, agent, sdkQueue: taskQueue } = bench;
    const agents = new AgentClient({ client, taskQueue });
    const threads = new ThreadsClient({ client, taskQueue, agent });

    const run = async (): Promise<number> => {
      const conversation = prompt("cancel run");
      model.script(conversation, [{ delay: MODEL_DELAY_MS, text: "too late" }]);
      const runId = `bench-cancel-${randomUUID()}`;
      await agents.start(agent, { prompt: conversation, runId });
      await arrived(model, conversation);
      const t0 = performance.now();
      await agents.cancel({ runId });
      const ms = (await hungUp(model, conversation)) - t0;
      await agents.result({ runId }).catch(() => undefined);
      return ms;
    };
    const thread = async (): Promise<number> => {
      const conversation = prompt("cancel thread");
      model.script(conversation, [{ delay: MODEL_DELAY_MS, text: "too late" }]);
      const { threadId } = await threads.createThread({ prompt: conversation });
      await arrived(model, conversation);
      const t0 = performance.now();
      await threads.stopThread({ threadId });
      const ms = (await hungUp(model, conversation)) - t0;
      await threads.deleteThread({ threadId });
      return ms;
    };

    // Warm-up: connections, the workflow bundle's first load; not measured.
    await run();
    await thread();
    const runMs: number[] = [];
    const threadMs: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      runMs.push(await run());
      threadMs.push(await thread());
      progress(`sample ${i + 1}/${SAMPLES}: run ${Math.round(runMs[i]!)}ms, thread ${Math.round(threadMs[i]!)}ms`);
    }
    model.assertNoFailures();
    const runMedianMs = median(runMs);
    const threadMedianMs = median(threadMs);
    return {
      bench: "cancel",
      samples: SAMPLES,
      runMedianMs: round(runMedianMs, 1),
      runP90Ms: round(percentile(runMs, 90), 1),
      threadMedianMs: round(threadMedianMs, 1),
      threadP90Ms: round(percentile(threadMs, 90), 1),
      targetMs: TARGET_MS,
      pass: runMedianMs <= TARGET_MS && threadMedianMs <= TARGET_MS,
    };
  } finally {
    await bench.close();
  }
}

/** Resolves once the model server has the conversation's request in flight. */
function arrived(model: ScriptedModelServer, conversation: string): Promise<number> {
  return until(() => model.requests.some((r) => r.conversation === conversation), `the request of ${conversation}`);
}

/** Resolves with the time the conversation's request was hung up on (polled every 2 ms). */
function hungUp(model: ScriptedModelServer, conversation: string): Promise<number> {
  return until(() => model.aborted.some((a) => a.conversation === conversation), `the abort of ${conversation}`);
}

async function until(done: () => boolean, what: string, timeoutMs = 30_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs}ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return performance.now();
}
