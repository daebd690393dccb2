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
 * - runStream: a run of one 2,000-character answer on the in-process transport, as started
 *   plainly (`plain`) and with `stream: true` followed by 0, 1 and 10 readers (`streamed[n]`).
 * - threadTurn[chars][followers][processes]: one streamed thread turn of 2,000 and 20,000
 *   characters on the defaults (no stream setting on the worker or on any client: the worker
 *   serves deltas from its own endpoint), with no reader ([0][0]), and with 1 reader in one
 *   other process, 10 in one and 10 spread 4/3/3 over three (bench/follower-process.ts,
 *   `followUpdates`). Each case has `actions` (the turn), `joinActions` (the readers joining
 *   before it: a reader joins once and follows many turns) and `byOperation`.
 * - threadTurnBySignal[chars][followers]: the same turn with deltas by signal (`"workflow"`),
 *   0, 1 and 10 readers in this process; threadTurnInProcess, on the in-process transport.
 * - threadTurnUnstreamed[chars][0]: the by-signal turn on a thread created with `stream: false`
 *   (the answer arrives whole, as its message), nobody following: deltas by signal cost nothing then.
 * - threadTurnRedis[chars][followers][processes]: the worker publishes on the Redis transport
 *   (a redis-server of its own, `startRedis`) and the readers follow from other processes
 *   (bench/follower-process.ts, each with its own AgentClient on Redis): 1 reader in one,
 *   10 in one and 10 spread 4/3/3 over three; no reader is keyed [0][0].
 * - threadTurnSse[chars][followers]: the readers are SSE clients of the front door's
 *   `GET /threads/:id/events`, the front door in this process with the worker (in-process
 *   transport); threadTurnSseRedis[2000][followers]: the front door in another process, on
 *   Redis; threadTurnSseDefault[2000][followers], on the defaults. No reader is the same
 *   turn as threadTurnInProcess[chars][0], so it is not run again.
 * - sseFirstDeltaMs { signals, inProcess, redis, direct }: from sendMessage to the first
 *   delta an SSE reader of a front door in this process gets, median of FIRST_DELTA_SAMPLES
 *   turns per path (each sample in sseFirstDeltaSamplesMs); for `direct`, the worker is on the
 *   defaults and the front door's client has a direct transport of its own, as in another
 *   process, and connects to the worker's endpoint.
 * - heartbeatsPerCallSecond: heartbeats counted over the approval runs' activity seconds.
 * - policyRun { ungated, allowed, denied }: one tool call, ungated, allowed by a `needsApproval`
 *   policy and denied by one: a policy costs nothing of its own (issue 49).
 * - toolProgress { silent, reporting, extra }: a later turn of a thread (one tool call, then
 *   the answer) on the defaults with one reader following, its tool reporting nothing, then
 *   reporting 1,000 times over its 600 ms: progress on a transport costs 0 (issue 51).
 * - chat { firstTurn[followers], laterTurn[followers], goals, pass }: chats as a new user has them
 *   on the defaults, readers (0, 1, 10) in one other process: a new thread's first 2,000-character
 *   turn from createThread with its message to `settled`, joins included (`steps`: create, join,
 *   rest), and a later turn (`joinActions` apart); `pass` holds them to CHAT_GOALS. `useChat`:
 *   the same first and later turn through `ThreadChatTransport` and a front door in this
 *   process, as a React app has them (reported, not held to the goals).
 * - permissionTurn { ungated, permitted }: a later thread turn of one tool call, the tool
 *   ungated, and gated with a standing permission granted in the first turn: a permitted
 *   call costs what an ungated one does (issue 49).
 * - reminderRun { asked, reminded, escalated }: one gated call decided by its token once the
 *   last notification was sent: asked only, reminded once, escalated once (issue 49).
 * - subAgentTurn { tool, subAgent, subAgentWithTool, extra }: a later turn of a thread on the
 *   defaults with one reader following, its one call a tool's, a sub-agent's that answers at
 *   once, and a sub-agent's that calls a tool first (issues 49, 51).
 * - consoleViews { list, listLive304, runParked, runParkedLive304, runCompleted, approvals }:
 *   each console view opened COST_CONSOLE_VIEWS (default 20) times, actions per view (issue 50);
 *   inboxRequestPage, the inbox's request page (one query per view), is the control.
 * - consoleViews { rowSummaryParked, rowSummaryCompleted }: the list's per-row figures (the
 *   summary route its script asks per row shown), first ask and cached asks alike (issue 50).
 *
 * COST_ONLY=thread runs the thread cases alone (the approval and parked cases report zeros);
 * COST_ONLY=chat the chat cases alone (the result holds only `chat`), COST_ONLY=run the run
 * stream cases alone (only `runStream`), COST_ONLY=policy policyRun alone, COST_ONLY=remind
 * reminderRun alone, COST_ONLY=progress toolProgress alone, COST_ONLY=approval approvalRun alone,
 * COST_ONLY=permission permissionTurn alone, COST_ONLY=subagent subAgentTurn alone, COST_ONLY=percall
 * perCallRun alone, COST_ONLY=console consoleViews alone.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Client } from "@temporalio/client";
import { z } from "zod";
import { AgentClient, defineAgent, defineTool, directStreamTransport, inProcessStreamTransport, type ApprovalOptions, type ApprovalRequestInfo, type ThreadsClient } from "../src/index.js";
import { ThreadChatTransport } from "../src/react.js";
import { redisStreamTransport } from "../src/redis.js";
import { startRedis, startTemporal, type Responder } from "../src/testing/index.js";
import { startAgentStack, TEST_SECRET } from "../test/agent-stack.js";
import { startHttp } from "../test/http-support.js";
import { approveUpdate } from "./bare/messages.js";
import type { bareApproval } from "./bare/workflows.js";
import { actionCounter, type Measured } from "./actions.js";
import { approvalTool, envInt, freePort, installRuntime, median, MODEL, progress, round, startBareWorker, USAGE } from "./lib.js";
import { followEvents, followThread, type Following } from "./stream-followers.js";

const MODEL_MS = envInt("COST_MODEL_MS", 2000);
const SLOW_MODEL_MS = envInt("COST_SLOW_MODEL_MS", 20_000);
const PARKED_S = envInt("COST_PARKED_S", 60);
/** Streamed characters of the measured thread turns. */
const CHARS = [2000, 20_000];
/** Turns per path whose time to the first SSE delta is the median. */
const FIRST_DELTA_SAMPLES = 3;
const SYSTEM = "You look the account up, ask a human to approve the payout, pay it, then answer.";

