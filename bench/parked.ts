/**
 * "Deferred runs cost nothing while waiting": park thousands of runs at once on one worker
 * in this process, with a bounded workflow cache, and compare the process's memory before
 * and after; then resume every one and check it completes.
 *
 * Memory is read after a forced GC (`--expose-gc`, or V8's flag set at runtime) and is the
 * whole process's RSS: worker, client and the scripted model server together. The runs
 * park in steps, first as many as the workflow cache holds, then the rest in two, so the
 * cost of the runs beyond the cache's bound shows on its own, as a slope or as none.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Client, Connection } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { AgentClient, defineAgent } from "../src/index.js";
import { startScriptedModelServer, startTemporal, type Responder } from "../src/testing/index.js";
import { bundleAgentWorkflows, createAgentWorker, openaiModel } from "../src/worker.js";
import { approvalTool, envInt, installRuntime, positiveInt, progress, round } from "./lib.js";

/** `npm run bench -- parked 500`, or PARKED_RUNS=500. */
const RUNS = process.argv[3] !== undefined ? positiveInt("runs argument", process.argv[3]) : envInt("PARKED_RUNS", 2000);
const CONCURRENCY = envInt("PARKED_CONCURRENCY", 50);
const MAX_CACHED_WORKFLOWS = envInt("PARKED_MAX_CACHED", 200);
const MODEL = "bench-model";
const USAGE = { promptTokens: 100, completionTokens: 10 };
const PAYLOAD = { approved: true };
/**
 * A memory reading waits until RSS holds still: GC every second, done once the last
 * STABLE_READINGS readings lie within 1 MB, or after MAX_SETTLE_SEC. V8 hands freed pages
 * back in steps seconds apart (the workflow threads' isolates, which this process cannot
 * force to collect, included), so a reading taken right after a burst reads high.
 */
const STABLE_READINGS = 12;
const MAX_SETTLE_SEC = 45;

