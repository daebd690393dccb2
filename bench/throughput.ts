/**
 * "Throughput at saturation": one worker process, busy. N concurrent lanes, each turn of
 * which is a 3-step agent turn with 2 tool calls (the scripted model thinks THROUGHPUT_THINK_MS
 * per call), through the SDK and through the bare Temporal workflow doing the same model and
 * tool calls, in the same run, on the same server and model server:
 *
 * - `runs`: each lane starts a run, waits for its result, starts the next;
 * - `threads`: each lane creates a thread with a message, then sends THROUGHPUT_THREAD_TURNS - 1
 *   more, one after the other's answer (the SDK's `settled()`; the bare chat's update answers
 *   when its turn is done), then creates the next thread.
 *
 * After a warm-up (every lane has finished a turn, and at least THROUGHPUT_WARMUP_SEC), a window
 * of THROUGHPUT_WINDOW_SEC counts the turns that finish in it (steady-state turns per second),
 * their p50/p99 latency as the caller sees it, the worker process's CPU (user + system, read
 * from /proc/<pid>/stat: the worker alone, not this process, the model server or Temporal) per
 * turn, and its RSS at the window's end. Each worker is a process of its own
 * (bench/throughput-worker.ts) with the same workflow cache (THROUGHPUT_MAX_CACHED). On a dev
 * server it starts itself, the server's metrics add billable actions and persistence requests
 * and writes per turn. A turn that fails (an overloaded worker's refusal) is counted in
 * `failedTurns` and its lane goes on.
 *
 * Targets (`pass`): throughput ≥ 0.9× the bare worker's and CPU per turn ≤ 1.2× at every N;
 * at the largest N the worker's RSS ≤ 1.5× the bare worker's (both bounded by the same cache).
 *
 * Then, unless THROUGHPUT_PROFILE=0, both workers again under `--cpu-prof` for one window of
 * THROUGHPUT_PROFILE_CASE (`runs`, or `threads`) at THROUGHPUT_PROFILE_N: self time per turn by owner (ours, Temporal's, node/V8,
 * other dependencies; workflow-bundle code mapped to its module) and our top functions: where
 * the SDK's extra CPU goes.
 *
 * Env: THROUGHPUT_N=10,100,1000 (default 10,100), THROUGHPUT_CASES=runs,threads,
 * THROUGHPUT_THINK_MS (default 100), THROUGHPUT_WARMUP_SEC (3), THROUGHPUT_WINDOW_SEC (15),
 * THROUGHPUT_THREAD_TURNS (3), THROUGHPUT_MAX_CACHED (500), THROUGHPUT_PROFILE_N (100),
 * TEMPORAL_TARGET=postgres for the real server on PostgreSQL (as every bench on startTemporal).
 * Linux only (/proc).
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Client, Connection } from "@temporalio/client";
import { bundleWorkflowCode, DefaultLogger } from "@temporalio/worker";
import { AgentClient, ThreadsClient } from "../src/index.js";
import { startScriptedModelServer, startTemporal, type ScriptedModelServer } from "../src/testing/index.js";
import { writeWorkflowBundle } from "../test/workflow-bundle.js";
import { chatTurnsUpdate, sayUpdate } from "./bare/messages.js";
import type { bareAgent, bareChat } from "./bare/workflows.js";
import { envInt, freePort, isStrayClientRetry, percentile, positiveInt, progress, round } from "./lib.js";
import { SYSTEM, throughputAgent, twoSearchesThenAnswer, TOOL_CALLS } from "./throughput-agent.js";

export type ThroughputCase = "runs" | "threads";
type Kind = "sdk" | "bare";

export interface ThroughputOptions {
  /** Concurrent lanes, one phase per value. */
  ns: number[];
  cases: ThroughputCase[];
  /** The scripted model's think time per call. */
  thinkMs: number;
  warmupSec: number;
  windowSec: number;
  /** Turns per thread in the `threads` case before its lane creates the next thread. */
  threadTurns: number;
  /** Both workers' workflow cache. */
  maxCached: number;
  /** Lanes of the profiled window; 0 skips the profile. */
  profileN: number;
  /** The case the profiled window runs (default `runs`). */
  profileCase?: ThroughputCase;
  /** A running server to use (a test's); one is started otherwise. */
  temporal?: { address: string; namespace: string };
  /** The SDK's workflow bundle as test/workflow-bundle.ts writes it (a test run's); built here otherwise. */
  sdkBundlePath?: string;
}

