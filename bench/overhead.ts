/**
 * "Overhead": wall time of one 20-turn conversation through the SDK's agentRun versus the
 * hand-written bare workflow, on the same server, model server and process; and the same
 * SDK run with every payload encrypted (aesGcmCodec on worker and client) versus the plain one.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { aesGcmCodec, type AgentClient } from "../src/index.js";
import { median, progress, prompt, round, serverWaitMs, startBench, toolLoop, type Bench } from "./lib.js";

const TURNS = 20;
const RUNS = 11;
const TOOL_RESULT_BYTES = 200;
const TARGET = 1.1;

export async function main(): Promise<Record<string, unknown>> {
  const bench = await startBench({ maxTurns: TURNS, toolResultBytes: TOOL_RESULT_BYTES });
  try {
    // Warm-up: JIT, connections, workflow bundles' first load; not measured.
    const runCodec = await encryptedSdk(bench);
    await timed(bench, "sdk", bench.runSdk);
    await timed(bench, "bare", bench.runBare);
    await timed(bench, "codec", runCodec);
    const sdk: Array<{ ms: number; waitMs: number }> = [];
    const bare: Array<{ ms: number; waitMs: number }> = [];
    const codec: Array<{ ms: number; waitMs: number }> = [];
    // Alternating spreads slow drift (GC, server compaction) evenly over the paths, and
    // rotating which goes first spreads what one run leaves for the next (its garbage).
    const paths = [
      async () => void sdk.push(await timed(bench, "sdk", bench.runSdk)),
      async () => void bare.push(await timed(bench, "bare", bench.runBare)),
      async () => void codec.push(await timed(bench, "codec", runCodec)),
    ];
    for (let i = 0; i < RUNS; i++) {
      for (let k = 0; k < paths.length; k++) await paths[(i + k) % paths.length]!();
      progress(`run ${i + 1}/${RUNS}: sdk ${Math.round(sdk[i]!.ms)}ms, bare ${Math.round(bare[i]!.ms)}ms, codec ${Math.round(codec[i]!.ms)}ms`);
    }
    const sdkMedianMs = median(sdk.map((r) => r.ms));
    const bareMedianMs = median(bare.map((r) => r.ms));
    const codecMedianMs = median(codec.map((r) => r.ms));
    const ratio = sdkMedianMs / bareMedianMs;
    const codecRatio = codecMedianMs / sdkMedianMs;
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
      // The median of each round's own sdk ÷ bare: drift within a round cancels out.
      pairedRatio: round(median(sdk.map((r, i) => r.ms / bare[i]!.ms)), 3),
      target: TARGET,
      // The same SDK run with aesGcmCodec on worker and client, against the plain SDK run.
      codec: { medianMs: round(codecMedianMs, 1), perTurnMs: round(codecMedianMs / TURNS), ratio: round(codecRatio, 3), target: TARGET, pass: codecRatio <= TARGET },
      pass: ratio <= TARGET && codecRatio <= TARGET,
    };
  } finally {
    await bench.close();
  }
}

/** An SDK worker and client for the bench's agent that encrypt every payload; resolves to a runner like `bench.runSdk`. */
async function encryptedSdk(bench: Bench): Promise<(prompt: string) => Promise<string>> {
  const dataConverter = { payloadCodecs: [aesGcmCodec({ keys: { bench: randomBytes(32) }, current: "bench" })] };
  const { agents }: { agents: AgentClient } = await bench.stack.worker([bench.agent], {
    taskQueue: `bench-codec-${randomUUID()}`,
    worker: { dataConverter },
    client: { dataConverter },
  });
  return async (conversation) => {
    const runId = `codec-${randomUUID()}`;
    await agents.run(bench.agent, { prompt: conversation, runId });
    bench.model.requests.splice(0);
    return runId;
  };
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
