/**
 * `npm run bench -- chaos`: a soak under faults on the real Temporal server over PostgreSQL.
 *
 * For CHAOS_SECONDS (default 180) it keeps CHAOS_RUNS payout runs (default 200) and
 * CHAOS_THREADS chat threads (default 30) in flight on two worker processes, while a fault
 * plan drawn from CHAOS_SEED (printed; random when unset) SIGKILLs workers, restarts the
 * Temporal server, cuts the workers' connections (a TCP proxy sits between them and the
 * server) and breaks model requests (bench/chaos/model.ts). Runs park on approvals that a
 * simulated person decides after a while, by token, through the HTTP front door or from the
 * inbox, sometimes twice; threads stream answers, wait on async tools, are stopped and
 * resumed. Then faults stop, every waiting decision is made, everything drains, and the
 * ledger (bench/chaos/ledger.ts) is checked against what Temporal says happened:
 * nothing lost, no effect done twice, none wedged, no decision refused that should not be.
 * The last line is the JSON result; `pass` is true when every count that must be 0 is.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import { closeSync, openSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from "@temporalio/client";
import { InterceptingCall, ListenerBuilder, RequesterBuilder } from "@grpc/grpc-js";
import type pg from "pg";
import { AgentClient, type AgentResult, type ChatMessage, type JsonObject } from "../src/index.js";
import { createAgentHttpHandler } from "../src/http.js";
import { startScriptedModelServer } from "../src/testing/index.js";
import { startPostgresTemporal } from "../src/testing/temporal-postgres.js";
import { kill, spawnReady } from "../test/workers/spawn.js";
import { BUNDLE_PATH_ENV, writeWorkflowBundle } from "../test/workflow-bundle.js";
import { chatAgent, payoutAgent } from "./chaos/agents.js";
import { createLedger, noticesAfter, openLedger, recordDecision, recordTranscript, type Notice } from "./chaos/ledger.js";
import { answerFor, chaosResponder, runPrompt, threadMessage, type ModelFault } from "./chaos/model.js";
import { faultPlan } from "./chaos/fault-plan.js";
import { between, draw, pick, prng } from "./chaos/random.js";
import { startTcpProxy } from "./chaos/tcp-proxy.js";
import { envInt, installRuntime, isStrayClientRetry, percentile, progress, round } from "./lib.js";

const SECONDS = envInt("CHAOS_SECONDS", 180);
const RUNS = envInt("CHAOS_RUNS", 200);
const THREADS = envInt("CHAOS_THREADS", 30);
const SEED = envInt("CHAOS_SEED", 1 + Math.floor(Math.random() * 2 ** 31));
/** Share of model requests (first and second attempts) that get a fault. */
const MODEL_FAULT_RATE = Number(process.env.CHAOS_MODEL_FAULT_RATE ?? "0.1");
/** The simulated person decides between these many seconds after the link arrives. */
const HUMAN_SECONDS: [number, number] = [1, envInt("CHAOS_HUMAN_MAX_SECONDS", 60)];
/** How long everything may take to settle once faults stop and every decision is made. */
const DRAIN_SECONDS = envInt("CHAOS_DRAIN_SECONDS", 240);
const WORKERS = 2;

type RunKind = "gated" | "deferral";
type Via = "token" | "http" | "inbox";
interface RunRecord {
  runId: string;
  kind: RunKind;
  approve: boolean;
  done: boolean;
  outcome?: string;
  decidedAt?: number;
  resumeToModelMs?: number;
}
interface ThreadRecord {
  threadId: string;
  sent: string[];
  done: boolean;
  stops: number;
  failedTurns: string[];
}

/**
 * Temporal's client retries a failed call from a timer that `Connection.close()` does not
 * clear; when it fires after a close (a connection closed while the server was restarting)
 * it throws "Channel has been shut down" from that timer, which would end this process and
 * its result. The soak aborts its calls before closing, and an abort that lands during the
 * retry's backoff is lost. Only that error, from that timer, is counted and let go; anything else still ends it.
 */