export interface PhaseResult {
  /** Turns that finished inside the window. */
  turns: number;
  turnsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  cpuMsPerTurn: number;
  rssMb: number;
  /** Turns that failed inside the window (counted, not in `turns`), and the first one's message. */
  failedTurns?: number;
  failure?: string;
  /** Lanes still in a turn well after the window (a lost activity completion on an overloaded server), when any. */
  unfinishedLanes?: number;
  /** From the dev server's metrics (when this bench started it): billable actions, and persistence requests and writes, per turn. */
  server?: { actionsPerTurn: number; persistenceRequestsPerTurn: number; persistenceWritesPerTurn: number };
}

/** How long a phase waits after its window for lanes to finish the turn they are in. */
const DRAIN_SEC = 60;
const TARGETS = { throughput: 0.9, cpu: 1.2, rss: 1.5 };

export async function main(): Promise<Record<string, unknown>> {
  // A client retry timer that outlives its connection (see isStrayClientRetry) fired during a
  // PostgreSQL run and ended the bench; as run.ts does after the result, it is let pass.
  process.on("uncaughtException", (err) => {
    if (isStrayClientRetry(err)) return;
    progress(`uncaught: ${err.stack ?? err.message}`);
    process.exit(1);
  });
  const list = (name: string, fallback: string) => (process.env[name] || fallback).split(",").map((v) => v.trim());
  const cases = list("THROUGHPUT_CASES", "runs,threads");
  for (const c of cases) if (c !== "runs" && c !== "threads") throw new Error(`THROUGHPUT_CASES holds runs and/or threads, got ${JSON.stringify(c)}`);
  return measureThroughput({
    ns: list("THROUGHPUT_N", "10,100").map((v) => positiveInt("THROUGHPUT_N", v)),
    cases: cases as ThroughputCase[],
    thinkMs: envInt("THROUGHPUT_THINK_MS", 100),
    warmupSec: envInt("THROUGHPUT_WARMUP_SEC", 3),
    windowSec: envInt("THROUGHPUT_WINDOW_SEC", 15),
    threadTurns: envInt("THROUGHPUT_THREAD_TURNS", 3),
    maxCached: envInt("THROUGHPUT_MAX_CACHED", 500),
    profileN: process.env.THROUGHPUT_PROFILE === "0" ? 0 : envInt("THROUGHPUT_PROFILE_N", 100),
    profileCase: profileCase(process.env.THROUGHPUT_PROFILE_CASE || "runs"),
  });
}

function profileCase(value: string): ThroughputCase {
  if (value !== "runs" && value !== "threads") throw new Error(`THROUGHPUT_PROFILE_CASE is runs or threads, got ${JSON.stringify(value)}`);
  return value;
}

