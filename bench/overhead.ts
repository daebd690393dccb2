/**
 * "Overhead": wall time of one 20-turn conversation through the SDK's agentRun versus the
 * hand-written bare workflow, on the same server, model server and process.
 */
import { median, progress, prompt, round, startBench, toolLoop, type Bench } from "./lib.js";

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
    const sdkMs: number[] = [];
    const bareMs: number[] = [];
    // Alternating spreads slow drift (GC, server compaction) evenly over both paths.
    for (let i = 0; i < RUNS; i++) {
      sdkMs.push(await timed(bench, "sdk", bench.runSdk));
      bareMs.push(await timed(bench, "bare", bench.runBare));
      progress(`run ${i + 1}/${RUNS}: sdk ${Math.round(sdkMs[i]!)}ms, bare ${Math.round(bareMs[i]!)}ms`);
    }
    const sdkMedianMs = median(sdkMs);
    const bareMedianMs = median(bareMs);
    const ratio = sdkMedianMs / bareMedianMs;
    return {
      bench: "overhead",
      turns: TURNS,
      runs: RUNS,
      sdkMedianMs: round(sdkMedianMs, 1),
      bareMedianMs: round(bareMedianMs, 1),
      sdkPerTurnMs: round(sdkMedianMs / TURNS),
      barePerTurnMs: round(bareMedianMs / TURNS),
      ratio: round(ratio, 3),
      target: TARGET,
      pass: ratio <= TARGET,
    };
  } finally {
    await bench.close();
  }
}

/** Milliseconds from starting one conversation to having its result. */
async function timed(bench: Bench, path: string, run: (prompt: string) => Promise<string>): Promise<number> {
  const conversation = prompt(`overhead ${path}`);
  bench.model.respond(conversation, toolLoop(TURNS));
  const startedAt = performance.now();
  await run(conversation);
  const ms = performance.now() - startedAt;
  bench.model.assertNoFailures();
  return ms;
}
