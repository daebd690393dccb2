/**
 * "Threads at scale": READERS_THREADS threads on one SDK worker process (bench throughput's),
 * each followed by one reader on the direct transport (all readers in one other process,
 * bench/follower-process.ts, as a chat front end would hold them), and READERS_RATE messages a
 * second sent across them, round robin, open loop (a message does not wait for the last
 * answer). Each turn is one streamed answer of READERS_ANSWER_CHARS characters after
 * READERS_THINK_MS.
 *
 * Reports: the time the readers took to join; memory per reader (the readers' process RSS
 * before and after they joined, and the worker's), connections per reader (the readers'
 * connections to the worker's endpoint, and the sockets the worker holds); then over a window
 * of READERS_WINDOW_SEC, the turn latency from the send to the reader seeing the turn complete
 * (p50/p99), the worker's CPU per turn, and on a dev server this bench started, billable
 * actions and persistence requests per turn from the server's metrics.
 *
 * Env: READERS_THREADS (1000), READERS_RATE (1), READERS_WINDOW_SEC (60), READERS_THINK_MS
 * (100), READERS_ANSWER_CHARS (2000), TEMPORAL_TARGET=postgres. Linux only (/proc).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Client, Connection } from "@temporalio/client";
import { ThreadsClient } from "../src/index.js";
import { startScriptedModelServer, startTemporal } from "../src/testing/index.js";
import { writeWorkflowBundle } from "../test/workflow-bundle.js";
import { envInt, freePort, percentile, progress, round, USAGE } from "./lib.js";
import { processUsage, serverCounters, startWorkerProcess } from "./throughput.js";
import { throughputAgent } from "./throughput-agent.js";

/** Threads created at once while setting up. */
const CREATE_CONCURRENCY = 50;
/** How long the bench waits after the window for the answers still due. */
const DRAIN_SEC = 60;

export interface ThreadReadersOptions {
  /** Threads, each with one reader. */
  threads: number;
  /** Messages a second across the threads (open loop). */
  rate: number;
  warmupSec: number;
  windowSec: number;
  /** The scripted model's think time before each answer. */
  thinkMs: number;
  /** Characters of each streamed answer. */
  answerChars: number;
  /** A running server to use (a test's); one is started otherwise. */
  temporal?: { address: string; namespace: string };
  /** The SDK's workflow bundle as test/workflow-bundle.ts writes it (a test run's); built here otherwise. */
  sdkBundlePath?: string;
}

export async function main(): Promise<Record<string, unknown>> {
  const rate = Number(process.env.READERS_RATE || 1);
  if (!(rate > 0)) throw new Error(`READERS_RATE is messages a second, above 0; got ${process.env.READERS_RATE}`);
  return measureThreadReaders({
    threads: envInt("READERS_THREADS", 1000),
    rate,
    warmupSec: 5,
    windowSec: envInt("READERS_WINDOW_SEC", 60),
    thinkMs: envInt("READERS_THINK_MS", 100),
    answerChars: envInt("READERS_ANSWER_CHARS", 2000),
  });
}