export async function measureThroughput(options: ThroughputOptions): Promise<Record<string, unknown>> {
  const cleanup: Array<() => Promise<unknown>> = [];
  const dir = mkdtempSync(join(tmpdir(), "bench-throughput-"));
  cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
  try {
    let temporal = options.temporal;
    // The server this bench starts (the dev server, or the real one on PostgreSQL) counts actions and persistence requests for it.
    const metricsPort = !temporal && !process.env.TEMPORAL_ADDRESS ? await freePort() : undefined;
    if (!temporal) {
      const started = await startTemporal({ log: (line) => progress(`temporal: ${line}`), ...(metricsPort !== undefined ? { metricsPort } : {}) });
      cleanup.push(() => started.stop());
      temporal = started;
    }
    const { address, namespace } = temporal;
    const counters = metricsPort === undefined ? undefined : () => serverCounters(metricsPort, namespace);
    const [connection, model, sdkBundle, bareBundle] = await Promise.all([
      Connection.connect({ address }),
      startScriptedModelServer(),
      options.sdkBundlePath ?? writeWorkflowBundle(dir),
      bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL("./bare/workflows.ts", import.meta.url)), logger: new DefaultLogger("WARN") }).then((bundle) => {
        const path = join(dir, "bare-bundle.json");
        writeFileSync(path, JSON.stringify(bundle));
        return path;
      }),
    ]);
    cleanup.push(() => connection.close(), () => model.close());
    model.respondToAny(twoSearchesThenAnswer(options.thinkMs));
    const client = new Client({ connection, namespace });
    const queues = { sdk: `bench-throughput-sdk-${randomUUID()}`, bare: `bench-throughput-bare-${randomUUID()}` };
    const bundles = { sdk: sdkBundle, bare: bareBundle };
    const spawnWorker = (kind: Kind, profileDir?: string) =>
      startWorkerProcess(kind, profileDir, {
        TEMPORAL_ADDRESS: address,
        NAMESPACE: namespace,
        TASK_QUEUE: queues[kind],
        MODEL_URL: model.url,
        BUNDLE_PATH: bundles[kind],
        MAX_CACHED: String(options.maxCached),
      });
    const agents = new AgentClient({ client, taskQueue: queues.sdk });
    const threads = new ThreadsClient({ client, taskQueue: queues.sdk, agent: throughputAgent });
    const turns = laneTurns({ agents, threads, client, bareQueue: queues.bare, threadTurns: options.threadTurns });

    const workers = { sdk: await spawnWorker("sdk"), bare: await spawnWorker("bare") };
    cleanup.push(() => workers.sdk.stop(), () => workers.bare.stop());
    // Warm-up of both: JIT, connections, the bundles' first load; not measured.
    const once = {
      stopped: () => true,
      done: () => undefined,
      failed: (err: unknown) => {
        throw err;
      },
    };
    for (const kind of ["sdk", "bare"] as const) await Promise.all([turns.runs[kind](once), turns.threads[kind](once)]);
    forget(model);

    const results: Record<string, Record<string, { sdk: PhaseResult; bare: PhaseResult; ratio: { throughput: number; cpuPerTurn: number; p50: number; rss: number }; pass: boolean }>> = {};
    for (const c of options.cases) {
      results[c] = {};
      for (const n of options.ns) {
        // Which path goes first alternates, so neither always inherits the other's leftovers.
        const order: Kind[] = options.ns.indexOf(n) % 2 === 0 ? ["sdk", "bare"] : ["bare", "sdk"];
        const phase = {} as Record<Kind, PhaseResult>;
        for (const kind of order) {
          const { windowUs: _, ...measured } = await measurePhase(`${c} ${kind} N=${n}`, n, options, workers[kind].pid, model, c === "runs" ? turns.runs[kind] : turns.threads[kind], counters);
        phase[kind] = measured;
        }
        const ratio = {
          throughput: round(phase.sdk.turnsPerSec / phase.bare.turnsPerSec, 3),
          cpuPerTurn: round(phase.sdk.cpuMsPerTurn / phase.bare.cpuMsPerTurn, 3),
          p50: round(phase.sdk.p50Ms / phase.bare.p50Ms, 3),
          rss: round(phase.sdk.rssMb / phase.bare.rssMb, 3),
        };
        const pass = ratio.throughput >= TARGETS.throughput && ratio.cpuPerTurn <= TARGETS.cpu;
        results[c][String(n)] = { sdk: phase.sdk, bare: phase.bare, ratio, pass };
        progress(`${c} N=${n}: throughput ${ratio.throughput}× bare, CPU per turn ${ratio.cpuPerTurn}× bare, RSS ${ratio.rss}× bare`);
      }
    }
    model.assertNoFailures();
    const largest = String(Math.max(...options.ns));
    const rss = Object.fromEntries(
      options.cases.map((c) => {
        const at = results[c]![largest]!;
        return [c, { n: Number(largest), sdkMb: at.sdk.rssMb, bareMb: at.bare.rssMb, ratio: at.ratio.rss, target: TARGETS.rss, pass: at.ratio.rss <= TARGETS.rss }];
      }),
    );
    await Promise.all([workers.sdk.stop(), workers.bare.stop()]);

    let profile: Record<string, unknown> | undefined;
    if (options.profileN > 0) {
      const profiled = { sdk: await spawnWorker("sdk", join(dir, "profile-sdk")), bare: await spawnWorker("bare", join(dir, "profile-bare")) };
      cleanup.push(() => profiled.sdk.stop(), () => profiled.bare.stop());
      const windows = {} as Record<Kind, { turns: number; windowUs: [number, number] }>;
      for (const kind of ["sdk", "bare"] as const) {
        const c = options.profileCase ?? "runs";
        windows[kind] = await measurePhase(`profile ${c} ${kind} N=${options.profileN}`, options.profileN, options, profiled[kind].pid, model, turns[c][kind]);
        await profiled[kind].stop();
      }
      profile = { case: options.profileCase ?? "runs", ...summariseProfiles({ sdk: join(dir, "profile-sdk"), bare: join(dir, "profile-bare") }, windows, { sdk: sdkBundle, bare: bareBundle }) };
      if (process.env.THROUGHPUT_KEEP_PROFILES) {
        const kept = process.env.THROUGHPUT_KEEP_PROFILES;
        for (const kind of ["sdk", "bare"] as const) {
          mkdirSync(join(kept, kind), { recursive: true });
          for (const f of readdirSync(join(dir, `profile-${kind}`))) writeFileSync(join(kept, kind, f), readFileSync(join(dir, `profile-${kind}`, f)));
        }
        progress(`profiles kept in ${kept}`);
      }
    }

    const all = Object.values(results).flatMap((byN) => Object.values(byN));
    return {
      bench: "throughput",
      target: process.env.TEMPORAL_TARGET || "dev",
      stepsPerTurn: TOOL_CALLS + 1,
      toolCallsPerTurn: TOOL_CALLS,
      thinkMs: options.thinkMs,
      windowSec: options.windowSec,
      threadTurns: options.threadTurns,
      maxCachedWorkflows: options.maxCached,
      loadAverage: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number),
      targets: TARGETS,
      ...results,
      rss,
      ...(profile ? { profile } : {}),
      pass: all.every((r) => r.pass) && Object.values(rss).every((r) => r.pass),
    };
  } finally {
    for (const step of cleanup.reverse()) await step().catch((err: unknown) => progress(`cleanup: ${String(err)}`));
  }
}

