/**
 * "History stays linear": history bytes per turn must not grow with conversation length.
 * Each turn the model calls a search tool returning ~2 KB; the SDK run and, for contrast,
 * the bare workflow (whole thread in every model activity input) run the same conversations.
 */
import { bytesPerNewByte, historyStats, progress, prompt, round, startBench, toolLoop, type Bench } from "./lib.js";

const LENGTHS = [50, 100, 200];
const TOOL_RESULT_BYTES = 2048;
const TARGET = 1.2;

export async function main(): Promise<Record<string, unknown>> {
  const bench = await startBench({ maxTurns: Math.max(...LENGTHS), toolResultBytes: TOOL_RESULT_BYTES });
  try {
    const sdk = await measure(bench, "sdk", (p) => bench.runSdk(p));
    const naive = await measure(bench, "naive", (p) => bench.runBare(p));
    return {
      bench: "history",
      toolResultBytes: TOOL_RESULT_BYTES,
      // History bytes a turn adds ÷ that turn's new content (tool result + model output).
      bytesPerNewByte: sdk.bytesPerNewByte,
      sdk,
      naive,
      target: TARGET,
      pass: sdk.growth <= TARGET,
    };
  } finally {
    await bench.close();
  }
}

async function measure(bench: Bench, path: string, run: (prompt: string) => Promise<string>) {
  const runs: Array<{ turns: number; historyBytes: number; events: number; bytesPerTurn: number }> = [];
  for (const turns of LENGTHS) {
    const conversation = prompt(`history ${path} ${turns}`);
    bench.model.respond(conversation, toolLoop(turns));
    const startedAt = performance.now();
    const workflowId = await run(conversation);
    const ms = performance.now() - startedAt;
    bench.model.assertNoFailures();
    const { historyBytes, events, byType } = await historyStats(bench.client, workflowId);
    const top = byType.slice(0, 3).map((t) => `${t.type} ${t.count}x ${kb(t.bytes)}`);
    progress(`${path} ${turns} turns: ${kb(historyBytes)}, ${events} events, ${Math.round(ms)}ms; largest: ${top.join(", ")}`);
    runs.push({ turns, historyBytes, events, bytesPerTurn: Math.round(historyBytes / turns) });
  }
  const perTurn = (turns: number) => runs.find((r) => r.turns === turns)!.bytesPerTurn;
  const shortest = runs.find((r) => r.turns === Math.min(...LENGTHS))!;
  const longest = runs.find((r) => r.turns === Math.max(...LENGTHS))!;
  return {
    growth: round(perTurn(longest.turns) / perTurn(shortest.turns), 3),
    bytesPerNewByte: round(bytesPerNewByte(shortest, longest, TOOL_RESULT_BYTES)),
    runs,
  };
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