export async function main(): Promise<Record<string, unknown>> {
  installRuntime();
  const metricsPort = await freePort();
  const server = await startTemporal({ local: true, metricsPort, log: (line) => progress(`temporal: ${line}`) });
  const stack = await startAgentStack({ temporal: server, log: (line) => progress(`temporal: ${line}`) }).catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  const namespace = stack.namespace;
  /** Closed before the stack (front doors, follower processes), and after it (the transport the workers publish on, Redis). */
  const closers: Array<() => Promise<unknown>> = [];
  const afterStack: Array<() => Promise<unknown>> = [];
  const { measureSteps, measure } = actionCounter(metricsPort, namespace);

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
      return { ...step, delay: delayMs, usage: USAGE };
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

    /**
     * policyRun: one tool call then the answer (model calls of 0 ms), the tool ungated, gated
     * by a `needsApproval` policy that allows the call, and by one that denies it. A policy
     * answers inside the model call's activity: allowed costs what ungated does, denied one
     * activity less (its tool never runs) and nothing parks.
     */
    const policyRun = async (): Promise<Record<"ungated" | "allowed" | "denied", Measured>> => {
      const variants = { ungated: undefined, allowed: () => "allow" as const, denied: () => ({ deny: "over the limit" }) };
      const policyAgents = Object.fromEntries(
        Object.entries(variants).map(([name, needsApproval]) => {
          const refund = defineTool({ name: "refund", description: "Refunds", input: z.object({ amount: z.number() }), ...(needsApproval ? { needsApproval } : {}), handler: ({ amount }) => `refunded ${amount}` });
          return [name, defineAgent({ id: `cost-policy-${name}`, model: MODEL, system: "Refund.", tools: [refund], maxTurns: 3 })];
        }),
      ) as Record<keyof typeof variants, ReturnType<typeof defineAgent>>;
      const { agents: policyClient } = await stack.worker(Object.values(policyAgents), { deferral: { secret: TEST_SECRET }, client: { deferral: { secret: TEST_SECRET } } });
      const out = {} as Record<keyof typeof variants, Measured>;
      for (const name of Object.keys(variants) as Array<keyof typeof variants>) {
        const runId = `cost-policy-${name}-${randomUUID()}`;
        stack.model.respond(runId, (_request, turn) => ({ ...(turn === 0 ? { toolCalls: [{ name: "refund", arguments: { amount: 20 } }] } : { text: "Done." }), usage: USAGE }));
        out[name] = await measure(async () => {
          const result = await policyClient.run(policyAgents[name], { prompt: runId, runId });
          if (result.status !== "completed") throw new Error(`expected the ${name} run to complete, got ${result.status}`);
        });
        progress(`policy run, ${name}: ${out[name].total} actions`);
      }
      return out;
    };
    /**
     * reminderRun: one gated call decided by its token once the last thing due was told (model
     * calls of 0 ms): asked only, reminded once (`approval.remind`), escalated once
     * (`approval.escalate`). Each reminder or escalation that comes is a timer and a notify
     * activity; a request with neither costs what it did.
     */
    const reminderRun = async (): Promise<Record<"asked" | "reminded" | "escalated", Measured>> => {
      const told = new Map<string, Array<{ reason: string; token: string }>>();
      const waiters = new Map<string, () => void>();
      const notify = (request: ApprovalRequestInfo) => {
        told.set(request.runId, [...(told.get(request.runId) ?? []), { reason: request.reason, token: request.token }]);
        waiters.get(`${request.runId}/${request.reason}`)?.();
      };
      const variants: Record<"asked" | "reminded" | "escalated", ApprovalOptions> = {
        asked: { ttl: "60s", notify },
        reminded: { ttl: "60s", remind: ["59s"], notify },
        escalated: { ttl: "60s", escalate: { after: "1s", requires: ["cfo"] }, notify },
      };
      const remindAgents = Object.fromEntries(
        Object.entries(variants).map(([name, approval]) => {
          const refund = defineTool({ name: "refund", description: "Refunds", input: z.object({ amount: z.number() }), needsApproval: true, approval, handler: ({ amount }) => `refunded ${amount}` });
          return [name, defineAgent({ id: `cost-remind-${name}`, model: MODEL, system: "Refund.", tools: [refund], maxTurns: 3 })];
        }),
      ) as Record<keyof typeof variants, ReturnType<typeof defineAgent>>;
      const { agents: remindClient } = await stack.worker(Object.values(remindAgents), { deferral: { secret: TEST_SECRET }, client: { deferral: { secret: TEST_SECRET } } });
      const out = {} as Record<keyof typeof variants, Measured>;
      for (const name of Object.keys(variants) as Array<keyof typeof variants>) {
        const runId = `cost-remind-${name}-${randomUUID()}`;
        const last = name === "asked" ? "asked" : name === "reminded" ? "reminder" : "escalated";
        const due = new Promise<void>((resolve) => waiters.set(`${runId}/${last}`, resolve));
        stack.model.respond(runId, (_request, turn) => ({ ...(turn === 0 ? { toolCalls: [{ id: "call-refund", name: "refund", arguments: { amount: 20 } }] } : { text: "Done." }), usage: USAGE }));
        out[name] = await measure(async () => {
          const ack = await remindClient.run(remindAgents[name], { prompt: runId, runId });
          if (ack.status !== "deferred") throw new Error(`expected the ${name} run to park, got ${ack.status}`);
          await due;
          // By the token the approver was sent: no record read, so only the run's own actions are counted.
          const resumed = await remindClient.resume({ token: told.get(runId)![0]!.token, payload: { decisions: [{ toolCallId: "call-refund", approved: true }] } as never });
          if (resumed.outcome.status !== "completed") throw new Error(`expected the ${name} run to complete, got ${resumed.outcome.status}`);
        });
        progress(`approval request, ${name}: ${out[name].total} actions`);
      }
      return out;
    };
    /**
     * perCallRun (#49): three gated calls in one model step (model calls of 0 ms), decided
     * whole in one resume and call by call in three. Each decision after the first may add
     * its own update and nothing else: the request keeps its one timer, the calls their
     * activities, the model its one call after the last decision.
     */
    const perCallRun = async (): Promise<Record<"whole" | "oneByOne", Measured>> => {
      const tokensByRun = new Map<string, string>();
      const told = new Map<string, () => void>();
      const refund = defineTool({
        name: "refund",
        description: "Refunds",
        input: z.object({ amount: z.number() }),
        needsApproval: true,
        approval: { ttl: "60s", notify: (request) => (tokensByRun.set(request.runId, request.token), told.get(request.runId)?.()) },
        handler: ({ amount }) => `refunded ${amount}`,
      });
      const perCallAgent = defineAgent({ id: "cost-per-call", model: MODEL, system: "Refund.", tools: [refund], maxTurns: 3 });
      const { agents: perCallClient } = await stack.worker([perCallAgent], { deferral: { secret: TEST_SECRET }, client: { deferral: { secret: TEST_SECRET } } });
      const ids = ["call-a", "call-b", "call-c"];
      const out = {} as Record<"whole" | "oneByOne", Measured>;
      for (const name of ["whole", "oneByOne"] as const) {
        const runId = `cost-per-call-${name}-${randomUUID()}`;
        const asked = new Promise<void>((resolve) => told.set(runId, resolve));
        stack.model.respond(runId, (_request, turn) => ({ ...(turn === 0 ? { toolCalls: ids.map((id, i) => ({ id, name: "refund", arguments: { amount: 10 + i } })) } : { text: "Done." }), usage: USAGE }));
        out[name] = await measure(async () => {
          const ack = await perCallClient.run(perCallAgent, { prompt: runId, runId });
          if (ack.status !== "deferred") throw new Error(`expected the ${name} run to park, got ${ack.status}`);
          await asked;
          const token = tokensByRun.get(runId)!;
          // By the token the approvers were sent: no record read, so only the run's own actions are counted.
          const groups = name === "whole" ? [ids] : ids.map((id) => [id]);
          let last: string | undefined;
          for (const group of groups) last = (await perCallClient.resume({ token, payload: { decisions: group.map((toolCallId) => ({ toolCallId, approved: true })) } as never })).outcome.status;
          if (last !== "completed") throw new Error(`expected the ${name} run to complete, got ${last}`);
        });
        progress(`three gated calls decided ${name}: ${out[name].total} actions ${JSON.stringify(out[name].byOperation)}`);
      }
      return out;
    };
    const perCall = only === undefined || only === "percall" ? await perCallRun() : undefined;
    const perCallCosts = perCall ? { perCallRun: { whole: { actions: perCall.whole.total, byOperation: perCall.whole.byOperation }, oneByOne: { actions: perCall.oneByOne.total, byOperation: perCall.oneByOne.byOperation }, extraPerDecision: round((perCall.oneByOne.total - perCall.whole.total) / 2, 2) } } : {};
    if (only === "percall") return { bench: "cost", ...perCallCosts };

    const reminders = only === undefined || only === "remind" ? await reminderRun() : undefined;
    const reminderCosts = reminders ? { reminderRun: Object.fromEntries(Object.entries(reminders).map(([name, m]) => [name, { actions: m.total, byOperation: m.byOperation }])) } : {};
    if (only === "remind") return { bench: "cost", ...reminderCosts };

    /**
     * permissionTurn: a later turn of a thread (one tool call, then the answer; model calls of
     * 0 ms), the tool ungated, and gated with a standing permission granted in the thread's
     * first turn. The permission travels in the model call's input and is checked in the
     * workflow: the permitted turn costs what the ungated one does.
     */
    const permissionTurn = async (): Promise<Record<"ungated" | "permitted", Measured>> => {
      const variants = { ungated: false, permitted: true };
      // The first turn's request, as its approver is told it.
      const askedIn = new Map<string, (request: ApprovalRequestInfo) => void>();
      const notify = (request: ApprovalRequestInfo) => askedIn.get(request.threadId ?? "")?.(request);
      const turnAgents = Object.fromEntries(
        Object.entries(variants).map(([name, gated]) => {
          const refund = defineTool({ name: "refund", description: "Refunds", input: z.object({ amount: z.number() }), ...(gated ? { needsApproval: true, approval: { notify } } : {}), handler: ({ amount }) => `refunded ${amount}` });
          return [name, defineAgent({ id: `cost-permission-${name}`, model: MODEL, system: "Refund.", tools: [refund], maxTurns: 3 })];
        }),
      ) as Record<keyof typeof variants, ReturnType<typeof defineAgent>>;
      const { agents: turnClient } = await stack.worker(Object.values(turnAgents), { deferral: { secret: TEST_SECRET }, client: { deferral: { secret: TEST_SECRET } } });
      const out = {} as Record<keyof typeof variants, Measured>;
      for (const name of Object.keys(variants) as Array<keyof typeof variants>) {
        const threadId = `cost-permission-${name}-${randomUUID()}`;
        stack.model.respond(threadId, (request) => ({ ...(request.messages.at(-1)?.role === "user" ? { toolCalls: [{ name: "refund", arguments: { amount: 20 } }] } : { text: "Done." }), usage: USAGE }));
        const threads = turnClient.threads;
        const asked = new Promise<ApprovalRequestInfo>((resolve) => askedIn.set(threadId, resolve));
        await threads.createThread({ threadId, prompt: threadId, agent: turnAgents[name], principal: { id: "bench" } });
        if (variants[name]) {
          // The first turn asks; its approval grants the permission the measured turn uses.
          const request = await asked;
          await threads.decide({ threadId, approvalId: request.approvalId, decisions: { [request.calls[0]!.toolCallId]: { approved: true, grant: {} } } });
        }
        const first = await threads.settled({ threadId });
        if (first.status !== "completed") throw new Error(`expected the ${name} thread's first turn to complete, got ${first.status}`);
        out[name] = await measure(async () => {
          await threads.sendMessage({ threadId, prompt: "again" });
          const done = await threads.settled({ threadId });
          if (done.status !== "completed" || done.approvals.length > 0) throw new Error(`expected the ${name} turn to complete unasked, got ${done.status}`);
        });
        progress(`later thread turn, ${name}: ${out[name].total} actions`);
      }
      return out;
    };
    const permission = only === undefined || only === "permission" ? await permissionTurn() : undefined;
    const permissionCosts = permission ? { permissionTurn: Object.fromEntries(Object.entries(permission).map(([name, m]) => [name, { actions: m.total, byOperation: m.byOperation }])) } : {};
    if (only === "permission") return { bench: "cost", ...permissionCosts };

    const policy = only === undefined || only === "policy" ? await policyRun() : undefined;
    const policyCosts = policy ? { policyRun: Object.fromEntries(Object.entries(policy).map(([name, m]) => [name, { actions: m.total, byOperation: m.byOperation }])) } : {};
    if (only === "policy") return { bench: "cost", ...policyCosts };

    /** toolProgress: the same later turn with a silent tool and with one that reports 1,000 times, a reader following each. */
    const toolProgressTurns = async () => {
      const work = (report: boolean) =>
        defineTool({
          name: "crunch",
          description: "Crunches numbers",
          input: z.object({}),
          async handler(_input, ctx) {
            for (let i = 0; i < 1_000; i++) {
              if (report) ctx.progress({ done: i + 1, of: 1_000 });
              if (i % 100 === 99) await sleep(60);
            }
            return "crunched";
          },
        });
      const out = {} as Record<"silent" | "reporting", Measured & { seen: number }>;
      for (const variant of ["silent", "reporting"] as const) {
        const progressAgent = defineAgent({ id: `cost-progress-${variant}`, model: MODEL, system: "Crunch.", tools: [work(variant === "reporting")], maxTurns: 4 });
        const { agents: progressClient } = await stack.worker([progressAgent]);
        const threadId = `cost-progress-${variant}-${randomUUID()}`;
        stack.model.respond(threadId, (request) => {
          const last = request.messages.at(-1)!;
          return { ...(last.role === "tool" ? { text: "Crunched." } : last.content === "go" ? { toolCalls: [{ name: "crunch", arguments: {} }] } : { text: "ready" }), usage: USAGE };
        });
        await progressClient.threads.createThread({ threadId, prompt: threadId, agent: progressAgent });
        await progressClient.threads.settled({ threadId });
        let seen = 0;
        const ac = new AbortController();
        const reading = (async () => {
          for await (const batch of progressClient.threads.followUpdates({ threadId, signal: ac.signal })) seen += batch.updates.filter((u) => u.type === "tool-progress").length;
        })().catch(() => undefined);
        const measured = await measure(async () => {
          await progressClient.threads.sendMessage({ threadId, prompt: "go" });
          await progressClient.threads.settled({ threadId });
        });
        ac.abort();
        await reading;
        out[variant] = { ...measured, seen };
        progress(`tool progress, ${variant}: ${measured.total} actions ${JSON.stringify(measured.byOperation)}, ${seen} progress entries read`);
      }
      return { ...out, extra: out.reporting.total - out.silent.total };
    };
    const progressCosts = only === undefined || only === "progress" ? { toolProgress: await toolProgressTurns() } : {};
    if (only === "progress") return { bench: "cost", ...progressCosts };

    // COST_ONLY=approval: the approval run alone, at COST_MODEL_MS (issue 49: what the inbox's memo row adds to it).
    if (only === "approval") return { bench: "cost", approvalRun: await approvalRun(MODEL_MS) };

    /**
     * subAgentTurn: a later turn of a thread (one call, then the answer) on the defaults with one
     * reader following: the call a tool's, then a sub-agent's whose child answers at once
     * (its answer shown to the reader while written), then one whose child calls a tool first.
     */
    const subAgentTurns = async () => {
      const lookup = defineTool({ name: "lookup", description: "Looks up", input: z.object({}), handler: () => "42" });
      const helper = defineAgent({ id: "cost-sub-helper", description: "Helps", model: MODEL, system: "Help.", tools: [lookup], maxTurns: 3 });
      const lead = defineAgent({ id: "cost-sub-lead", model: MODEL, system: "Delegate.", tools: [lookup], agents: [helper], maxTurns: 6 });
      const { agents: subClient } = await stack.worker([lead]);
      const out = {} as Record<"tool" | "subAgent" | "subAgentWithTool", Measured & { seen: number }>;
      for (const variant of ["tool", "subAgent", "subAgentWithTool"] as const) {
        const threadId = `cost-sub-${variant}-${randomUUID()}`;
        const task = `${threadId} task`;
        stack.model.respond(threadId, (request) => {
          const last = request.messages.at(-1)!;
          const call = variant === "tool" ? { name: "lookup", arguments: {} } : { name: "cost-sub-helper", arguments: { prompt: task } };
          return { ...(last.role === "tool" ? { text: "Done." } : last.content === "go" ? { toolCalls: [call] } : { text: "ready" }), usage: USAGE };
        });
        stack.model.respond(task, (request) => ({ ...(variant === "subAgentWithTool" && request.messages.at(-1)!.role !== "tool" ? { toolCalls: [{ name: "lookup", arguments: {} }] } : { text: "The helper's answer, written out in a few words." }), usage: USAGE }));
        await subClient.threads.createThread({ threadId, prompt: threadId, agent: lead });
        await subClient.threads.settled({ threadId });
        let seen = 0;
        const ac = new AbortController();
        const reading = (async () => {
          for await (const batch of subClient.threads.followUpdates({ threadId, signal: ac.signal })) seen += batch.updates.filter((u) => u.type === "tool-progress").length;
        })().catch(() => undefined);
        const measured = await measure(async () => {
          await subClient.threads.sendMessage({ threadId, prompt: "go" });
          await subClient.threads.settled({ threadId });
        });
        ac.abort();
        await reading;
        out[variant] = { ...measured, seen };
        progress(`sub-agent turn, ${variant}: ${measured.total} actions ${JSON.stringify(measured.byOperation)}, ${seen} progress entries read`);
      }
      return { ...out, extra: out.subAgent.total - out.tool.total };
    };
    const subAgentCosts = only === undefined || only === "subagent" ? { subAgentTurn: await subAgentTurns() } : {};
    if (only === "subagent") return { bench: "cost", ...subAgentCosts };

    /**
     * consoleViews (issue 50): each console view opened COST_CONSOLE_VIEWS times as a signed-in
     * person would, against a run parked on a `ctx.defer()` deferral and one completed: the
     * list, the list's live ask answered 304, a parked and a completed run's page, a running
     * page's live ask answered 304, and the approvals view. Each should read 0 actions per view
     * (visibility, describe and history are free; only a query answered by a worker bills).
     */
    const consoleViews = async () => {
      const views = envInt("COST_CONSOLE_VIEWS", 20);
      const parkedId = `cost-console-parked-${randomUUID()}`;
      const doneId = `cost-console-done-${randomUUID()}`;
      stack.model.respond(parkedId, script(0));
      stack.model.respond(doneId, script(0));
      const parkedAck = await agents.run(agent, { prompt: parkedId, runId: parkedId });
      if (parkedAck.status !== "deferred") throw new Error("expected the console's parked run to park");
      const doneAck = await agents.run(agent, { prompt: doneId, runId: doneId });
      if (doneAck.status !== "deferred") throw new Error("expected the console's second run to park");
      const done = await agents.resume({ token: tokens.get(doneId)!, payload: { approved: true } });
      if (done.outcome.status !== "completed") throw new Error("expected the console's second run to complete");
      const door = await startHttp({ agents, console: true, authenticate: () => ({ id: "operator" }) });
      closers.push(() => door.close());
      const get = async (path: string, headers: Record<string, string> = {}, expected = 200) => {
        const res = await door.call("GET", path, { headers });
        if (res.status !== expected) throw new Error(`console ${path}: ${res.status}, expected ${expected}`);
        return res;
      };
      // Visibility trails writes by a moment: wait (unmeasured) until both runs are listed and the request is in the approvals view.
      for (;;) {
        const [list, approvals] = await Promise.all([get("/console"), get("/console/approvals")]);
        if (String(list.body).includes(parkedId) && String(list.body).includes(doneId) && String(approvals.body).includes(parkedId)) break;
        await sleep(100);
      }
      const listTag = (await get("/console")).headers.get("etag") ?? "";
      const pageTag = (await get(`/console/runs/${encodeURIComponent(parkedId)}`)).headers.get("etag");
      const parkedPage = `/console/runs/${encodeURIComponent(parkedId)}`;
      // A detail page's live ask sends the version its page carries (data-version), as the page's script does.
      const version = /data-version="([^"]+)"/.exec(String((await get(parkedPage)).body))?.[1] ?? pageTag ?? "";
      const cases: Record<string, () => Promise<unknown>> = {
        list: () => get("/console"),
        listLive304: () => get("/console", { "if-none-match": listTag }, 304),
        runParked: () => get(parkedPage),
        runParkedLive304: () => get(parkedPage, { "if-none-match": `"${version}"` }, 304),
        runCompleted: () => get(`/console/runs/${encodeURIComponent(doneId)}`),
        approvals: () => get("/console/approvals"),
        // The list's per-row figures (its script asks one per row shown): 0 whether read or cached.
        rowSummaryParked: () => get(`${parkedPage}/summary`),
        rowSummaryCompleted: () => get(`/console/runs/${encodeURIComponent(doneId)}/summary`),
        // The control: the inbox's own request page reads the record with a query, which bills; a counter that saw nothing here would prove nothing above.
        inboxRequestPage: () => get(`/inbox/${encodeURIComponent(parkedAck.deferralId)}`),
      };
      const out: Record<string, { views: number; actions: number; perView: number; byOperation: Record<string, number> }> = {};
      for (const [name, view] of Object.entries(cases)) {
        const measured = await measure(async () => {
          for (let i = 0; i < views; i++) await view();
        });
        out[name] = { views, actions: measured.total, perView: round(measured.total / views, 3), byOperation: measured.byOperation };
        progress(`console ${name}: ${measured.total} actions over ${views} views`);
      }
      await agents.cancel({ runId: parkedId });
      return out;
    };
    const consoleCosts = only === undefined || only === "console" ? { consoleViews: await consoleViews() } : {};
    if (only === "console") return { bench: "cost", ...consoleCosts };

    const skip = { actions: 0, floor: 0, ratio: 0, byOperation: {}, floorByOperation: {} } as Awaited<ReturnType<typeof approvalRun>>;
    /** The approval and parked cases run unless one group of the others was asked for alone. */
    const allCases = only !== "thread" && only !== "chat" && only !== "run";
    const fast = allCases ? await approvalRun(MODEL_MS) : skip;
    const slow = allCases ? await approvalRun(SLOW_MODEL_MS) : skip;
    // Four model calls and three tools: the model calls are what the latency stretches.
    const heartbeats = (run: typeof fast) => run.byOperation.RecordActivityTaskHeartbeat ?? 0;
    const heartbeatsPerCallSecond = round((heartbeats(slow) - heartbeats(fast)) / ((4 * (SLOW_MODEL_MS - MODEL_MS)) / 1000), 3);

    // Parked: nothing of ours should bill while a run waits.
    const parkedFor = async (): Promise<Measured> => {
      const parkedId = `cost-parked-${randomUUID()}`;
      stack.model.respond(parkedId, script(0));
      const ack = await agents.run(agent, { prompt: parkedId, runId: parkedId });
      if (ack.status !== "deferred") throw new Error("expected the parked run to park");
      const measured = await measure(() => sleep(PARKED_S * 1000));
      await agents.cancel({ runId: parkedId });
      progress(`parked for ${PARKED_S} s: ${measured.total} actions`);
      return measured;
    };
    const parked = allCases ? await parkedFor() : { total: 0, byOperation: {} };

    // Chats as a new user has them, on the defaults (no stream setting anywhere, readers in
    // another process): a new thread's first streamed turn, created with its message, and a
    // later turn of a thread, each with 0, 1 and 10 readers, against the goals.
    const chatPool = followerPool({ TEMPORAL_ADDRESS: stack.address, NAMESPACE: namespace, TASK_QUEUE: agents.taskQueue }, closers);
    await chatPool.started;
    const chatReaders = (followers: number): ReadersFor =>
      followers === 0 ? inThisProcess((threadId, answer, signal) => followThread(agents.threads, threadId, answer, signal)) : inChildren(chatPool, "follow", 1);
    const chatAnswer = "x".repeat(2000);
    /**
     * createThread with the message, the readers joining once the answer has begun (the model
     * holds after its first characters until they have caught up), then the rest of the answer
     * and `settled`: each step measured apart, `actions` their sum.
     */
    const chatFirstTurn = async (followers: number): Promise<ChatCost> => {
      const threadId = `cost-chat-${randomUUID()}`;
      const hold = stack.model.hold();
      stack.model.respond(threadId, () => ({ text: chatAnswer, chunkDelay: 5, usage: USAGE, hold, holdAfterChars: 8 }));
      const readers = await chatReaders(followers)(threadId, chatAnswer, followers);
      try {
        const [create, join, rest] = await measureSteps([
          async () => {
            await agents.threads.createThread({ threadId, prompt: threadId, agent });
            await hold.reached;
          },
          () => readers.join(),
          async () => {
            hold.release();
            await agents.threads.settled({ threadId });
            await readers.done();
          },
        ]);
        const cost = chatCost([create, join, rest], ["create", "join", "rest"]);
        progress(`chat: a new thread's first turn, ${followers} readers: ${cost.actions} actions ${JSON.stringify(cost.byOperation)}`);
        return cost;
      } finally {
        await readers.close();
      }
    };
    /** A thread whose first turn is over; its readers join, then a message gets a 2,000-character answer. */
    const chatLaterTurn = async (followers: number): Promise<ChatCost> => {
      const threadId = `cost-chat-${randomUUID()}`;
      stack.model.respond(threadId, (request) => (request.messages.at(-1)?.content === "go" ? { text: chatAnswer, chunkDelay: 5, usage: USAGE } : { text: "ready", usage: USAGE }));
      await agents.threads.createThread({ threadId, prompt: threadId, agent });
      await agents.threads.settled({ threadId });
      const readers = await chatReaders(followers)(threadId, chatAnswer, followers);
      try {
        const [join, turn] = await measureSteps([
          () => readers.join(),
          async () => {
            await agents.threads.sendMessage({ threadId, prompt: "go" });
            await agents.threads.settled({ threadId });
            await readers.done();
          },
        ]);
        const cost = chatCost([join, turn], ["join", "turn"]);
        progress(`chat: a later turn, ${followers} readers: ${cost.actions - cost.joinActions} actions, joining ${cost.joinActions} ${JSON.stringify(cost.byOperation)}`);
        return { ...cost, actions: cost.actions - cost.joinActions };
      } finally {
        await readers.close();
      }
    };
    /**
     * The same chat through the AI SDK's `useChat` transport (`ThreadChatTransport`) and a front
     * door in this process: a new chat id's first message, then a later one, each read to its
     * end as `useChat` reads it.
     */
    const useChatTurns = async (): Promise<{ firstTurn: Measured; laterTurn: Measured }> => {
      const door = await startHttp({ agents });
      closers.push(() => door.close());
      const transport = new ThreadChatTransport({ baseUrl: door.url, headers: { "x-user": "bench" }, agent: agent.id });
      const chatId = `cost-usechat-${randomUUID()}`;
      stack.model.respond(chatId, () => ({ text: chatAnswer, chunkDelay: 5, usage: USAGE }));
      const send = async (text: string) => {
        const stream = await transport.sendMessages({ chatId, trigger: "submit-message", messageId: undefined, abortSignal: undefined, messages: [{ id: randomUUID(), role: "user", parts: [{ type: "text", text }] }] });
        let streamed = "";
        for await (const chunk of stream as unknown as AsyncIterable<{ type: string; delta?: string }>) if (chunk.type === "text-delta") streamed += chunk.delta ?? "";
        if (streamed !== chatAnswer) throw new Error("useChat's transport did not stream the whole answer");
      };
      const [firstTurn, laterTurn] = await measureSteps([() => send(chatId), () => send("go")]);
      progress(`chat through useChat's transport: first turn ${firstTurn.total} ${JSON.stringify(firstTurn.byOperation)}, later turn ${laterTurn.total} ${JSON.stringify(laterTurn.byOperation)}`);
      return { firstTurn, laterTurn };
    };
    const chatFollowers = [0, 1, 10];
    const chatFirst: Record<number, ChatCost> = {};
    const chatLater: Record<number, ChatCost> = {};
    if (only !== "run") for (const n of chatFollowers) chatFirst[n] = await chatFirstTurn(n);
    if (only !== "run") for (const n of chatFollowers) chatLater[n] = await chatLaterTurn(n);
    const useChat = only !== "run" ? await useChatTurns() : undefined;
    const chat = {
      goals: CHAT_GOALS,
      firstTurn: chatFirst,
      laterTurn: chatLater,
      useChat,
      pass: only !== "run" && chatFollowers.every(
        (n) =>
          chatFirst[n]!.actions <= CHAT_GOALS.firstTurn &&
          chatLater[n]!.actions <= CHAT_GOALS.laterTurn &&
          chatFirst[n]!.joinActions <= CHAT_GOALS.join &&
          chatLater[n]!.joinActions <= CHAT_GOALS.join,
      ),
    };
    if (only === "chat") return { bench: "cost", chat };

    // Streamed thread turns: on the defaults, by signal ("workflow"), on the in-process
    // transport and on Redis. Readers join before the turn (what joining costs is reported
    // apart: a reader joins once and follows many turns).
    const streamed = await stack.worker([agent], {
      deferral: { secret: TEST_SECRET },
      threads: { stream: { transport: inProcessStreamTransport() } },
      client: { deferral: { secret: TEST_SECRET }, stream: { transport: inProcessStreamTransport() } },
    });
    const redis = await startRedis({ log: (line) => progress(`redis: ${line}`) });
    afterStack.push(() => redis.stop());
    const redisTransport = redisStreamTransport({ url: redis.url });
    afterStack.push(() => redisTransport.close());
    const onRedis = await stack.worker([agent], {
      deferral: { secret: TEST_SECRET },
      threads: { stream: { transport: redisTransport } },
      client: { deferral: { secret: TEST_SECRET }, stream: { transport: redisTransport } },
    });
    // Deltas by signal, as the worker's default was before the direct transport became it.
    const bySignal = await stack.worker([agent], {
      deferral: { secret: TEST_SECRET },
      threads: { stream: { transport: "workflow" } },
      client: { deferral: { secret: TEST_SECRET } },
    });
    /**
     * A run answering 2,000 characters in one model call, on the in-process transport: as
     * started plainly and nobody follows, and with `stream: true` followed by 0, 1 and 10
     * readers (followUpdates in this process, joined as the run starts). Its stream lives in
     * workflow state and its deltas travel out of band, so following must cost nothing.
     */
    const runCost = async (stream: boolean, followers: number): Promise<Measured> => {
      const runId = `cost-run-${randomUUID()}`;
      const answer = "x".repeat(2000);
      stack.model.respond(runId, () => ({ text: answer, chunkDelay: 5, usage: USAGE }));
      const measured = await measure(async () => {
        const handle = await streamed.agents.start(agent, { prompt: runId, runId, stream });
        const readers = Array.from({ length: followers }, async () => {
          let text = "";
          for await (const batch of streamed.agents.followUpdates({ runId, until: (b) => b.updates.some((u) => u.type === "status" && u.status === "completed") })) {
            for (const u of batch.updates) if (u.type === "message" && u.message.role === "assistant") text = u.message.content ?? "";
          }
          if (text !== answer) throw new Error("a reader of the run missed its answer");
        });
        await handle.result();
        await Promise.all(readers);
      });
      progress(`run of 2000 characters${stream ? `, streamed, ${followers} followers` : ", not streamed"}: ${measured.total} actions`);
      return measured;
    };
    let runStream: { plain: Measured; streamed: Record<number, number> } | undefined;
    if (only !== "thread") {
      // One after the other: the counter is the server's, shared by whatever runs at once.
      runStream = { plain: await runCost(false, 0), streamed: {} };
      for (const followers of [0, 1, 10]) runStream.streamed[followers] = (await runCost(true, followers)).total;
    }
    if (only === "run") return { bench: "cost", runStream: { plain: runStream!.plain.total, plainByOperation: runStream!.plain.byOperation, streamed: runStream!.streamed } };

    const frontDoor = async (client: AgentClient) => {
      const http = await startHttp({ agents: client });
      closers.push(() => http.close());
      return (threadId: string) => (signal: AbortSignal) => fetch(`${http.url}/threads/${encodeURIComponent(threadId)}/events`, { signal });
    };

    /** A thread whose first turn answered "ready" and whose next message ("go") gets `answer`, streamed 8 characters per 5 ms. */
    const startThread = async (threads: ThreadsClient, threadId: string, answer: string, stream = true): Promise<void> => {
      stack.model.respond(threadId, (request) => (request.messages.at(-1)?.content === "go" ? { text: answer, chunkDelay: 5, usage: USAGE } : { text: "ready", usage: USAGE }));
      await threads.createThread({ threadId, prompt: threadId, agent, stream });
      await threads.settled({ threadId });
    };
    /**
     * Measured turns, one per case, each on a thread of its own. The threads are all started
     * first (an idle thread costs nothing while the others are measured), then each case's
     * readers join and its turn runs, one after the other, with the counter read between.
     * Readers stay until the last case is done, as they would between turns.
     */
    const turnCosts = async (cases: TurnCase[], alsoBefore: Promise<unknown>): Promise<TurnCost[]> => {
      const [prepared] = await Promise.all([
        Promise.all(
          cases.map(async (c) => {
            const threadId = `cost-thread-${randomUUID()}`;
            const answer = "x".repeat(c.chars);
            await startThread(c.threads, threadId, answer, c.stream ?? true);
            return { ...c, threadId, answer };
          }),
        ),
        alsoBefore,
      ]);
      const opened: Readers[] = [];
      let started = performance.now();
      try {
        const measured = await measureSteps(
          prepared.flatMap((c) => [
            async () => {
              started = performance.now();
              const readers = await c.readers(c.threadId, c.answer, c.followers);
              opened.push(readers);
              await readers.join();
            },
            async () => {
              await c.threads.sendMessage({ threadId: c.threadId, prompt: "go" });
              await c.threads.settled({ threadId: c.threadId });
              await opened.at(-1)!.done();
            },
          ]),
          (step, turn) => {
            if (step % 2 === 0) return;
            const c = prepared[(step - 1) / 2]!;
            progress(`thread turn (${c.label}) of ${c.chars} characters, ${c.followers} followers: ${turn.total} actions in ${round((performance.now() - started) / 1000, 1)} s`);
          },
        );
        return prepared.map((_, i) => ({ actions: measured[2 * i + 1]!.total, joinActions: measured[2 * i]!.total, byOperation: measured[2 * i + 1]!.byOperation }));
      } finally {
        await Promise.all(opened.map((r) => r.close()));
      }
    };
    /** Readers in this process, through `followUpdates` on `threads`. */
    const following = (threads: ThreadsClient): ReadersFor => inThisProcess((threadId, answer, signal) => followThread(threads, threadId, answer, signal));
    /** Readers in this process, through the SSE route of a front door in this process. */
    const sse = (events: (threadId: string) => (signal: AbortSignal) => Promise<Response>): ReadersFor =>
      inThisProcess((threadId, answer, signal) => followEvents(events(threadId), answer, signal));
    // Readers in other processes: follower processes on the Redis transport and on the direct one, started ahead.
    const pool = followerPool({ TEMPORAL_ADDRESS: stack.address, NAMESPACE: namespace, TASK_QUEUE: onRedis.taskQueue, REDIS_URL: redis.url }, closers);
    const redisThreads = onRedis.agents.threads;
    // On the defaults: the worker `agents` runs on, reader processes with no stream setting.
    const defaultPool = followerPool({ TEMPORAL_ADDRESS: stack.address, NAMESPACE: namespace, TASK_QUEUE: agents.taskQueue }, closers);
    /** Turns of each length in `chars` with each number of readers, keyed [chars][followers]. */
    const grid = (section: string, threads: ThreadsClient, followerCounts: number[], readers: ReadersFor, label: string, chars = CHARS): TurnCase[] =>
      chars.flatMap((n) => followerCounts.map((followers) => ({ section, key: [n, followers], threads, chars: n, followers, readers, label })));
    /**
     * Turns keyed [chars][followers][processes] with readers in other processes: no reader is
     * no process; ten readers in one process, and spread 4/3/3 over three.
     */
    const acrossProcesses = (section: string, threads: ThreadsClient, processes: FollowerPool, transport: string): TurnCase[] =>
      CHARS.flatMap((chars) =>
        [
          { followers: 0, processes: 0, readers: following(threads) },
          { followers: 1, processes: 1, readers: inChildren(processes, "follow", 1) },
          { followers: 10, processes: 1, readers: inChildren(processes, "follow", 1) },
          { followers: 10, processes: 3, readers: inChildren(processes, "follow", 3) },
        ].map((c) => ({ ...c, section, key: [chars, c.followers, c.processes], chars, threads, label: `${transport}, ${c.processes} processes` })),
      );
    const cases: TurnCase[] = [
      // Signals first, while no follower process boots beside them: their count depends on how fast the turn runs.
      ...grid("threadTurnBySignal", bySignal.agents.threads, [0, 1, 10], following(bySignal.agents.threads), "signals"),
      // A thread created with stream: false (a service that only wants answers): no reader, nothing to stream.
      ...grid("threadTurnUnstreamed", bySignal.agents.threads, [0], following(bySignal.agents.threads), "not streamed").map((c) => ({ ...c, stream: false })),
      // The defaults: no broker, readers elsewhere connect to the worker's endpoint.
      ...acrossProcesses("threadTurn", agents.threads, defaultPool, "defaults"),
      ...grid("threadTurnInProcess", streamed.agents.threads, [0, 1, 10], following(streamed.agents.threads), "in-process transport"),
      ...acrossProcesses("threadTurnRedis", redisThreads, pool, "Redis transport"),
      // SSE readers of the front door's events route. No reader costs what threadTurnInProcess[chars][0] does: it is the same turn.
      ...grid("threadTurnSse", streamed.agents.threads, [1, 10], sse(await frontDoor(streamed.agents)), "SSE, front door with the worker, in-process transport"),
      // The front door in another process on Redis, at the shorter length only: the run stays short, and length changes nothing on a transport.
      ...grid("threadTurnSseRedis", redisThreads, [1, 10], inChildren(pool, "sse", 1), "SSE, front door in another process, Redis transport", [2000]),
      ...grid("threadTurnSseDefault", agents.threads, [1, 10], inChildren(defaultPool, "sse", 1), "SSE, front door in another process, defaults", [2000]),
    ];
    // The follower processes boot while the threads start, not while a turn is measured.
    const costs = await turnCosts(cases, Promise.all([pool.started, defaultPool.started]));
    const section = (name: string) => nest(cases.flatMap((c, i) => (c.section === name ? [[c.key, costs[i]!] as [Array<string | number>, TurnCost]] : [])));
    const threadTurn = section("threadTurn");
    const threadTurnBySignal = section("threadTurnBySignal");
    const threadTurnUnstreamed = section("threadTurnUnstreamed");
    const threadTurnInProcess = section("threadTurnInProcess");
    const threadTurnRedis = section("threadTurnRedis");
    const threadTurnSse = section("threadTurnSse");
    const threadTurnSseRedis = section("threadTurnSseRedis");
    const threadTurnSseDefault = section("threadTurnSseDefault");

    // Time from sendMessage to the first delta an SSE reader of a front door in this process
    // gets, per path: streaming out of band must not make the first byte later than deltas by
    // signal did. Paths take turns, so that a busy moment of the machine does not land on one.
    const firstDeltaMs = async (threads: ThreadsClient, events: (threadId: string) => (signal: AbortSignal) => Promise<Response>): Promise<number> => {
      const threadId = `cost-first-${randomUUID()}`;
      const answer = "x".repeat(2000);
      await startThread(threads, threadId, answer);
      const stop = new AbortController();
      try {
        const reader = followEvents(events(threadId), answer, stop.signal);
        await reader.caughtUp;
        const sent = performance.now();
        await threads.sendMessage({ threadId, prompt: "go" });
        const ms = (await reader.firstDelta) - sent;
        await reader.done;
        await threads.settled({ threadId });
        return ms;
      } finally {
        stop.abort();
      }
    };
    const elsewhereTransport = directStreamTransport();
    afterStack.push(() => elsewhereTransport.close());
    const elsewhereDirect = new AgentClient({ connection: stack.connection, namespace, taskQueue: agents.taskQueue, deferral: { secret: TEST_SECRET }, stream: { transport: elsewhereTransport } });
    const paths = {
      signals: { threads: bySignal.agents.threads, events: await frontDoor(bySignal.agents) },
      inProcess: { threads: streamed.agents.threads, events: await frontDoor(streamed.agents) },
      redis: { threads: onRedis.agents.threads, events: await frontDoor(onRedis.agents) },
      // The front door in this process, as a process elsewhere has it: a direct transport of its own that does not listen.
      direct: { threads: elsewhereDirect.threads, events: await frontDoor(elsewhereDirect) },
    };
    const firstDeltaSamples: Record<keyof typeof paths, number[]> = { signals: [], inProcess: [], redis: [], direct: [] };
    for (let i = 0; i < FIRST_DELTA_SAMPLES; i++) {
      for (const [name, path] of Object.entries(paths) as Array<[keyof typeof paths, (typeof paths)[keyof typeof paths]]>) {
        firstDeltaSamples[name].push(round(await firstDeltaMs(path.threads, path.events)));
      }
    }
    const sseFirstDeltaMs = Object.fromEntries(Object.entries(firstDeltaSamples).map(([name, samples]) => [name, median(samples)]));
    progress(`first delta over SSE after sendMessage, ms: ${JSON.stringify(firstDeltaSamples)}`);

    return {
      bench: "cost",
      modelMs: MODEL_MS,
      slowModelMs: SLOW_MODEL_MS,
      approvalRun: fast,
      approvalRunSlow: slow,
      parkedPerMinute: round((parked.total * 60) / PARKED_S, 2),
      parkedByOperation: parked.byOperation,
      ...(runStream ? { runStream: { plain: runStream.plain.total, plainByOperation: runStream.plain.byOperation, streamed: runStream.streamed } } : {}),
      threadTurn,
      threadTurnBySignal,
      threadTurnUnstreamed,
      threadTurnInProcess,
      threadTurnRedis,
      threadTurnSse,
      threadTurnSseRedis,
      threadTurnSseDefault,
      chat,
      sseFirstDeltaMs,
      sseFirstDeltaSamplesMs: firstDeltaSamples,
      heartbeatsPerCallSecond,
      ...policyCosts,
      ...permissionCosts,
      ...reminderCosts,
      ...perCallCosts,
      ...progressCosts,
      ...subAgentCosts,
      ...consoleCosts,
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await stack.close();
    for (const close of afterStack.reverse()) await close().catch(() => undefined);
    await server.stop();
  }
}

