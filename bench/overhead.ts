/**
 * "Overhead": wall time of one 20-turn conversation through the SDK's agentRun versus the
 * hand-written bare workflow, on the same server, model server and process.
 */
import { median, progress, prompt, round, serverWaitMs, startBench, toolLoop, type Bench } from "./lib.js";

const TURNS = 20;
const RUNS = 7;
const TOOL_RESULT_BYTES = 200;
const TARGET = 1.1;

export async function main(): Promise<Record<string, unknown>> {
  const bench = await startBench({ maxTurns: TURNS, toolResultBytes: TOOL_RESULT_BYTES });
  try {
    // Warm-up: JIT, connections, workflow bundles' first load; not measured.
    await timed(bench, "sdk", bench.runSdk);
    await timed(bench, "bare", bench.runBare);
    const sdk: Array<{ ms: number; waitMs: number }> = [];
    const bare: Array<{ ms: number; waitMs: number }> = [];
    // Alternating spreads slow drift (GC, server compaction) evenly over both paths.
    for (let i = 0; i < RUNS; i++) {
      sdk.push(await timed(bench, "sdk", bench.runSdk));
      bare.push(await timed(bench, "bare", bench.runBare));
      progress(`run ${i + 1}/${RUNS}: sdk ${Math.round(sdk[i]!.ms)}ms, bare ${Math.round(bare[i]!.ms)}ms`);
    }
    const sdkMedianMs = median(sdk.map((r) => r.ms));
    const bareMedianMs = median(bare.map((r) => r.ms));
    const ratio = sdkMedianMs / bareMedianMs;
    return {
      bench: "overhead",
      turns: TURNS,
      runs: RUNS,
      sdkMedianMs: round(sdkMedianMs, 1),
      bareMedianMs: round(bareMedianMs, 1),
      sdkPerTurnMs: round(sdkMedianMs / TURNS),
      barePerTurnMs: round(bareMedianMs / TURNS),
      // Time tasks waited in the server per turn: when it dominates, the ratio understates the SDK's cost.
      serverWaitPerTurnMs: {
        sdk: round(median(sdk.map((r) => r.waitMs)) / TURNS),
        bare: round(median(bare.map((r) => r.waitMs)) / TURNS),
      },
      ratio: round(ratio, 3),
      target: TARGET,
      pass: ratio <= TARGET,
    };
  } finally {
    await bench.close();
  }
}

/** Milliseconds from starting one conversation to having its result, and the server's share of them. */
async function timed(bench: Bench, path: string, run: (prompt: string) => Promise<string>): Promise<{ ms: number; waitMs: number }> {
  const conversation = prompt(`overhead ${path}`);
  bench.model.respond(conversation, toolLoop(TURNS));
  const startedAt = performance.now();
  const workflowId = await run(conversation);
  const ms = performance.now() - startedAt;
  bench.model.assertNoFailures();
  return { ms, waitMs: await serverWaitMs(bench.client, workflowId) };
}
