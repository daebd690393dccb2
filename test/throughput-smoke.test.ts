/**
 * bench throughput's smoke: the bench's own function at a tiny N on the suite's server, so
 * that the bench keeps working between the runs that measure with it. It asserts that every
 * phase finished turns and that the line has its fields, never how fast anything was.
 */
import { expect, inject, it } from "vitest";
import { measureThreadReaders } from "../bench/thread-readers.js";
import { measureThroughput, type PhaseResult } from "../bench/throughput.js";

it("runs and threads, ours and bare, finish turns in the window and the line carries ratios, RSS and the profile summary", async () => {
  const result = await measureThroughput({
    ns: [4],
    cases: ["runs", "threads"],
    thinkMs: 5,
    warmupSec: 1,
    windowSec: 2,
    threadTurns: 2,
    maxCached: 50,
    profileN: 4,
    temporal: { address: inject("temporalAddress"), namespace: inject("temporalNamespace") },
    sdkBundlePath: inject("workflowBundlePath") as string,
  });
  const phase = expect.objectContaining({
    turns: expect.any(Number),
    turnsPerSec: expect.any(Number),
    p50Ms: expect.any(Number),
    p99Ms: expect.any(Number),
    cpuMsPerTurn: expect.any(Number),
    rssMb: expect.any(Number),
  });
  for (const c of ["runs", "threads"] as const) {
    const at = (result[c] as Record<string, { sdk: PhaseResult; bare: PhaseResult; ratio: Record<string, number>; pass: boolean }>)["4"]!;
    expect(at).toEqual({ sdk: phase, bare: phase, ratio: { throughput: expect.any(Number), cpuPerTurn: expect.any(Number), p50: expect.any(Number), rss: expect.any(Number) }, pass: expect.any(Boolean) });
    for (const kind of ["sdk", "bare"] as const) {
      expect(at[kind].turns).toBeGreaterThan(0);
      expect(at[kind].cpuMsPerTurn).toBeGreaterThan(0);
      expect(at[kind].rssMb).toBeGreaterThan(0);
    }
  }
  expect(result.rss).toEqual({ runs: expect.objectContaining({ n: 4, pass: expect.any(Boolean) }), threads: expect.objectContaining({ n: 4, pass: expect.any(Boolean) }) });
  const profile = result.profile as { msPerTurnByOwner: Record<"sdk" | "bare", Record<string, number>>; extraTopFunctions: unknown[]; oursTopFunctions: Array<{ where: string }> };
  // Both workers' profiles were read: Temporal's code ran in each, ours only in the SDK's.
  expect(profile.msPerTurnByOwner.sdk.temporal).toBeGreaterThan(0);
  expect(profile.msPerTurnByOwner.bare.temporal).toBeGreaterThan(0);
  expect(profile.msPerTurnByOwner.bare.ours).toBe(0);
  expect(profile.extraTopFunctions.length).toBeGreaterThan(0);
  expect(typeof result.pass).toBe("boolean");
});

it("thread-readers: every thread's reader joins over the direct transport and sees the turns sent across the threads complete", async () => {
  const result = await measureThreadReaders({
    threads: 4,
    rate: 4,
    warmupSec: 1,
    windowSec: 2,
    thinkMs: 5,
    answerChars: 200,
    temporal: { address: inject("temporalAddress"), namespace: inject("temporalNamespace") },
    sdkBundlePath: inject("workflowBundlePath") as string,
  });
  expect(result).toMatchObject({ bench: "thread-readers", threads: 4, readers: 4, unanswered: 0 });
  expect(result.turns).toBeGreaterThan(0);
  // One connection per followed thread to the one worker's endpoint: the readers were on the direct transport, not reading the threads.
  expect(result.readersProcess).toMatchObject({ workerConnections: 4, failedReaders: 0 });
  expect(result.turnMs).toEqual({ p50: expect.any(Number), p99: expect.any(Number), max: expect.any(Number) });
  expect((result.worker as { cpuMsPerTurn: number }).cpuMsPerTurn).toBeGreaterThan(0);
});