/**
 * Chats cheaper than any peer's on Temporal (issue 52): a new thread's first streamed turn,
 * start and the reading of its answer included; a later turn; a reader joining.
 */
const CHAT_GOALS = { firstTurn: 4, laterTurn: 3, join: 0 } as const;

/** A chat case: `actions` the turn (with its start for a first turn, joins included), `joinActions` the readers' joining, `steps` each measured step apart. */
interface ChatCost {
  actions: number;
  joinActions: number;
  byOperation: Record<string, number>;
  steps: Record<string, Measured>;
}

/** Measured steps named `names` as one chat case: totals summed, `join` apart. */
function chatCost(measured: Measured[], names: string[]): ChatCost {
  const byOperation: Record<string, number> = {};
  for (const m of measured) for (const [type, n] of Object.entries(m.byOperation)) byOperation[type] = (byOperation[type] ?? 0) + n;
  const steps = Object.fromEntries(names.map((name, i) => [name, measured[i]!]));
  return { actions: measured.reduce((a, m) => a + m.total, 0), joinActions: steps.join?.total ?? 0, byOperation, steps };
}

interface TurnCost {
  actions: number;
  joinActions: number;
  byOperation: Record<string, number>;
}

/** Readers of one measured turn. Making them bills nothing (follower processes come from a pool, connected already). */
interface Readers {
  /** Starts the readers; resolves once each has caught up with the thread. */
  join(): Promise<void>;
  /** Resolves once each saw the turn's answer and the completed status. */
  done(): Promise<unknown>;
  close(): Promise<void>;
}
type ReadersFor = (threadId: string, answer: string, followers: number) => Promise<Readers>;