/** A lane's turns run until `stopped()`; `done()` is told when each ends, `failed()` when one threw (the lane goes on). */
type Lane = (lane: { stopped: () => boolean; done: (ms: number) => void; failed: (err: unknown) => void }) => Promise<void>;

function laneTurns(o: { agents: AgentClient; threads: ThreadsClient; client: Client; bareQueue: string; threadTurns: number }) {
  /** Whether the turn finished; a failed one is counted, and a chat lane then starts a new chat. */
  const timed = async (turn: () => Promise<unknown>, lane: { done: (ms: number) => void; failed: (err: unknown) => void }): Promise<boolean> => {
    const startedAt = performance.now();
    try {
      await turn();
    } catch (err) {
      lane.failed(err);
      return false;
    }
    lane.done(performance.now() - startedAt);
    return true;
  };
  const runLane =
    (turn: () => Promise<unknown>): Lane =>
    async (lane) => {
      do await timed(turn, lane);
      while (!lane.stopped());
    };
  const chatLane =
    (open: (prompt: string) => Promise<(prompt: string) => Promise<unknown>>): Lane =>
    async (lane) => {
      do {
        let say: ((prompt: string) => Promise<unknown>) | undefined;
        if (!(await timed(async () => (say = await open(`chat ${randomUUID()}`)), lane))) continue;
        for (let turn = 2; turn <= o.threadTurns && !lane.stopped(); turn++) if (!(await timed(() => say!(`question ${turn}`), lane))) break;
      } while (!lane.stopped());
    };
  return {
    runs: {
      sdk: runLane(async () => (await o.agents.start(throughputAgent, { prompt: `run ${randomUUID()}` })).result()),
      bare: runLane(() =>
        o.client.workflow.execute<typeof bareAgent>("bareAgent", {
          workflowId: `bare-${randomUUID()}`,
          taskQueue: o.bareQueue,
          args: [{ system: SYSTEM, prompt: `run ${randomUUID()}`, maxTurns: TOOL_CALLS + 1 }],
        }),
      ),
    } satisfies Record<Kind, Lane>,
    threads: {
      sdk: chatLane(async (prompt) => {
        const { threadId } = await o.threads.createThread({ prompt });
        await o.threads.settled({ threadId });
        return async (next) => {
          await o.threads.sendMessage({ threadId, prompt: next });
          await o.threads.settled({ threadId });
        };
      }),
      bare: chatLane(async (prompt) => {
        const handle = await o.client.workflow.start<typeof bareChat>("bareChat", {
          workflowId: `bare-chat-${randomUUID()}`,
          taskQueue: o.bareQueue,
          args: [{ system: SYSTEM, prompt, maxTurns: TOOL_CALLS + 1, turns: o.threadTurns }],
        });
        await handle.executeUpdate(chatTurnsUpdate, { args: [1] });
        return (next) => handle.executeUpdate(sayUpdate, { args: [next] });
      }),
    } satisfies Record<Kind, Lane>,
  };
}

