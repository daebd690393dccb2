/**
 * "Cost near Temporal's floor" (issue 25): billable actions per piece of work, read from the
 * server's own `action` counter (what Temporal Cloud bills: starts, activity tasks, timers,
 * search-attribute upserts, signals, updates, queries answered by a worker, heartbeats that
 * reach the server). It starts its own dev server with `--metrics-port` and runs each piece
 * of work alone, reading the counter's delta for our namespace before and after.
 *
 * - approvalRun: lookup tool → approval tool (defers) → resume → payout tool → answer (four
 *   model calls, three tools), with model calls of COST_MODEL_MS (default 2 s) and of
 *   COST_SLOW_MODEL_MS (default 20 s); next to it, the floor: a bare Temporal workflow doing
 *   the same model and tool calls (bench/bare, no SDK code), parked on an update, with what
 *   any durable approval needs at least: the asking tool runs, the request is listed while it
 *   waits (a search attribute set, then cleared) and expires (a timer). The issue's "about 13".
 * - parkedPerMinute: actions while a run waits parked for COST_PARKED_S (default 60 s).
 * - threadTurn[chars][followers]: one streamed thread turn of 2,000 and 20,000 characters,
 *   with 0, 1 and 10 readers following it in this process (`followUpdates`).
 * - heartbeatsPerCallSecond: heartbeats counted over the approval runs' activity seconds.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@temporalio/client";
import { z } from "zod";
import { defineAgent, defineTool } from "../src/index.js";
import { inProcessStreamTransport } from "../src/stream/in-process.js";
import { startTemporal, type Responder } from "../src/testing/index.js";
import { startAgentStack, TEST_SECRET } from "../test/agent-stack.js";
import { approveUpdate } from "./bare/messages.js";
import type { bareApproval } from "./bare/workflows.js";
import { approvalTool, envInt, freePort, installRuntime, MODEL, progress, round, startBareWorker, USAGE } from "./lib.js";

const MODEL_MS = envInt("COST_MODEL_MS", 2000);
const SLOW_MODEL_MS = envInt("COST_SLOW_MODEL_MS", 20_000);
const PARKED_S = envInt("COST_PARKED_S", 60);
const SYSTEM = "You look the account up, ask a human to approve the payout, pay it, then answer.";

type Counts = Map<string, number>;

export async function main(): Promise<Record<string, unknown>> {
  installRuntime();
  const metricsPort = await freePort();
  const server = await startTemporal({ local: true, metricsPort, log: (line) => progress(`temporal: ${line}`) });
  const stack = await startAgentStack({ temporal: server, log: (line) => progress(`temporal: ${line}`) }).catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  const namespace = stack.namespace;
  /** The `action` counter of our namespace, by action type. */
  const actions = async (): Promise<Counts> => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const counts: Counts = new Map();
    for (const line of text.split("\n")) {
      const match = /^action\{([^}]*)\} (\d+(?:\.\d+)?(?:e\+\d+)?)$/.exec(line);
      if (!match) continue;
      const labels = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      if (labels.namespace !== namespace) continue;
      const type = labels.action_type ?? "unknown";
      counts.set(type, (counts.get(type) ?? 0) + Number(match[2]));
    }
    return counts;
  };
  /** Actions `work` adds, by type, once the server has counted what it caused (quiet for a moment). */
  const measure = async (work: () => Promise<unknown>): Promise<{ total: number; byOperation: Record<string, number> }> => {
    await settle();
    const before = await actions();
    await work();
    await settle();
    const after = await actions();
    const byOperation: Record<string, number> = {};
    for (const [type, n] of after) {
      const delta = n - (before.get(type) ?? 0);
      if (delta > 0) byOperation[type.replace(/^grpc_/, "")] = delta;
    }
    return { total: Object.values(byOperation).reduce((a, b) => a + b, 0), byOperation };
  };
  /** Waits until the counter stops moving: what a piece of work caused has been counted. */
  const settle = async (): Promise<void> => {
    let last = -1;
    for (let quiet = 0; quiet < 3; ) {
      await sleep(300);
      const total = [...(await actions()).values()].reduce((a, b) => a + b, 0);
      quiet = total === last ? quiet + 1 : 0;
      last = total;
    }
  };

  try {
    const tokens = new Map<string, string>();
    const lookup = defineTool({ name: "lookup", description: "Looks an account up", input: z.object({ account: z.string() }), handler: () => "acme: 250 due" });
    const pay = defineTool({ name: "pay", description: "Pays", input: z.object({ amount: z.number() }), handler: ({ amount }) => `paid ${amount}` });
    const agent = defineAgent({ id: "cost", model: MODEL, system: SYSTEM, tools: [lookup, approvalTool(tokens), pay], maxTurns: 6 });
    const { agents } = await stack.worker([agent], { deferral: { secret: TEST_SECRET }, client: { deferral: { secret: TEST_SECRET } } });
    const client = new Client({ connection: stack.connection, namespace });
    const bareQueue = await startBareWorker(stack, [
      { spec: { type: "function", function: { name: "lookup", parameters: { type: "object", properties: { account: { type: "string" } } } } }, handler: () => "acme: 250 due" },
      { spec: { type: "function", function: { name: "pay", parameters: { type: "object", properties: { amount: { type: "number" } } } } }, handler: () => "paid 250" },
      { spec: { type: "function", function: { name: "askApproval", parameters: { type: "object", properties: { amount: { type: "number" } } } } }, handler: () => "waiting for a human" },
    ]);

    const script = (delayMs: number): Responder => (_request, turn) => {
      const step =
        turn === 0
          ? { toolCalls: [{ name: "lookup", arguments: { account: "acme" } }] }
          : turn === 1
            ? { toolCalls: [{ name: "askApproval", arguments: { amount: 250 } }] }
            : turn === 2
              ? { toolCalls: [{ name: "pay", arguments: { amount: 250 } }] }
              : { text: "Paid 250." };
      return { ...step, delayMs, usage: USAGE };
    };

    const approvalRun = async (delayMs: number) => {
      const runId = `cost-${randomUUID()}`;
      stack.model.respond(runId, script(delayMs));
      const measured = await measure(async () => {
        const ack = await agents.run(agent, { prompt: runId, runId });
        if (ack.status !== "deferred") throw new Error(`expected the run to park, got ${ack.status}`);
        const resumed = await agents.resume({ token: tokens.get(runId)!, payload: { approved: true } });
        if (resumed.outcome.status !== "completed") throw new Error(`expected the run to complete, got ${resumed.outcome.status}`);
      });
      const floor = await measure(async () => {
        const workflowId = `cost-bare-${randomUUID()}`;
        stack.model.respond(workflowId, script(delayMs));
        const handle = await client.workflow.start<typeof bareApproval>("bareApproval", {
          workflowId,
          taskQueue: bareQueue,
          // The floor does what any durable approval needs: the asking tool runs, the request is listed and expires (72 h, the SDK's default).
          args: [{ system: SYSTEM, prompt: workflowId, maxTurns: 6, approvalTool: "askApproval", inbox: { ttlMs: 72 * 3600_000 } }],
        });
        // Parked once its fourth activity (the asking tool) completed: read from history, which is free.
        for (;;) {
          const events = (await handle.fetchHistory()).events ?? [];
          if (events.filter((e) => e.activityTaskCompletedEventAttributes).length >= 4 && events.some((e) => e.timerStartedEventAttributes)) break;
          await sleep(100);
        }
        await handle.executeUpdate(approveUpdate, { args: [JSON.stringify({ approved: true })] });
        await handle.result();
      });
      progress(`approval run at ${delayMs} ms per model call: ${measured.total} actions (floor ${floor.total})`);
      return { actions: measured.total, floor: floor.total, ratio: round(measured.total / floor.total, 2), byOperation: measured.byOperation, floorByOperation: floor.byOperation };
    };

    const only = process.env.COST_ONLY;
    const skip = { actions: 0, floor: 0, ratio: 0, byOperation: {}, floorByOperation: {} } as Awaited<ReturnType<typeof approvalRun>>;
    const fast = only === "thread" ? skip : await approvalRun(MODEL_MS);
    const slow = only === "thread" ? skip : await approvalRun(SLOW_MODEL_MS);
    // Four model calls and three tools: the model calls are what the latency stretches.
    const heartbeats = (run: typeof fast) => run.byOperation.RecordActivityTaskHeartbeat ?? 0;
    const heartbeatsPerCallSecond = round((heartbeats(slow) - heartbeats(fast)) / ((4 * (SLOW_MODEL_MS - MODEL_MS)) / 1000), 3);

    // Parked: nothing of ours should bill while a run waits.
    const parkedId = `cost-parked-${randomUUID()}`;
    stack.model.respond(parkedId, script(0));
    const ack = await agents.run(agent, { prompt: parkedId, runId: parkedId });
    if (ack.status !== "deferred") throw new Error("expected the parked run to park");
    const parked = await measure(() => sleep(only === "thread" ? 0 : PARKED_S * 1000));
    await agents.cancel(parkedId);
    progress(`parked for ${PARKED_S} s: ${parked.total} actions`);

    // Streamed thread turns, with readers following in this process: deltas by signal (the
    // default, "workflow") and on the in-process transport. Readers join before the turn
    // (what joining costs is reported apart: a reader joins once and follows many turns).
    const streamed = await stack.worker([agent], {
      deferral: { secret: TEST_SECRET },
      threads: { stream: { transport: inProcessStreamTransport() } },
      client: { deferral: { secret: TEST_SECRET }, stream: { transport: inProcessStreamTransport() } },
    });
    const threadTurns = async (threads: typeof agents.threads, label: string) => {
      const turns: Record<string, Record<string, { actions: number; joinActions: number; byOperation: Record<string, number> }>> = {};
      for (const chars of [2000, 20_000]) {
        turns[chars] = {};
        for (const followers of [0, 1, 10]) {
          const threadId = `cost-thread-${randomUUID()}`;
          const answer = "x".repeat(chars);
          stack.model.respond(threadId, (request) => (request.messages.at(-1)?.content === "go" ? { text: answer, chunkDelayMs: 5, usage: USAGE } : { text: "ready", usage: USAGE }));
          await threads.createThread({ threadId, prompt: threadId, agent });
          await threads.settled({ threadId });
          const stop = new AbortController();
          const joined: Array<Promise<void>> = [];
          const readers: Array<Promise<void>> = [];
          const join = await measure(async () => {
            for (let i = 0; i < followers; i++) {
              let caughtUp!: () => void;
              joined.push(new Promise<void>((resolve) => (caughtUp = resolve)));
              readers.push(
                (async () => {
                  let first = true;
                  let sawAnswer = false;
                  for await (const batch of threads.followUpdates({ threadId, signal: stop.signal })) {
                    if (first) caughtUp();
                    first = false;
                    if (batch.updates.some((u) => u.type === "message" && u.message.role === "assistant" && u.message.content === answer)) sawAnswer = true;
                    if (sawAnswer && batch.updates.some((u) => u.type === "status" && u.status === "completed")) return;
                  }
                })(),
              );
            }
            await Promise.all(joined);
          });
          const measured = await measure(async () => {
            await threads.sendMessage({ threadId, prompt: "go" });
            await threads.settled({ threadId });
            await Promise.all(readers);
          });
          stop.abort();
          turns[chars]![followers] = { actions: measured.total, joinActions: join.total, byOperation: measured.byOperation };
          progress(`thread turn (${label}) of ${chars} characters, ${followers} followers: ${measured.total} actions (joining ${join.total})`);
        }
      }
      return turns;
    };
    const threadTurn = await threadTurns(agents.threads, "signals");
    const threadTurnInProcess = await threadTurns(streamed.agents.threads, "in-process transport");

    return {
      bench: "cost",
      modelMs: MODEL_MS,
      slowModelMs: SLOW_MODEL_MS,
      approvalRun: fast,
      approvalRunSlow: slow,
      parkedPerMinute: round((parked.total * 60) / PARKED_S, 2),
      parkedByOperation: parked.byOperation,
      threadTurn,
      threadTurnInProcess,
      heartbeatsPerCallSecond,
    };
  } finally {
    await stack.close();
    await server.stop();
  }
}