/** A measured turn: `chars` streamed characters on a thread of `threads`, read by `followers` readers that `readers` makes. */
interface TurnCase {
  /** The result field it goes to, and where in it. */
  section: string;
  key: Array<string | number>;
  threads: ThreadsClient;
  chars: number;
  followers: number;
  readers: ReadersFor;
  label: string;
  /** False for a thread created with `stream: false`. */
  stream?: boolean;
}

/** `[[a, b], value]` entries as `{ a: { b: value } }`. */
function nest(entries: Array<[Array<string | number>, TurnCost]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, value] of entries) {
    let level = out;
    for (const key of path.slice(0, -1)) level = (level[key] ??= {}) as Record<string, unknown>;
    level[path.at(-1)!] = value;
  }
  return out;
}

/** Readers in this process, each made by `follow`. */
function inThisProcess(follow: (threadId: string, answer: string, signal: AbortSignal) => Following): ReadersFor {
  return async (threadId, answer, followers) => {
    const stop = new AbortController();
    let readers: Following[] = [];
    return {
      async join() {
        readers = Array.from({ length: followers }, () => follow(threadId, answer, stop.signal));
        await Promise.all(readers.map((r) => r.caughtUp));
      },
      done: () => Promise.all(readers.map((r) => r.done)),
      close: async () => stop.abort(),
    };
  };
}