export async function measureThreadReaders(options: ThreadReadersOptions): Promise<Record<string, unknown>> {
  const { threads: threadCount, rate, warmupSec, windowSec, thinkMs, answerChars } = options;
  const cleanup: Array<() => Promise<unknown>> = [];
  const dir = mkdtempSync(join(tmpdir(), "bench-readers-"));
  cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
  try {
    let temporal = options.temporal;
    // The dev server this bench starts counts actions and persistence requests for it.
    const metricsPort = !temporal && (process.env.TEMPORAL_TARGET || "dev") === "dev" ? await freePort() : undefined;
    if (!temporal) {
      const started = await startTemporal({ log: (line) => progress(`temporal: ${line}`), ...(metricsPort !== undefined ? { metricsPort } : {}) });
      cleanup.push(() => started.stop());
      temporal = started;
    }
    const { address, namespace } = temporal;
    const counters = metricsPort === undefined ? undefined : () => serverCounters(metricsPort, namespace);
    const [connection, model, bundle] = await Promise.all([Connection.connect({ address }), startScriptedModelServer(), options.sdkBundlePath ?? writeWorkflowBundle(dir)]);
    cleanup.push(() => connection.close(), () => model.close());
    const answer = "x".repeat(answerChars);
    model.respondToAny(() => ({ text: answer, usage: USAGE, delay: thinkMs, chunkDelay: "1ms" }));
    const taskQueue = `bench-readers-${randomUUID()}`;
    // Every chat stays in the worker's cache, as a deployment serving that many live chats would size it.
    const maxCached = Math.max(500, threadCount + 100);
    const worker = await startWorkerProcess("sdk", undefined, { TEMPORAL_ADDRESS: address, NAMESPACE: namespace, TASK_QUEUE: taskQueue, MODEL_URL: model.url, BUNDLE_PATH: bundle, MAX_CACHED: String(maxCached) });
    cleanup.push(() => worker.stop());
    const threads = new ThreadsClient({ client: new Client({ connection, namespace }), taskQueue, agent: throughputAgent });

    let startedAt = performance.now();
    // Chats that have had a turn, at rest when their readers arrive.
    const threadIds: string[] = [];
    for (let i = 0; i < threadCount; i += CREATE_CONCURRENCY) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(CREATE_CONCURRENCY, threadCount - i) }, async () => {
          const { threadId } = await threads.createThread({ prompt: "hello" });
          await threads.settled({ threadId });
          return threadId;
        }),
      );
      threadIds.push(...batch);
    }
    const createSec = round((performance.now() - startedAt) / 1000, 1);
    progress(`${threadCount} threads created in ${createSec}s`);

    const readers = await startReaders({ TEMPORAL_ADDRESS: address, NAMESPACE: namespace, TASK_QUEUE: taskQueue, DIRECT: "1" });
    cleanup.push(() => readers.stop());
    const readersBefore = processUsage(readers.pid).rssMb;
    const workerBefore = { rssMb: processUsage(worker.pid).rssMb, sockets: sockets(worker.pid) };
    startedAt = performance.now();
    await readers.follow(threadIds);
    const joinSec = round((performance.now() - startedAt) / 1000, 1);
    // The heap settles after the joins' garbage: what stays is what following costs.
    await sleep(2000);
    const readersStats = await readers.stats();
    const readersAfter = processUsage(readers.pid).rssMb;
    const workerAfter = { rssMb: processUsage(worker.pid).rssMb, sockets: sockets(worker.pid) };
    progress(`${threadCount} readers joined in ${joinSec}s: ${JSON.stringify({ readersBefore, readersAfter, readersStats, workerBefore, workerAfter })}`);

    // Open loop: message k goes to thread k mod N at k / rate seconds, answered or not.
    const sent = new Map<string, number[]>();
    const latencies: Array<{ at: number; ms: number }> = [];
    readers.onAnswered((threadId, at) => {
      const sentAt = sent.get(threadId)?.shift();
      if (sentAt !== undefined) latencies.push({ at, ms: at - sentAt });
    });
    const sendFailures: string[] = [];
    const totalSec = warmupSec + windowSec;
    const sends: Array<Promise<unknown>> = [];
    const loopStart = Date.now();
    let windowFrom = 0;
    let before: { usage: ReturnType<typeof processUsage>; server?: Awaited<ReturnType<NonNullable<typeof counters>>> } | undefined;
    for (let k = 0; ; k++) {
      const due = loopStart + (k * 1000) / rate;
      if (due >= loopStart + totalSec * 1000) break;
      if (due > Date.now()) await sleep(due - Date.now());
      if (!before && Date.now() >= loopStart + warmupSec * 1000) {
        windowFrom = Date.now();
        before = { usage: processUsage(worker.pid), ...(counters ? { server: await counters() } : {}) };
      }
      const threadId = threadIds[k % threadIds.length]!;
      const list = sent.get(threadId) ?? [];
      list.push(Date.now());
      sent.set(threadId, list);
      sends.push(threads.sendMessage({ threadId, prompt: `message ${k}` }).catch((err: unknown) => sendFailures.push(err instanceof Error ? err.message : String(err))));
    }
    const windowTo = Date.now();
    const after = { usage: processUsage(worker.pid), ...(counters ? { server: await counters() } : {}) };
    await Promise.all(sends);
    const due = () => [...sent.values()].reduce((n, list) => n + list.length, 0);
    const drainUntil = Date.now() + DRAIN_SEC * 1000;
    while (due() > 0 && Date.now() < drainUntil) await sleep(200);
    const final = await readers.stats();
    const inWindow = latencies.filter((l) => l.at >= windowFrom && l.at <= windowTo);
    const turns = inWindow.length;
    if (turns === 0 || !before) throw new Error("no turn completed in the window: lengthen READERS_WINDOW_SEC");
    const ms = inWindow.map((l) => l.ms);
    const perTurn = (value: number, digits = 2) => round(value / turns, digits);
    return {
      bench: "thread-readers",
      target: process.env.TEMPORAL_TARGET || "dev",
      threads: threadCount,
      readers: threadCount,
      messagesPerSec: rate,
      thinkMs,
      answerChars,
      windowSec,
      loadAverage: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number),
      createSec,
      joinSec,
      maxCachedWorkflows: maxCached,
      readersProcess: {
        rssMbBefore: readersBefore,
        rssMbAfter: readersAfter,
        kbPerReader: round(((readersAfter - readersBefore) * 1024) / threadCount, 1),
        workerConnections: readersStats.workerConnections,
        failedReaders: readersStats.failedReaders,
        ...(readersStats.failure ? { failure: readersStats.failure } : {}),
        ...(final.failedReaders > readersStats.failedReaders ? { failedReadersAtEnd: final.failedReaders } : {}),
      },
      worker: {
        rssMbBefore: workerBefore.rssMb,
        rssMbAfter: workerAfter.rssMb,
        kbPerReader: round(((workerAfter.rssMb - workerBefore.rssMb) * 1024) / threadCount, 1),
        socketsBefore: workerBefore.sockets,
        socketsAfter: workerAfter.sockets,
        cpuMsPerTurn: perTurn(after.usage.cpuMs - before.usage.cpuMs),
      },
      turns,
      turnMs: { p50: round(percentile(ms, 50), 1), p99: round(percentile(ms, 99), 1), max: round(Math.max(...ms), 1) },
      unanswered: due(),
      ...(sendFailures.length > 0 ? { sendFailures: sendFailures.length, sendFailure: sendFailures[0] } : {}),
      ...(before.server && after.server
        ? {
            server: {
              actionsPerTurn: perTurn(after.server.actions - before.server.actions),
              persistenceRequestsPerTurn: perTurn(after.server.persistenceRequests - before.server.persistenceRequests, 1),
              persistenceWritesPerTurn: perTurn(after.server.persistenceWrites - before.server.persistenceWrites, 1),
              // The readers' reads included: they go on between turns.
              persistenceRequestsPerSec: round((after.server.persistenceRequests - before.server.persistenceRequests) / ((windowTo - windowFrom) / 1000), 1),
            },
          }
        : {}),
    };
  } finally {
    for (const step of cleanup.reverse()) await step().catch((err: unknown) => progress(`cleanup: ${String(err)}`));
  }
}