/** N lanes: warm-up, then the measured window. */
async function measurePhase(
  label: string,
  n: number,
  options: Pick<ThroughputOptions, "warmupSec" | "windowSec">,
  pid: number,
  model: ScriptedModelServer,
  lane: Lane,
  counters?: () => Promise<ServerCounters>,
): Promise<PhaseResult & { windowUs: [number, number] }> {
  let stopped = false;
  const finished: Array<{ at: number; ms: number }> = [];
  let markWarm: () => void = () => undefined;
  const warmedUp = new Promise<void>((resolve) => (markWarm = resolve));
  const failures: Array<{ at: number; message: string }> = [];
  let giveUp: (err: Error) => void = () => undefined;
  const tooManyFailures = new Promise<never>((_, reject) => (giveUp = reject));
  const lanes = Array.from({ length: n }, () =>
    lane({
      stopped: () => stopped,
      done: (ms) => {
        finished.push({ at: performance.now(), ms });
        if (finished.length === n) markWarm();
      },
      // A turn the overloaded system refused (a worker too busy to answer a read in time) is
      // counted, and its lane goes on; only a phase where most turns fail stops.
      failed: (err) => {
        failures.push({ at: performance.now(), message: err instanceof Error ? err.message : String(err) });
        if (failures.length > 10 * n) giveUp(new Error(`${label}: ${failures.length} turns failed, e.g. ${failures[0]!.message}`));
      },
    }),
  );
  const failed = Promise.race([
    tooManyFailures,
    Promise.all(lanes).then(() => {
      throw new Error(`${label}: a lane ended before the window`);
    }),
  ]);
  failed.catch(() => undefined);
  // Warm-up: as many turns done as there are lanes (the ramp is over), and at least warmupSec
  // passed. Not every lane: one whose activity completion the server lost waits out its timeout.
  await Promise.race([Promise.all([warmedUp, sleep(options.warmupSec * 1000)]), failed]);
  const serverBefore = await counters?.();
  const before = processUsage(pid);
  const from = performance.now();
  const fromUs = monotonicUs();
  await Promise.race([sleep(options.windowSec * 1000), failed]);
  const after = processUsage(pid);
  const to = performance.now();
  const toUs = monotonicUs();
  // Read at once: what the server counts a moment later belongs to turns after the window, as much as before it.
  const serverAfter = await counters?.();
  stopped = true;
  // Lanes finish the turn they are in; one still out after DRAIN_SEC (a lost completion on an
  // overloaded server) is left to finish on its own and counted.
  let unfinished = n;
  for (const l of lanes) void l.finally(() => (unfinished -= 1)).catch(() => undefined);
  await Promise.race([Promise.all(lanes), sleep(DRAIN_SEC * 1000)]);
  if (unfinished > 0) progress(`${label}: ${unfinished} lane(s) still in a turn ${DRAIN_SEC}s after the window; going on without them`);
  forget(model);
  const inWindow = finished.filter((f) => f.at >= from && f.at <= to).map((f) => f.ms);
  const failedInWindow = failures.filter((f) => f.at >= from && f.at <= to);
  if (inWindow.length === 0) throw new Error(`${label}: no turn finished in the ${options.windowSec}s window; lengthen THROUGHPUT_WINDOW_SEC`);
  const result: PhaseResult & { windowUs: [number, number] } = {
    windowUs: [fromUs, toUs],
    turns: inWindow.length,
    turnsPerSec: round(inWindow.length / ((to - from) / 1000), 2),
    p50Ms: round(percentile(inWindow, 50), 1),
    p99Ms: round(percentile(inWindow, 99), 1),
    cpuMsPerTurn: round((after.cpuMs - before.cpuMs) / inWindow.length, 2),
    rssMb: round(after.rssMb, 1),
    ...(unfinished > 0 ? { unfinishedLanes: unfinished } : {}),
    ...(failedInWindow.length > 0 ? { failedTurns: failedInWindow.length, failure: failedInWindow[0]!.message } : {}),
    ...(serverBefore && serverAfter
      ? {
          server: {
            actionsPerTurn: round((serverAfter.actions - serverBefore.actions) / inWindow.length, 2),
            persistenceRequestsPerTurn: round((serverAfter.persistenceRequests - serverBefore.persistenceRequests) / inWindow.length, 1),
            persistenceWritesPerTurn: round((serverAfter.persistenceWrites - serverBefore.persistenceWrites) / inWindow.length, 1),
          },
        }
      : {}),
  };
  progress(`${label}: ${JSON.stringify({ ...result, windowUs: undefined })}`);
  return result;
}