/**
 * Readers spread as evenly as they go over `processes` follower processes from `pool`
 * (ten over three is 4/3/3), through `followUpdates` or through a front door of their own.
 */
function inChildren(pool: FollowerPool, via: "follow" | "sse", processes: number): ReadersFor {
  return async (threadId, answer, followers) => {
    const counts = Array.from({ length: Math.min(processes, followers) }, (_, i) => Math.floor(followers / processes) + (i < followers % processes ? 1 : 0));
    const children = await Promise.all(counts.map(() => pool.take()));
    return {
      async join() {
        children.forEach((child, i) => child.send(JSON.stringify({ threadId, followers: counts[i], answerChars: answer.length, via })));
        await Promise.all(children.map((child) => child.reached("caught-up")));
      },
      done: () => Promise.all(children.map((child) => child.exited())),
      close: async () => void (await Promise.all(children.map((child) => child.kill()))),
    };
  };
}

type FollowerProcess = Awaited<ReturnType<typeof startFollowerProcess>>;
type FollowerPool = ReturnType<typeof followerPool>;

/**
 * Follower processes started ahead (three, the most a turn takes), so that a turn does not
 * wait for one to boot: each takes one thread and exits, and taking one starts the next.
 */
function followerPool(env: Record<string, string>, closers: Array<() => Promise<unknown>>) {
  const start = () => {
    const child = startFollowerProcess(env, closers);
    child.catch(() => undefined);
    return child;
  };
  const ready = [start(), start(), start()];
  return {
    /** The first three are up. */
    started: Promise.all(ready),
    take(): Promise<FollowerProcess> {
      ready.push(start());
      return ready.shift()!;
    },
  };
}