/** Sockets process `pid` holds open (its endpoint's readers among them). */
function sockets(pid: number): number {
  let count = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) count += 1;
    } catch {
      // Closed since the listing.
    }
  }
  return count;
}

/** bench/follower-process.ts in its thread-readers mode. */
async function startReaders(env: Record<string, string>) {
  const script = fileURLToPath(new URL("./follower-process.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const waiters = new Map<string, (rest: string) => void>();
  let answered: (threadId: string, at: number) => void = () => undefined;
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const [word, ...rest] = line.trim().split(" ");
    if (word === "answered") return answered(rest[0]!, Number(rest[1]));
    const waiter = waiters.get(word!);
    if (waiter) {
      waiters.delete(word!);
      waiter(rest.join(" "));
    }
  });
  const said = (word: string) =>
    new Promise<string>((resolve, reject) => {
      waiters.set(word, resolve);
      void exited.then(() => reject(new Error(`the readers' process exited before it said ${word}`)));
    });
  await said("ready");
  return {
    pid: child.pid!,
    async follow(threadIds: string[]) {
      const caughtUp = said("caught-up");
      child.stdin!.write(`${JSON.stringify({ threadIds })}\n`);
      await caughtUp;
    },
    async stats(): Promise<{ rssMb: number; workerConnections: number; failedReaders: number; failure?: string }> {
      const answer = said("stats");
      child.stdin!.write("stats\n");
      return JSON.parse(await answer) as { rssMb: number; workerConnections: number; failedReaders: number; failure?: string };
    },
    onAnswered(listener: (threadId: string, at: number) => void) {
      answered = listener;
    },
    async stop() {
      child.stdin!.end();
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