export interface ServerCounters {
  actions: number;
  persistenceRequests: number;
  persistenceWrites: number;
}

/** Persistence operations that write (executions, history, tasks, visibility, shards). */
const WRITE_OPERATION = /^(Create|Update|Append|Upsert|Record|Delete|Complete|RangeComplete|ConflictResolve|Put|Add|Set|Insert|Save)/;

/** The dev server's `action` counter for `namespace`, and its persistence requests (every namespace: the server's own work for ours included). */
export async function serverCounters(port: number, namespace: string): Promise<ServerCounters> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const counters: ServerCounters = { actions: 0, persistenceRequests: 0, persistenceWrites: 0 };
  for (const line of text.split("\n")) {
    const match = /^(action|persistence_requests)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...match[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const value = Number(match[3]);
    if (match[1] === "action") {
      if (labels.namespace === namespace) counters.actions += value;
    } else {
      counters.persistenceRequests += value;
      if (WRITE_OPERATION.test(labels.operation ?? "")) counters.persistenceWrites += value;
    }
  }
  return counters;
}

/** CLOCK_MONOTONIC in µs: the clock of V8's profile timestamps, in any process on the machine. */
const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** The scripted server keeps every request; a long bench must not hoard them. */
const forget = (model: ScriptedModelServer): void => void model.requests.splice(0);

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU (user + system, every thread) and RSS of process `pid`, from /proc. */
export function processUsage(pid: number): { cpuMs: number; rssMb: number } {
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);
  return { cpuMs, rssMb: rssKb / 1024 };
}

export interface WorkerProcess {
  pid: number;
  stop(): Promise<void>;
}

/** bench/throughput-worker.ts in a process of its own (under `--cpu-prof` into `profileDir` if given), once it polls. */
export async function startWorkerProcess(kind: Kind, profileDir: string | undefined, env: Record<string, string>): Promise<WorkerProcess> {
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const script = fileURLToPath(new URL("./throughput-worker.ts", import.meta.url));
  const child: ChildProcess = spawn(process.execPath, [...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []), "--import", "tsx", script], {
    env: { ...process.env, ...env, WORKER_KIND: kind },
    // Its stdin closes when this process is gone, however it ends: the worker stops then.
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("ready")) resolve();
    });
    void exited.then(() => reject(new Error(`the ${kind} worker process exited before it was ready`)));
  });
  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid!,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
        await exited;
      })()),
  };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

type Owner = "ours" | "temporal" | "node+v8" | "other";

/**
 * Self time per turn by owner, and our top functions, from the `--cpu-prof` files of both
 * workers (every thread: the main one and the workflow threads). Workflow-bundle code is
 * one script; each line is given the module webpack wrote above it.
 */