const FOLLOWER_SCRIPT = fileURLToPath(new URL("./follower-process.ts", import.meta.url));

/** Starts bench/follower-process.ts and resolves once it printed "ready"; `closers` gets its kill. */
async function startFollowerProcess(env: Record<string, string>, closers: Array<() => Promise<unknown>>) {
  const child = spawn(process.execPath, ["--import", "tsx", FOLLOWER_SCRIPT], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] });
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exit;
  };
  closers.push(kill);
  const said = new Set<string>();
  const waiting = new Set<() => void>();
  createInterface({ input: child.stdout! }).on("line", (line) => {
    said.add(line.trim());
    for (const wake of waiting) wake();
  });
  /** Resolves once the child printed `word`; rejects if it exits first. */
  const reached = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (said.has(word)) resolve();
        else if (child.exitCode !== null || child.signalCode !== null) reject(new Error(`a follower process exited (${child.exitCode ?? child.signalCode}) before it said ${word}`));
        else return;
        waiting.delete(check);
      };
      waiting.add(check);
      void exit.then(check);
      check();
    });
  await reached("ready");
  return {
    send: (line: string) => void child.stdin!.write(`${line}\n`),
    reached,
    /** Resolves once the child said "done" and exited cleanly. */
    async exited() {
      await reached("done");
      const code = await exit;
      if (code !== 0) throw new Error(`a follower process exited with ${code}`);
    },
    kill,
  };
}