let strayRetries = 0;
function letStrayRetriesGo(): void {
  const guard = (err: Error): void => {
    if (isStrayClientRetry(err)) {
      strayRetries += 1;
      progress("a client retry fired after its connection closed (Temporal's client keeps its timers): ignored");
      return;
    }
    throw err;
  };
  process.on("uncaughtException", guard);
}

export async function main(): Promise<Record<string, unknown>> {
  installRuntime();
  // Kept for the process's life: such a timer may fire after main() has returned.
  letStrayRetriesGo();
  progress(`chaos: seed ${SEED}, ${SECONDS}s, ${RUNS} runs and ${THREADS} threads in flight`);
  const cleanup: Array<() => Promise<unknown>> = [];
  try {
    const temporal = await startPostgresTemporal({ log: (line) => progress(`temporal: ${line}`) });
    cleanup.push(() => temporal.stop());
    const ledgerUrl = await createLedger(temporal.postgres);
    const ledger = openLedger(ledgerUrl, 8);
    cleanup.push(() => ledger.end());
    const proxy = await startTcpProxy(temporal.address);
    cleanup.push(() => proxy.close());

    const faults: Record<string, number> = {};
    const count = (kind: string): void => {
      faults[kind] = (faults[kind] ?? 0) + 1;
    };
    const runs = new Map<string, RunRecord>();
    const model = await startScriptedModelServer();
    cleanup.push(() => model.close());
    const respond = chaosResponder({ seed: SEED, faultRate: MODEL_FAULT_RATE, hangMs: 20_000, onFault: (kind: ModelFault) => count(`model-${kind}`) });
    model.respondToAny((request) => {
      // Resume → the next model request of that run: the first request after the decision.
      const run = runs.get(request.conversation.split(" for ")[1] ?? "");
      if (run?.decidedAt !== undefined && run.resumeToModelMs === undefined) run.resumeToModelMs = Date.now() - run.decidedAt;
      return respond(request);
    });

    const bundleDir = await mkdtemp(join(tmpdir(), "chaos-bundle-"));
    cleanup.push(() => rm(bundleDir, { recursive: true, force: true }));
    const bundlePath = await writeWorkflowBundle(bundleDir);
    const taskQueue = `chaos-${SEED}`;
    const secret = randomBytes(32).toString("base64url");
    const workerEnv = {
      TEMPORAL_ADDRESS: proxy.address,
      TASK_QUEUE: taskQueue,
      MODEL_URL: model.url,
      SECRET: secret,
      LEDGER_URL: ledgerUrl,
      [BUNDLE_PATH_ENV]: bundlePath,
    };
    const workers: Array<ChildProcess | undefined> = [];
    const startWorker = async (slot: number): Promise<void> => {
      for (let attempt = 1; ; attempt++) {
        try {
          workers[slot] = await spawnWorker(workerEnv);
          return;
        } catch (err) {
          // The server may be restarting: the worker cannot connect yet.
          if (attempt >= 30) throw err;
          await sleep(1_000);
        }
      }
    };
    cleanup.push(async () => {
      for (const child of workers) if (child) await stopChild(child, "SIGTERM");
    });
    await Promise.all(Array.from({ length: WORKERS }, (_, slot) => startWorker(slot)));
    progress(`${WORKERS} workers ready; their log: ${WORKER_LOG}`);

    const inFlight = new Map<number, string>();
    let callId = 0;
    const connection = await Connection.connect({
      address: temporal.address,
      interceptors: [
        (options, next) => {
          const id = ++callId;
          const requester = new RequesterBuilder()
            .withStart((metadata, _listener, start) => {
              inFlight.set(id, options.method_definition.path);
              start(metadata, new ListenerBuilder().withOnReceiveStatus((status, receive) => (inFlight.delete(id), receive(status))).build());
            })
            .build();
          return new InterceptingCall(next(options), requester);
        },
        // What a client has by default, which giving interceptors replaces: retries of UNAVAILABLE and the like.
        makeGrpcRetryInterceptor(defaultGrpcRetryOptions()),
      ],
    });
    // The driver's calls stop before the connection closes: Temporal's retry interceptor keeps
    // its backoff timers past close(), and one firing then throws from a timer. A call aborted
    // while in backoff is sent again anyway (the abort is lost), so wait for those to end too:
    // at most a history long-poll's 20 s.
    const closing = new AbortController();
    setMaxListeners(0, closing.signal);
    cleanup.push(async () => {
      closing.abort();
      for (let waited = 0; inFlight.size > 0 && waited < 30_000; waited += 100) await sleep(100);
      if (inFlight.size > 0) progress(`calls still in flight at close: ${JSON.stringify([...inFlight.values()])}`);
    });
    cleanup.push(() => connection.close());
    const client = new Client({ connection, namespace: temporal.namespace });
    const approver = { id: "approver" };
    const agents = new AgentClient({ client, taskQueue, deferral: { secret }, threads: { agent: chatAgent } });
    const threads = agents.threads;
    /** A finding's workflow history, kept past the cluster (which stop() removes) to find its cause. */
    const keepHistory = async (workflowId: string): Promise<void> => {
      const history = await client.workflow.getHandle(workflowId).fetchHistory().catch(() => undefined);
      if (!history) return;
      await mkdir(FINDINGS_DIR, { recursive: true });
      await writeFile(join(FINDINGS_DIR, `${workflowId}.json`), JSON.stringify(history));
      progress(`kept ${workflowId}'s history in ${FINDINGS_DIR}`);
    };
    const http = serve({ fetch: createAgentHttpHandler({ agents, authenticate: () => approver, onError: () => undefined }), port: 0, hostname: "127.0.0.1" });
    cleanup.push(() => new Promise((resolve) => http.close(resolve)));
    await new Promise<void>((resolve) => http.once("listening", () => resolve()));
    const httpUrl = `http://127.0.0.1:${(http.address() as { port: number }).port}`;

    // Draining: no new work, every pending decision is made now, faults stop.
    const drain = new AbortController();
    const drained = drain.signal;
    // Every pending pause listens to it: hundreds at once, by design.
    setMaxListeners(0, drained);
    const pause = (ms: number): Promise<void> => sleep(ms, undefined, { signal: drained }).catch(() => undefined);
    let transientRetries = 0;
    /** Calls `task` until it answers or refuses with a typed code; anything else (the server restarting, a dropped connection) is retried. */
    const persist = async <T>(task: () => Promise<T>, what: string): Promise<T> => {
      const deadline = Date.now() + (SECONDS + DRAIN_SECONDS) * 1000;
      for (let attempt = 1; ; attempt++) {
        try {
          return await client.withAbortSignal(closing.signal, task);
        } catch (err) {
          if (closing.signal.aborted || (typedCode(err) !== undefined && !retryLater(err))) throw err;
          if (Date.now() > deadline) throw new Error(`${what}: still failing at the deadline: ${String(err)}`);
          transientRetries += 1;
          await sleep(Math.min(2_000, 100 * attempt));
        }
      }
    };

    // The links the workers record; each run and each async call waits for its own.
    const linkWaiters = new Map<string, (notice: Notice) => void>();
    const links = new Map<string, Notice>();
    const linkFor = (runId: string): Promise<Notice> => {
      const known = links.get(runId);
      return known ? Promise.resolve(known) : new Promise((resolve) => linkWaiters.set(runId, resolve));
    };
    /** The manager answers an async call after a few seconds (at once while draining). */
    const answer = async (notice: Notice): Promise<void> => {
      await pause(between(prng(Number(notice.id) ^ SEED), 500, 4_000));
      await persist(
        () => threads.addToolResult({ threadId: notice.run_id, toolCallId: notice.tool_call_id, result: { answer: "yes" }, answerToken: notice.token }),
        `answer ${notice.key}`,
      ).catch((err: unknown) => progress(`answer ${notice.key}: ${String(err)}`));
    };

    const answers: Array<Promise<void>> = [];
    let lastNotice = "0";
    let polling = true;
    const poller = (async () => {
      while (polling) {
        for (const notice of await noticesAfter(ledger, lastNotice)) {
          lastNotice = notice.id;
          if (notice.kind === "answer") answers.push(answer(notice));
          else {
            links.set(notice.run_id, notice);
            linkWaiters.get(notice.run_id)?.(notice);
          }
        }
        await sleep(250);
      }
    })();
    /** One decision, sent the way `via` says; records how it came back. */
    const decideOnce = async (run: RunRecord, notice: Notice, via: Via): Promise<void> => {
      const decisions = [{ toolCallId: notice.tool_call_id, approved: run.approve }];
      const payload: JsonObject = run.kind === "gated" ? { decisions } : { approved: run.approve };
      let outcome: string;
      try {
        const reply = await persist(async () => {
          if (via === "inbox") return agents.approvals.decide({ approvalId: notice.approval_id!, decisions, principal: approver });
          if (via === "token") return agents.resume({ token: notice.token, payload, principal: approver });
          const response = await fetch(`${httpUrl}/resume`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: notice.token, payload }) });
          const body = (await response.json().catch(() => ({}))) as { status?: string; error?: { code?: string; message?: string; retryLater?: true } };
          if (response.ok) return body as { status: string };
          const { code, message, retryLater } = body.error ?? {};
          throw Object.assign(new Error(message ?? `HTTP ${response.status}`), code ? { code, fields: { retryLater } } : {});
        }, `decide ${run.runId}`);
        outcome = reply.status;
      } catch (err) {
        outcome = `refused:${typedCode(err) ?? String(err)}`;
        progress(`decision on ${run.runId} via ${via} refused: ${String(err)}`);
      }
      await recordDecision(ledger, { runId: run.runId, deferralId: notice.approval_id ?? notice.key, via, outcome });
    };

    const oneRun = async (i: number): Promise<void> => {
      const runId = `chaos-${SEED}-run-${i}`;
      const random = prng(Math.floor(draw(SEED, "run", i) * 2 ** 32));
      const kind: RunKind = random() < 0.6 ? "gated" : "deferral";
      const run: RunRecord = { runId, kind, approve: random() < 0.85, done: false };
      runs.set(runId, run);
      const amount = between(random, 1, 999);
      const handle = await persist(() => agents.start(payoutAgent, { prompt: runPrompt(runId, kind, amount), runId }), `start ${runId}`);
      const result = persist(() => handle.result(), `result ${runId}`).then(
        (r: AgentResult) => `completed:${r.text}`,
        (err: unknown) => `failed:${typedCode(err) ?? String(err)}`,
      );
      const parked = await Promise.race([linkFor(runId), result.then(() => undefined)]);
      if (parked) {
        await pause(between(random, HUMAN_SECONDS[0], HUMAN_SECONDS[1]) * 1000);
        const via: Via = pick(random, kind === "gated" ? (["token", "http", "inbox"] as const) : (["token", "http"] as const));
        run.decidedAt = Date.now();
        // A person who clicks twice, or two people deciding at once.
        const twice = random() < 0.1;
        await Promise.all([decideOnce(run, parked, via), ...(twice ? [decideOnce(run, parked, "token")] : [])]);
      }
      run.outcome = await result;
      run.done = true;
    };

    const oneThread = async (j: number): Promise<ThreadRecord> => {
      const threadId = `chaos-${SEED}-thread-${j}`;
      const random = prng(Math.floor(draw(SEED, "thread", j) * 2 ** 32));
      const record: ThreadRecord = { threadId, sent: [], done: false, stops: 0, failedTurns: [] };
      const messages = between(random, 3, 6);
      for (let k = 0; k < messages && (k === 0 || !drained.aborted); k++) {
        const text = threadMessage(threadId, k, pick(random, ["plain", "plain", "lookup", "manager"] as const));
        if (k === 0) {
          await persist(
            () => threads.createThread({ threadId, prompt: text, stream: true }).catch((err: unknown) => {
              // A retried create that had gone through: the thread is there with this first message.
              if (typedCode(err) === "AI1025") return undefined;
              throw err;
            }),
            `create ${threadId}`,
          );
        } else {
          await persist(() => threads.sendMessage({ threadId, prompt: text, messageId: `m${k}` }), `send ${threadId} m${k}`);
        }
        record.sent.push(text);
        if (random() < 0.25 && !drained.aborted) {
          await pause(between(random, 0, 1_500));
          await persist(() => threads.stopThread({ threadId }), `stop ${threadId}`);
          record.stops += 1;
          await pause(between(random, 0, 2_000));
        }
        // Until the message is answered: a stopped or failed turn is resumed.
        for (;;) {
          const view = await persist(() => threads.settled({ threadId }), `settle ${threadId}`);
          if (view.status === "completed" && view.queued.length === 0) break;
          if (view.status === "stopped" || view.status === "failed") {
            if (view.status === "failed") {
              record.failedTurns.push(view.lastError?.code ?? "?");
              progress(`${threadId}: a turn failed: ${JSON.stringify(view.lastError)}`);
              await keepHistory(threadId);
            }
            await persist(
              () => threads.resumeThread({ threadId }).catch((err: unknown) => {
                if (typedCode(err) === "AI1024") return undefined; // nothing left to continue
                throw err;
              }),
              `resume ${threadId}`,
            );
          } else {
            await sleep(250); // waiting on the manager's answer
          }
        }
      }
      record.done = true;
      return record;
    };

    // The fault plan, drawn up front from the seed.
    const plan = faultPlan(SEED, SECONDS);
    progress(`fault plan: ${plan.map((f) => `${f.atSec}s ${f.kind}`).join(", ")}`);
    const startedAt = Date.now();
    const faulting = (async () => {
      const random = prng(SEED ^ 0x5eed);
      for (const fault of plan) {
        await pause(startedAt + fault.atSec * 1000 - Date.now());
        if (drained.aborted) return;
        count(fault.kind);
        progress(`${Math.round((Date.now() - startedAt) / 1000)}s: ${fault.kind}`);
        if (fault.kind === "worker-sigkill") {
          const slot = between(random, 0, WORKERS - 1);
          await stopChild(workers[slot]!, "SIGKILL");
          await sleep(between(random, 1_000, 5_000));
          await startWorker(slot);
        } else if (fault.kind === "server-restart") {
          await temporal.restart();
        } else {
          proxy.drop(between(random, 0, 3_000));
        }
      }
    })();

    // Lanes: each keeps one run (or one thread) going until the time is up.
    let nextRun = 0;
    let nextThread = 0;
    const threadRecords: ThreadRecord[] = [];
    const failures: string[] = [];
    const lane = async (work: () => Promise<void>): Promise<void> => {
      while (!drained.aborted) await work().catch((err: unknown) => void failures.push(String(err)));
    };
    const lanes = [
      ...Array.from({ length: RUNS }, () => lane(() => oneRun(nextRun++))),
      ...Array.from({ length: THREADS }, () => lane(async () => void threadRecords.push(await oneThread(nextThread++)))),
    ];
    const ticker = setInterval(() => {
      const open = [...runs.values()].filter((r) => !r.done).length;
      progress(`${Math.round((Date.now() - startedAt) / 1000)}s: ${runs.size} runs (${open} open), ${nextThread} threads, ${transientRetries} transient retries`);
    }, 15_000);
    cleanup.push(async () => clearInterval(ticker));

    await sleep(SECONDS * 1000);
    progress("time is up: faults stop, every waiting decision is made now, draining");
    drain.abort();
    await faulting;
    for (let slot = 0; slot < WORKERS; slot++) if (!workers[slot] || workers[slot]!.exitCode !== null) await startWorker(slot);
    const drainedInTime = await Promise.race([Promise.all(lanes).then(() => true), sleep(DRAIN_SECONDS * 1000, false)]);
    await Promise.race([Promise.all(answers), sleep(10_000)]);
    polling = false;
    await poller;
    progress(`drained ${drainedInTime ? "in time" : `NOT in ${DRAIN_SECONDS}s`}; checking`);

    for (const run of runs.values()) if (!run.done || !run.outcome?.startsWith("completed")) await keepHistory(run.runId);
    const verdict = await check({ agents, threads, ledger, runs: [...runs.values()], threadRecords }).catch((err: unknown) => {
      progress(`the checks failed: ${err instanceof Error ? err.stack : String(err)}`);
      throw err;
    });
    const resumeToModel = [...runs.values()].flatMap((r) => (r.resumeToModelMs === undefined ? [] : [r.resumeToModelMs]));
    const mustBeZero = {
      lost: verdict.lost,
      duplicatedEffects: verdict.duplicatedEffects,
      unapprovedEffects: verdict.unapprovedEffects,
      wedged: verdict.wedged,
      endedByServer: verdict.endedByServer,
      failedRuns: verdict.failedRuns,
      doubleResumes: verdict.doubleResumes,
      resumesRefusedWrongly: verdict.refusedWrongly,
      threadMessagesLost: verdict.threadMessagesLost,
      threadMessagesDuplicated: verdict.threadMessagesDuplicated,
      // No fault here is permanent: a turn that failed (and was resumed) is a finding too.
      threadTurnsFailed: threadRecords.reduce((n, t) => n + t.failedTurns.length, 0),
      driverErrors: failures.length,
    };
    if (failures.length > 0) progress(`driver errors, e.g.:\n  ${failures.slice(0, 5).join("\n  ")}`);
    return {
      bench: "chaos",
      seed: SEED,
      seconds: SECONDS,
      runsInFlight: RUNS,
      threadsInFlight: THREADS,
      runs: runs.size,
      runsCompleted: verdict.completed,
      threads: threadRecords.length,
      threadMessages: threadRecords.reduce((n, t) => n + t.sent.length, 0),
      threadStops: threadRecords.reduce((n, t) => n + t.stops, 0),
      threadTurnFailures: tally(threadRecords.flatMap((t) => t.failedTurns)),
      decisions: verdict.decisions,
      effects: verdict.effects,
      faults,
      transientRetries,
      strayClientRetries: strayRetries,
      ...mustBeZero,
      resumeToModelMs: resumeToModel.length ? { p50: round(percentile(resumeToModel, 50), 0), p99: round(percentile(resumeToModel, 99), 0), n: resumeToModel.length } : null,
      drainedInTime,
      pass: drainedInTime && Object.values(mustBeZero).every((n) => n === 0),
    };
  } finally {
    for (const step of cleanup.reverse()) await step().catch((err: unknown) => progress(`cleanup: ${String(err)}`));
  }
}