function summariseProfiles(dirs: Record<Kind, string>, windows: Record<Kind, { turns: number; windowUs: [number, number] }>, bundles: Record<Kind, string>): Record<string, unknown> {
  type Entry = { fn: string; where: string; owner: Owner; ms: number };
  const selfMs = {} as Record<Kind, Map<string, Entry>>;
  for (const kind of ["sdk", "bare"] as const) {
    const modules = bundleModules(bundles[kind]);
    const self = new Map<string, Entry>();
    for (const file of readdirSync(dirs[kind]).filter((f) => f.endsWith(".cpuprofile"))) {
      const profile = JSON.parse(readFileSync(join(dirs[kind], file), "utf8")) as { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] };
      const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
      // Only the measured window's samples: start-up and wind-down are not per-turn work.
      const [from, to] = windows[kind].windowUs;
      let at = profile.startTime;
      profile.samples.forEach((id, i) => {
        at += profile.timeDeltas[i] ?? 0;
        if (at < from || at > to) return;
        const frame = nodes.get(id)!.callFrame;
        if (frame.functionName === "(idle)") return;
        const { where, owner } = ownerOf(frame, modules);
        // Line numbers in the bundle differ between the two bundles: a function there is keyed by its module.
        const key = `${frame.functionName}@${where.replace(/^(\.\/.*):\d+$/, "$1")}`;
        const entry = self.get(key) ?? { fn: frame.functionName || "(anonymous)", where, owner, ms: 0 };
        entry.ms += (profile.timeDeltas[i] ?? 0) / 1000;
        self.set(key, entry);
      });
    }
    for (const entry of self.values()) entry.ms /= windows[kind].turns;
    selfMs[kind] = self;
  }
  const byOwner = (kind: Kind) => {
    const totals: Record<Owner, number> = { ours: 0, temporal: 0, "node+v8": 0, other: 0 };
    for (const entry of selfMs[kind].values()) totals[entry.owner] += entry.ms;
    return totals;
  };
  const owners = { sdk: byOwner("sdk"), bare: byOwner("bare") };
  const rounded = (entries: Iterable<Entry>, count: number) =>
    [...entries]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, count)
      .map((e) => ({ ...e, ms: round(e.ms, 3) }));
  const extra = [...selfMs.sdk.entries()].map(([key, e]) => ({ ...e, ms: e.ms - (selfMs.bare.get(key)?.ms ?? 0) }));
  const roundAll = (totals: Record<Owner, number>) => Object.fromEntries(Object.entries(totals).map(([owner, ms]) => [owner, round(ms, 3)]));
  return {
    // Self CPU ms per turn in the profiled window, every thread of the worker process (idle left out).
    msPerTurnByOwner: { sdk: roundAll(owners.sdk), bare: roundAll(owners.bare) },
    extraMsPerTurnByOwner: roundAll(Object.fromEntries((Object.keys(owners.sdk) as Owner[]).map((o) => [o, owners.sdk[o] - owners.bare[o]])) as Record<Owner, number>),
    // Functions whose self time per turn grew most against the bare worker's (ours have no counterpart there).
    extraTopFunctions: rounded(extra, 12),
    oursTopFunctions: rounded([...selfMs.sdk.values()].filter((e) => e.owner === "ours"), 12),
  };
}

/** For each line of the bundle's code, the module webpack placed there (its header comments), as a sorted list of starts. */
function bundleModules(bundlePath: string): Array<{ line: number; module: string }> {
  const { code } = JSON.parse(readFileSync(bundlePath, "utf8")) as { code: string };
  const starts: Array<{ line: number; module: string }> = [];
  code.split("\n").forEach((text, line) => {
    // `/***/ "./path"` starts a module of its own, `;// ./path` one concatenated into another.
    const header = /^\/\*\*\*\/ "(\.\/[^"]+)"|^;\/\/ (\.\/\S+)\s*$/.exec(text);
    const module = header?.[1] ?? header?.[2];
    if (module) starts.push({ line, module });
  });
  return starts;
}

function ownerOf(frame: ProfileNode["callFrame"], modules: Array<{ line: number; module: string }>): { where: string; owner: Owner } {
  const { url, functionName, lineNumber } = frame;
  if (url === "" || url.startsWith("node:") || url.startsWith("wasm:")) return { where: url || functionName, owner: "node+v8" };
  // The scripts Temporal's workflow VM evaluates around the bundle (its calls into the workflow's scope).
  if (url.startsWith("evalmachine.")) return { where: url, owner: "temporal" };
  if (/\/workflow-bundle-[0-9a-f]+\.js$/.test(url)) {
    // The workflow bundle, evaluated from memory: the module above the line.
    let module = "(bundle)";
    for (const start of modules) {
      if (start.line > lineNumber) break;
      module = start.module;
    }
    return { where: `${module}:${lineNumber + 1}`, owner: ownerOfPath(module) };
  }
  const path = url.replace(/^file:\/\//, "");
  return { where: `${path.replace(/^.*?\/(node_modules|src|workflows|activities|bench)\//, "$1/")}:${lineNumber + 1}`, owner: ownerOfPath(path) };
}

function ownerOfPath(path: string): Owner {
  if (path.includes("@temporalio")) return "temporal";
  if (path.includes("node_modules")) return "other";
  if (/(^|\/)(src|workflows|activities)\//.test(path)) return "ours";
  return "other";
}