export async function main(): Promise<Record<string, unknown>> {
  installRuntime();
  const gc = gcFunction();
  if (!gc.fn) progress("no way to force a GC here: memory readings include garbage");
  const memory = async (): Promise<Memory> => {
    const readings: number[] = [];
    let settled = false;
    while (!settled && readings.length < MAX_SETTLE_SEC) {
      await sleep(1000);
      gc.fn?.();
      readings.push(process.memoryUsage.rss() / 2 ** 20);
      const last = readings.slice(-STABLE_READINGS);
      settled = last.length === STABLE_READINGS && Math.max(...last) - Math.min(...last) <= 1;
    }
    const { rss, heapUsed } = process.memoryUsage();
    // The workflow threads' own heaps: the worker runs workflow code in worker threads.
    const report = process.report.getReport() as unknown as { workers?: Array<{ javascriptHeap?: { usedMemory: number; totalMemory: number } }> };
    const threads = (report.workers ?? []).map((w) => w.javascriptHeap).filter((h) => h !== undefined);
    return {
      rssMb: rss / 2 ** 20,
      heapUsedMb: heapUsed / 2 ** 20,
      workflowThreadsHeapUsedMb: threads.reduce((sum, h) => sum + h.usedMemory, 0) / 2 ** 20,
      workflowThreadsHeapTotalMb: threads.reduce((sum, h) => sum + h.totalMemory, 0) / 2 ** 20,
      settleSec: readings.length,
      settled,
    };
  };
  const describe = (m: Memory): string =>
    `rss ${m.rssMb.toFixed(1)} MB, main heap ${m.heapUsedMb.toFixed(1)} MB, workflow threads' heap ${m.workflowThreadsHeapUsedMb.toFixed(1)}/${m.workflowThreadsHeapTotalMb.toFixed(1)} MB ` +
    `(${m.settled ? "settled" : "still moving"} after ${m.settleSec}s)`;

  const temporal = await startTemporal({ log: (line) => progress(`temporal: ${line}`) });
  const cleanup: Array<() => Promise<unknown>> = [() => temporal.stop()];
  try {
    const { address, namespace } = temporal;
    const secret = randomBytes(32).toString("base64url");
    const [connection, native, model, bundle] = await Promise.all([
      Connection.connect({ address }),
      NativeConnection.connect({ address }),
      startScriptedModelServer(),
      bundleAgentWorkflows(),
    ]);
    cleanup.push(() => connection.close(), () => native.close(), () => model.close());

    /** Tokens the tool handler handed out (ctx.deferral.token), by run id: what an approval email would carry. */
    const tokens = new Map<string, string>();
    const askApproval = approvalTool(tokens);
    const agent = defineAgent({
      id: "parked-bench",
      model: MODEL,
      system: "You pay out money, but only after a human approves.",
      tools: [askApproval],
      maxTurns: 4,
    });
    const taskQueue = `bench-parked-${randomUUID()}`;
    const worker = await createAgentWorker({
      connection: native,
      namespace,
      taskQueue,
      agents: [agent],
      model: openaiModel({ baseURL: model.url, apiKey: "bench" }),
      workflowBundle: bundle,
      deferral: { secret },
      worker: { maxCachedWorkflows: MAX_CACHED_WORKFLOWS },
    });
    const running = worker.run();
    cleanup.push(async () => {
      worker.shutdown();
      await running;
    });
    const agents = new AgentClient({ client: new Client({ connection, namespace }), taskQueue, deferral: { secret } });

    // One responder for every conversation: ask for approval, then answer.
    const responder: Responder = (_request, turn) =>
      turn === 0 ? { toolCalls: [{ name: "askApproval", arguments: { amount: 250 } }], usage: USAGE } : { text: "Paid 250.", usage: USAGE };
    const park = async (runId: string): Promise<void> => {
      model.respond(runId, responder);
      const ack = await agents.run(agent, { prompt: runId, runId });
      if (ack.status !== "deferred" || !tokens.has(runId)) throw new Error(`run ${runId} did not defer: ${JSON.stringify(ack)}`);
      // The scripted server records every request; keep it from growing with the run count.
      model.requests.splice(0);
    };
    const resume = async (runId: string): Promise<boolean> => {
      const reply = await agents.resume({ token: tokens.get(runId)!, payload: PAYLOAD });
      model.requests.splice(0);
      return reply.status === "resumed" && reply.outcome.status === "completed";
    };

    // Warm-up: worker running, one run deferred and resumed to completion.
    const warm = `parked-warmup-${randomUUID()}`;
    await park(warm);
    if (!(await resume(warm))) throw new Error("the warm-up run did not complete after its resume");
    model.assertNoFailures();
    const before = await memory();
    progress(`before: ${describe(before)}; gc: ${gc.via}`);

    const runIds = Array.from({ length: RUNS }, (_, i) => `parked-${i}-${randomUUID()}`);
    const firstStep = Math.min(MAX_CACHED_WORKFLOWS, RUNS);
    let parkMs = 0;
    const parkAll = async (ids: string[]): Promise<void> => {
      const startedAt = performance.now();
      let done = 0;
      await pool(ids, CONCURRENCY, async (runId) => {
        await park(runId);
        if (++done % 250 === 0) progress(`parked ${done}/${ids.length} (${((performance.now() - startedAt) / 1000).toFixed(1)}s)`);
      });
      parkMs += performance.now() - startedAt;
    };
    // Park up to the cache's bound, then the rest in two steps, reading memory after each:
    // a cost per parked run would show as a slope past the bound.
    const steps = [firstStep, firstStep + Math.round((RUNS - firstStep) / 2), RUNS];
    const curve: Array<{ parked: number } & Memory> = [];
    let afterPark = before;
    let parked = 0;
    for (const upTo of new Set(steps)) {
      await parkAll(runIds.slice(parked, upTo));
      parked = upTo;
      const reading = await memory();
      afterPark = reading;
      curve.push({ parked, ...reading });
      progress(`${parked} parked: ${describe(reading)}`);
    }
    model.assertNoFailures();
    const atCacheBound = curve[0]!;
    const cachedWorkflows = worker.getStatus().numCachedWorkflows;
    progress(`${RUNS} parked in ${(parkMs / 1000).toFixed(1)}s, ${cachedWorkflows} workflows cached`);

    const resumeStartedAt = performance.now();
    let resumed = 0;
    const failures: string[] = [];
    await pool(runIds, CONCURRENCY, async (runId) => {
      try {
        if (await resume(runId)) resumed += 1;
        else failures.push(`${runId}: did not complete`);
      } catch (err) {
        failures.push(`${runId}: ${err instanceof Error ? err.message : String(err)}`);
      }
      const done = resumed + failures.length;
      if (done % 250 === 0) progress(`resumed ${done}/${RUNS} (${((performance.now() - resumeStartedAt) / 1000).toFixed(1)}s)`);
    });
    const resumeSec = (performance.now() - resumeStartedAt) / 1000;
    if (failures.length > 0) progress(`${failures.length} resumes failed, e.g.:\n  ${failures.slice(0, 5).join("\n  ")}`);
    model.assertNoFailures();
    const afterResume = await memory();
    progress(`after the resumes: ${describe(afterResume)}`);

    const mb = (value: number) => round(value, 1);
    return {
      bench: "parked",
      runs: RUNS,
      concurrency: CONCURRENCY,
      maxCachedWorkflows: MAX_CACHED_WORKFLOWS,
      cachedWorkflowsAfterPark: cachedWorkflows,
      gcForced: gc.fn !== undefined,
      gcVia: gc.via,
      rssBeforeMb: mb(before.rssMb),
      rssAtCacheBoundMb: mb(atCacheBound.rssMb),
      rssAfterParkMb: mb(afterPark.rssMb),
      rssDeltaMb: mb(afterPark.rssMb - before.rssMb),
      // What the runs beyond the cache's bound added, in total and per run.
      rssBeyondCacheMb: mb(afterPark.rssMb - atCacheBound.rssMb),
      rssBeyondCachePerRunKb: RUNS > firstStep ? round(((afterPark.rssMb - atCacheBound.rssMb) * 1024) / (RUNS - firstStep), 2) : null,
      // Memory after each parking step (forced GC first): flat past the cache's bound means no per-run cost.
      rssCurveMb: curve.map((c) => [c.parked, mb(c.rssMb)]),
      // Whether every reading held still (see STABLE_READINGS) rather than timing out.
      readingsSettled: [before, ...curve, afterResume].every((m) => m.settled),
      heapUsedBeforeMb: mb(before.heapUsedMb),
      heapUsedAfterParkMb: mb(afterPark.heapUsedMb),
      workflowThreadsHeapUsedMb: { before: mb(before.workflowThreadsHeapUsedMb), afterPark: mb(afterPark.workflowThreadsHeapUsedMb) },
      rssAfterResumeMb: mb(afterResume.rssMb),
      parkTimeSec: round(parkMs / 1000, 1),
      parksPerSec: round(RUNS / (parkMs / 1000), 1),
      resumed,
      failed: failures.length,
      resumeTimeSec: round(resumeSec, 1),
      resumesPerSec: round(resumed / resumeSec, 1),
      pass: resumed === RUNS,
    };
  } finally {
    for (const step of cleanup.reverse()) await step().catch((err: unknown) => progress(`cleanup: ${String(err)}`));
  }
}

interface Memory {
  rssMb: number;
  heapUsedMb: number;
  workflowThreadsHeapUsedMb: number;
  workflowThreadsHeapTotalMb: number;
  settleSec: number;
  settled: boolean;
}

/** Runs `task` over `items`, at most `limit` at a time. */
async function pool<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** `global.gc` under --expose-gc; otherwise V8's flag set at runtime exposes it to a new context. */
function gcFunction(): { fn?: () => void; via: string } {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === "function") return { fn: exposed, via: "--expose-gc" };
  try {
    setFlagsFromString("--expose-gc");
    const fn = runInNewContext("gc") as unknown;
    if (typeof fn === "function") return { fn: fn as () => void, via: "v8.setFlagsFromString" };
  } catch {
    // reported as unavailable
  }
  return { via: "unavailable" };
}