async function check(input: { agents: AgentClient; threads: AgentClient["threads"]; ledger: pg.Pool; runs: RunRecord[]; threadRecords: ThreadRecord[] }) {
  const { agents, threads, ledger, runs, threadRecords } = input;
  const verdict = {
    completed: 0,
    failedRuns: 0,
    wedged: 0,
    endedByServer: 0,
    lost: 0,
    duplicatedEffects: 0,
    unapprovedEffects: 0,
    doubleResumes: 0,
    refusedWrongly: 0,
    threadMessagesLost: 0,
    threadMessagesDuplicated: 0,
    decisions: {} as Record<string, number>,
    effects: 0,
  };
  const problem = (line: string): void => progress(`CHECK: ${line}`);

  // Every effect the ledger holds, by the run and call it belongs to.
  const { rows: effectRows } = await ledger.query<{ run_id: string; tool_call_id: string; keys: string[] }>(
    "SELECT run_id, tool_call_id, array_agg(DISTINCT key) AS keys FROM effects GROUP BY run_id, tool_call_id",
  );
  const { rows: attemptKeys } = await ledger.query<{ run_id: string; tool_call_id: string; keys: number }>(
    "SELECT run_id, tool_call_id, count(DISTINCT key)::int AS keys FROM effect_attempts GROUP BY run_id, tool_call_id HAVING count(DISTINCT key) > 1",
  );
  for (const row of attemptKeys) problem(`${row.run_id} ${row.tool_call_id}: its attempts used ${row.keys} idempotency keys`);
  verdict.duplicatedEffects += attemptKeys.length;
  const effectsByCall = new Map(effectRows.map((r) => [`${r.run_id}/${r.tool_call_id}`, r.keys.length]));
  verdict.effects = effectRows.length;
  const expected = new Set<string>();

  for (const run of runs) {
    const status = await agents.client.workflow
      .getHandle(run.runId)
      .describe()
      .then((d) => d.status.name, () => "NOT_FOUND");
    if (status === "RUNNING" || !run.done) {
      verdict.wedged += 1;
      problem(`${run.runId} (${run.kind}) is ${status}, driver done: ${run.done}`);
      continue;
    }
    if (status === "TERMINATED" || status === "TIMED_OUT") {
      verdict.endedByServer += 1;
      problem(`${run.runId} ended ${status}`);
      continue;
    }
    if (!run.outcome?.startsWith("completed")) {
      verdict.failedRuns += 1;
      problem(`${run.runId} (${run.kind}) ${run.outcome}`);
      continue;
    }
    verdict.completed += 1;
    const messages = await allPages((cursor) => agents.listMessages({ runId: run.runId, ...cursor ? { cursor, limit: 1000 } : { limit: 1000 } }));
    await recordTranscript(ledger, run.runId, "run", messages);
    const calls = new Map<string, string>();
    for (const m of messages) {
      if (m.role === "assistant") for (const call of m.tool_calls ?? []) calls.set(call.id, call.function.name);
      if (m.role !== "tool") continue;
      const tool = calls.get(m.tool_call_id);
      if (tool !== "sendPayout" && tool !== "transfer") continue;
      const key = `${run.runId}/${m.tool_call_id}`;
      const done = m.content.startsWith("sent") || m.content.startsWith("transferred");
      if (done) {
        expected.add(key);
        if (!run.approve) {
          verdict.unapprovedEffects += 1;
          problem(`${key}: ${tool} ran though the person said no`);
        }
        if (!effectsByCall.has(key)) {
          verdict.lost += 1;
          problem(`${key}: the transcript says ${JSON.stringify(m.content)} but the ledger has no effect`);
        }
      }
    }
    const decided = messages.some((m) => m.role === "tool" && (m.content.startsWith("Rejected") || m.content.includes('"approved":false')));
    if (!run.approve && !decided) {
      verdict.lost += 1;
      problem(`${run.runId}: the person said no, the transcript does not show it`);
    }
  }
  for (const [key, keys] of effectsByCall) {
    if (keys > 1) verdict.duplicatedEffects += 1;
    if (!expected.has(key) && runs.find((r) => key.startsWith(`${r.runId}/`))?.outcome?.startsWith("completed")) {
      verdict.duplicatedEffects += 1;
      problem(`${key}: an effect no transcript shows`);
    }
  }

  const { rows: decisions } = await ledger.query<{ deferral_id: string; via: string; outcome: string }>("SELECT deferral_id, via, outcome FROM decisions");
  const resumed = new Map<string, number>();
  for (const d of decisions) {
    verdict.decisions[d.outcome.startsWith("refused") ? "refused" : d.outcome] = (verdict.decisions[d.outcome.startsWith("refused") ? "refused" : d.outcome] ?? 0) + 1;
    if (d.outcome === "resumed") resumed.set(d.deferral_id, (resumed.get(d.deferral_id) ?? 0) + 1);
    if (d.outcome.startsWith("refused")) verdict.refusedWrongly += 1;
  }
  for (const [deferralId, n] of resumed) {
    if (n > 1) {
      verdict.doubleResumes += 1;
      problem(`${deferralId} was resumed ${n} times`);
    }
  }

  for (const thread of threadRecords) {
    const messages = await allPages((cursor) => threads.listMessages({ threadId: thread.threadId, limit: 1000, ...(cursor ? { cursor } : {}) }));
    await recordTranscript(ledger, thread.threadId, "thread", messages);
    const users = messages.filter((m) => m.role === "user").map((m) => m.content as string);
    for (const sent of thread.sent) {
      const seen = users.filter((u) => u === sent).length;
      const answers = messages.filter((m) => m.role === "assistant" && m.content === answerFor(sent)).length;
      if (seen === 0 || answers === 0) {
        verdict.threadMessagesLost += 1;
        problem(`${thread.threadId}: "${sent}" ${seen === 0 ? "is not in the transcript" : "was never answered"}`);
      }
      if (seen > 1 || answers > 1) {
        verdict.threadMessagesDuplicated += 1;
        problem(`${thread.threadId}: "${sent}" is there ${seen} times, answered ${answers} times`);
      }
    }
    if (users.join("\n") !== thread.sent.join("\n")) {
      verdict.threadMessagesLost += 1;
      problem(`${thread.threadId}: the transcript's messages are not the ones sent, in order`);
    }
  }
  for (const thread of threadRecords.filter((t) => !t.done)) {
    verdict.wedged += 1;
    problem(`${thread.threadId} did not settle`);
  }
  return verdict;
}

function tally(items: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}

async function allPages<M extends ChatMessage>(page: (cursor?: string) => Promise<{ messages: M[]; cursor?: string }>): Promise<M[]> {
  const messages: M[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    messages.push(...next.messages);
    cursor = next.cursor;
  } while (cursor);
  return messages;
}

/** The SDK's code on a typed error (RC…/AI…), also when it came back from the HTTP front door. */
function typedCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^(RC|AI)\d{4}$/.test(code) ? code : undefined;
}

/**
 * A typed refusal that asks to be sent again: an answer that arrived before its call was
 * recorded, or a read no worker answered in time (AI1015, HTTP 503: a worker was just killed).
 */
function retryLater(err: unknown): boolean {
  return typedCode(err) === "AI1015" || (err as { fields?: { retryLater?: unknown } }).fields?.retryLater === true;
}

/** Where the histories of runs and threads that failed a check are kept. */
const FINDINGS_DIR = join(tmpdir(), `durable-agents-chaos-${SEED}`);

/** The workers' own log lines (every activity a fault failed) go to this file, not to the bench's stderr. */
const WORKER_LOG = join(tmpdir(), `durable-agents-chaos-${SEED}-workers.log`);

async function spawnWorker(env: Record<string, string>): Promise<ChildProcess> {
  const log = openSync(WORKER_LOG, "a");
  try {
    return await spawnReady(fileURLToPath(new URL("./chaos/worker.ts", import.meta.url)), env, log);
  } finally {
    closeSync(log);
  }
}

/** test/workers/spawn.ts's `kill`, with a SIGKILL for a child that has not exited 15 s later. */
async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  await Promise.race([kill(child, signal), sleep(15_000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
