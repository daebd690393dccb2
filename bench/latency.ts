/**
 * "Latency and bytes" (issue 16): the approval flow (lookup tool → approval tool defers →
 * resume → answer) three ways in one run, against one scripted OpenAI-compatible model server
 * and one dev server on disk (`--db-filename`, as a deployment stores state):
 *
 * - ours: `agents.run()` until the run parks, `agents.resume()` until it settles; the
 *   approval asked twice: by a tool whose handler calls `ctx.defer()` (sdk), and by a tool
 *   that declares `needsApproval` (gate), which parks before any handler as bare does;
 * - bare: a hand-written Temporal workflow doing the same activities (bench/bare/);
 *   `diagnostics.bareInbox` is the same workflow doing what any durable approval does at
 *   least (its asking tool runs, the request is listed and expires), against which sdk is
 *   like for like;
 * - floor: the same activity functions called in-process, no engine, nothing stored:
 *   the latency no durable engine beats.
 *
 * Measured per sample: start → parked (the caller holds the deferral), resume → next model
 * request (when the model server receives it), resume → final answer (the caller holds it).
 * The critical path of one run of each engine path is read from its history: workflow tasks
 * and activity tasks, each a server round trip, before the park and after the resume.
 *
 * Crash: a worker process (test/workers/approval-worker.ts) is SIGKILLed while its run is
 * parked, another starts, and the run is resumed at once: `crashResumeMs` is that resume's
 * time. LATENCY_CRASH_STICKY=10s runs the workers with Temporal's own sticky default instead.
 *
 * Bytes: history bytes a turn adds ÷ that turn's new content (lib.ts `bytesPerNewByte`).
 *
 * `localModelCalls`: ours again with the agent's `modelCalls: "local"` (model calls as
 * local activities, inside the workflow task), the same medians, ratios and bytes.
 *
 * Round trips cut (docs/architecture/temporal-mapping.md), each switchable to measure it:
 * LATENCY_IN_PROCESS_PARKS=0 turns `inProcessParks` off: the caller learns of the park from
 * the run's history, as callers in other processes do (`diagnostics.fromHistory` measures
 * that either way, for sdk and gate); on, the worker in this process tells it once Temporal
 * has stored the park.
 * LATENCY_EAGER_START=0 starts runs through the task queue instead of eagerly (the client
 * shares the worker's NativeConnection for it); LATENCY_EAGER_ACTIVITIES=0 leaves the
 * server's eager activity dispatch off.
 *
 * LATENCY_SAMPLES (default 40), LATENCY_CRASH_SAMPLES (default 3).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@temporalio/client";
import proto from "@temporalio/proto";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { z } from "zod";
import { AgentClient, defineAgent, defineTool } from "../src/index.js";
import { startTemporal, type Responder } from "../src/testing/index.js";
import { startAgentStack, TEST_SECRET, tokenFor } from "../test/agent-stack.js";
import { kill, killAll, spawnWorker } from "../test/workers/spawn.js";
import { createBareActivities, type BareTool } from "./bare/activities.js";
import { approveUpdate, parkedUpdate } from "./bare/messages.js";
import type { bareApproval } from "./bare/workflows.js";
import {
  bytesPerNewByte,
  envInt,
  historyStats,
  installRuntime,
  median,
  MODEL,
  percentile,
  progress,
  prompt,
  round,
  searchResults,
  searchTool,
  startBareWorker,
  toolLoop,
  USAGE,
  approvalTool,
} from "./lib.js";

const { EventType } = proto.temporal.api.enums.v1;

const SAMPLES = envInt("LATENCY_SAMPLES", 40);
const CRASH_SAMPLES = envInt("LATENCY_CRASH_SAMPLES", 3);
const WARMUP = 3;
/** Quiet time between parking and resuming, so the deferral's own tasks are done. */
const SETTLE_MS = 100;
const LOOKUP_BYTES = 2048;
const SYSTEM = "You look the account up, ask a human to approve the payout, then answer.";
const PAYLOAD = { approved: true };
const MAX_TURNS = 6;
/** Tool-loop lengths whose history difference gives the bytes a turn adds. */
const BYTES_TURNS = [10, 40] as const;
const EAGER_START = process.env.LATENCY_EAGER_START !== "0";
const IN_PROCESS_PARKS = process.env.LATENCY_IN_PROCESS_PARKS !== "0";
const EAGER_ACTIVITIES = process.env.LATENCY_EAGER_ACTIVITIES !== "0";
/**
 * What `pass` checks. Issue 25: start → parked ≤ 1.15× the bare workflow, for the run that
 * parks on the model's call as the bare one does (a gated tool; a handler that defers runs one
 * activity more, which `vsBare.sdk` shows); history bytes per new byte ≤ 2. Issue 16: a resume
 * after a crash ≤ 2 s. The ratios to the no-engine floor are printed, not checked: a durable
 * engine's few round trips are many times an in-process loop's microseconds.
 */
const TARGETS = { gateStartToParkedVsBare: 1.15, crashResumeMs: 2000, bytesPerNewByte: 2 };

interface Sample {
  startToParkedMs: number;
  resumeToModelMs: number;
  resumeToAnswerMs: number;
}

export async function main(): Promise<Record<string, unknown>> {
  installRuntime();
  const dir = mkdtempSync(join(tmpdir(), "latency-"));
  const server = await startTemporal({
    dbFilename: join(dir, "temporal.db"),
    local: true,
    log: (line) => progress(`temporal: ${line}`),
    dynamicConfig: {
      ...(EAGER_START ? { "system.enableEagerWorkflowStart": true } : {}),
      ...(EAGER_ACTIVITIES ? { "system.enableActivityEagerExecution": true } : {}),
    },
  });
  const stack = await startAgentStack({ temporal: server, log: (line) => progress(`temporal: ${line}`) }).catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  try {
    const { model, namespace } = stack;
    const client = new Client({ connection: stack.connection, namespace });
    /** When each conversation's turn-th model request arrived, by `${conversation}#${turn}`. */
    const arrivals = new Map<string, number>();
    const tokens = new Map<string, string>();

    const responder =
      (conversation: string): Responder =>
      (_request, turn) => {
        const key = `${conversation}#${turn}`;
        if (!arrivals.has(key)) arrivals.set(key, performance.now());
        if (turn === 0) return { toolCalls: [{ name: "lookup", arguments: { account: "acme" } }], usage: USAGE };
        if (turn === 1) return { toolCalls: [{ name: "askApproval", id: "ask_1", arguments: { amount: 250 } }], usage: USAGE };
        return { text: "Approved; paid 250.", usage: USAGE };
      };

    const lookupDescription = "Looks an account up";
    const lookup = defineTool({
      name: "lookup",
      description: lookupDescription,
      input: z.object({ account: z.string() }),
      handler: ({ account }) => searchResults(account, LOOKUP_BYTES),
    });
    const askApproval = approvalTool(tokens);
    // The same request as a property of the tool (`needsApproval`): the run parks on the
    // model's call, before any handler, as the bare workflow does; approved, the handler runs.
    const gatedApproval = defineTool({
      name: "askApproval",
      description: "Ask a human to approve a payout",
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      approval: { notify: (request) => void tokens.set(request.runId, request.token) },
      handler: () => JSON.stringify(PAYLOAD),
    });
    const spec = (name: string, description: string, properties: Record<string, { type: string }>): BareTool["spec"] => ({
      type: "function",
      function: { name, description, parameters: { type: "object", properties, required: Object.keys(properties), additionalProperties: false } },
    });
    const bareTools: BareTool[] = [
      { spec: spec("lookup", lookupDescription, { account: { type: "string" } }), handler: ({ account }: { account: string }) => searchResults(account, LOOKUP_BYTES) },
      { spec: spec("askApproval", "Ask a human to approve a payout", { amount: { type: "number" } }), handler: () => "unused: the approval waits for a human" },
    ];
    const approving = { id: "latency", model: MODEL, system: SYSTEM, tools: [lookup, askApproval], maxTurns: MAX_TURNS };
    const searching = { id: "latency-search", model: MODEL, system: SYSTEM, tools: [searchTool(LOOKUP_BYTES).sdk], maxTurns: Math.max(...BYTES_TURNS) };
    const agent = defineAgent(approving);
    const gateAgent = defineAgent({ ...approving, id: "latency-gate", tools: [lookup, gatedApproval] });
    const searchAgent = defineAgent(searching);
    // The same two with model calls as local activities (`modelCalls: "local"`).
    const localAgent = defineAgent({ ...approving, id: "latency-local", modelCalls: "local" });
    const localSearchAgent = defineAgent({ ...searching, id: "latency-search-local", modelCalls: "local" });
    // Diagnostics, each one change away from ours: a run started through the task queue
    // (no eager start), and a worker that takes no activity eagerly.
    const [{ agents, taskQueue: sdkQueue }, { agents: queuedStart }, { agents: noEagerActivities }, bareQueue] = await Promise.all([
      stack.worker([agent, gateAgent, searchAgent, localAgent, localSearchAgent], {
        taskQueue: `bench-latency-sdk-${randomUUID()}`,
        deferral: { secret: TEST_SECRET },
        // Eager start needs the client on the worker's own connection; the park bell, the worker in this process.
        client: EAGER_START
          ? { client: new Client({ connection: stack.native, namespace }), deferral: { secret: TEST_SECRET }, eagerStart: true, inProcessParks: IN_PROCESS_PARKS }
          : { client, deferral: { secret: TEST_SECRET }, inProcessParks: IN_PROCESS_PARKS },
      }),
      stack.worker([agent], { taskQueue: `bench-latency-queued-${randomUUID()}`, deferral: { secret: TEST_SECRET }, client: { client, deferral: { secret: TEST_SECRET } } }),
      stack.worker([agent], {
        taskQueue: `bench-latency-no-eager-${randomUUID()}`,
        deferral: { secret: TEST_SECRET },
        worker: { maxEagerActivityReservationsPerWorkflowTask: 0 },
        client: EAGER_START ? { client: new Client({ connection: stack.native, namespace }), deferral: { secret: TEST_SECRET }, eagerStart: true } : { client, deferral: { secret: TEST_SECRET } },
      }),
      startBareWorker(stack, bareTools),
    ]);
    // The same worker, its runs' parks read from their history (`inProcessParks` off).
    const fromHistory = new AgentClient({
      client: EAGER_START ? new Client({ connection: stack.native, namespace }) : client,
      taskQueue: sdkQueue,
      deferral: { secret: TEST_SECRET },
      eagerStart: EAGER_START,
      inProcessParks: false,
    });
    const floorActivities = createBareActivities({ baseURL: model.url, model: MODEL, tools: bareTools });

    const arrived = (conversation: string, turn: number): number => {
      const at = arrivals.get(`${conversation}#${turn}`);
      if (at === undefined) throw new Error(`model request ${turn} of ${conversation} never arrived`);
      return at;
    };

    const sdkSample = async (on: AgentClient = agents, which = agent): Promise<Sample & { workflowId: string }> => {
      const conversation = prompt("latency sdk");
      model.respond(conversation, responder(conversation));
      const runId = `latency-sdk-${randomUUID()}`;
      const t0 = performance.now();
      const ack = await on.run(which, { prompt: conversation, runId });
      const parkedAt = performance.now();
      if (ack.status !== "deferred") throw new Error(`expected a deferral, got ${JSON.stringify(ack)}`);
      // A gate's token comes from its notify, which runs once the run has parked (off the measured path).
      for (let i = 0; !tokens.has(runId); i++) {
        if (i > 400) throw new Error(`no token was handed out for ${runId}`);
        await sleep(5);
      }
      await sleep(SETTLE_MS);
      const t1 = performance.now();
      const payload = which === gateAgent ? { decisions: [{ toolCallId: "ask_1", approved: true }] } : PAYLOAD;
      const resumed = await on.resume({ token: tokens.get(runId)!, payload: payload as never });
      const answeredAt = performance.now();
      if (resumed.outcome.status !== "completed") throw new Error(`resume did not complete the run: ${JSON.stringify(resumed)}`);
      return { workflowId: runId, startToParkedMs: parkedAt - t0, resumeToModelMs: arrived(conversation, 2) - t1, resumeToAnswerMs: answeredAt - t1 };
    };

    // `inbox`: the bare workflow doing what any durable approval does at least (bench cost's
    // floor): the asking tool runs as an activity, the request is listed (a search attribute)
    // and expires (a timer). Like for like with a handler that calls ctx.defer() (sdk).
    const bareSample = async (inbox = false): Promise<Sample & { workflowId: string }> => {
      const conversation = prompt("latency bare");
      model.respond(conversation, responder(conversation));
      const workflowId = `latency-bare-${randomUUID()}`;
      const t0 = performance.now();
      const handle = await client.workflow.start<typeof bareApproval>("bareApproval", {
        workflowId,
        taskQueue: bareQueue,
        args: [{ system: SYSTEM, prompt: conversation, maxTurns: MAX_TURNS, approvalTool: "askApproval", ...(inbox ? { inbox: { ttlMs: 72 * 3600_000 } } : {}) }],
      });
      await handle.executeUpdate(parkedUpdate);
      const parkedAt = performance.now();
      await sleep(SETTLE_MS);
      const t1 = performance.now();
      await handle.executeUpdate(approveUpdate, { args: [JSON.stringify(PAYLOAD)] });
      await handle.result();
      const answeredAt = performance.now();
      return { workflowId, startToParkedMs: parkedAt - t0, resumeToModelMs: arrived(conversation, 2) - t1, resumeToAnswerMs: answeredAt - t1 };
    };

    // The floor: the bare activities called in a plain loop, the approval a promise.
    const floorSample = async (): Promise<Sample> => {
      const conversation = prompt("latency floor");
      model.respond(conversation, responder(conversation));
      let approve!: (answer: string) => void;
      const approval = new Promise<string>((resolve) => (approve = resolve));
      let parked!: () => void;
      const waiting = new Promise<void>((resolve) => (parked = resolve));
      const t0 = performance.now();
      const answer = (async () => {
        const messages: ChatCompletionMessageParam[] = [
          { role: "system", content: SYSTEM },
          { role: "user", content: conversation },
        ];
        for (let turn = 1; turn <= MAX_TURNS; turn++) {
          const reply = await floorActivities.callModel({ messages });
          messages.push(reply);
          const calls = (reply.tool_calls ?? []).filter((c) => c.type === "function");
          if (calls.length === 0) return reply.content;
          for (const call of calls) {
            if (call.function.name === "askApproval") parked();
            const content = call.function.name === "askApproval" ? await approval : await floorActivities.callTool({ call });
            messages.push({ role: "tool", tool_call_id: call.id, content });
          }
        }
        throw new Error("max turns");
      })();
      await waiting;
      const parkedAt = performance.now();
      await sleep(SETTLE_MS);
      const t1 = performance.now();
      approve(JSON.stringify(PAYLOAD));
      await answer;
      const answeredAt = performance.now();
      return { startToParkedMs: parkedAt - t0, resumeToModelMs: arrived(conversation, 2) - t1, resumeToAnswerMs: answeredAt - t1 };
    };

    for (let i = 0; i < WARMUP; i++) {
      await sdkSample();
      await bareSample();
      await floorSample();
    }
    const sdk: Sample[] = [];
    const sdkQueuedStart: Sample[] = [];
    const sdkNoEagerActivities: Sample[] = [];
    const sdkLocalModel: Sample[] = [];
    const sdkGate: Sample[] = [];
    const sdkFromHistory: Sample[] = [];
    const gateFromHistory: Sample[] = [];
    const bare: Sample[] = [];
    const bareInbox: Sample[] = [];
    const floor: Sample[] = [];
    let lastSdk = "";
    let lastBare = "";
    let lastGate = "";
    const paths: Array<() => Promise<void>> = [
      async () => {
        const s = await sdkSample();
        lastSdk = s.workflowId;
        sdk.push(s);
      },
      async () => {
        const s = await bareSample();
        lastBare = s.workflowId;
        bare.push(s);
      },
      async () => void floor.push(await floorSample()),
      async () => void bareInbox.push(await bareSample(true)),
      async () => void sdkQueuedStart.push(await sdkSample(queuedStart)),
      async () => void sdkNoEagerActivities.push(await sdkSample(noEagerActivities)),
      async () => void sdkFromHistory.push(await sdkSample(fromHistory)),
      async () => void gateFromHistory.push(await sdkSample(fromHistory, gateAgent)),
      async () => void sdkLocalModel.push(await sdkSample(agents, localAgent)),
      async () => {
        const s = await sdkSample(agents, gateAgent);
        lastGate = s.workflowId;
        sdkGate.push(s);
      },
    ];
    // Alternating, and rotating which goes first, spreads drift and order effects evenly.
    for (let i = 0; i < SAMPLES; i++) {
      for (let k = 0; k < paths.length; k++) await paths[(i + k) % paths.length]!();
      model.requests.splice(0);
      arrivals.clear();
      model.assertNoFailures();
      const line = (name: string, s: Sample) =>
        `${name} ${s.startToParkedMs.toFixed(1)}/${s.resumeToModelMs.toFixed(1)}/${s.resumeToAnswerMs.toFixed(1)}`;
      progress(`sample ${i + 1}/${SAMPLES} (start→parked/resume→model/resume→answer ms): ${line("sdk", sdk.at(-1)!)}, ${line("gate", sdkGate.at(-1)!)}, ${line("bare", bare.at(-1)!)}, ${line("floor", floor.at(-1)!)}`);
    }

    const criticalPath = { sdk: await pathOf(client, lastSdk), bare: await pathOf(client, lastBare) };
    if (process.env.LATENCY_TIMELINE === "1") for (const id of [lastSdk, lastGate, lastBare]) progress(`${id}: ${await timelineOf(client, id)}`);
    for (const [name, path] of Object.entries(criticalPath)) {
      progress(`${name} critical path: before the park ${path.beforePark.sequence.join(" → ")}; after the resume ${path.afterResume.sequence.join(" → ")}`);
    }

    // Bytes: two tool loops of different lengths through the SDK.
    const perNewByteOf = async (which: typeof searchAgent): Promise<number> => {
      const [short, long] = await Promise.all(
        BYTES_TURNS.map(async (turns) => {
          const conversation = prompt(`latency bytes ${turns}`);
          model.respond(conversation, toolLoop(turns));
          const runId = `latency-bytes-${randomUUID()}`;
          await agents.run(which, { prompt: conversation, runId });
          return { turns, historyBytes: (await historyStats(client, runId)).historyBytes };
        }),
      );
      model.assertNoFailures();
      const perNewByte = bytesPerNewByte(short!, long!, LOOKUP_BYTES);
      progress(`bytes (${which.id}): ${short!.turns} turns ${short!.historyBytes} B, ${long!.turns} turns ${long!.historyBytes} B: ${perNewByte.toFixed(2)} history bytes per new byte`);
      return perNewByte;
    };
    const perNewByte = await perNewByteOf(searchAgent);
    const perNewByteLocal = await perNewByteOf(localSearchAgent);

    const crash = await crashSamples(stack.address, namespace, stack.connection, model);

    const medians = (samples: Sample[]) => ({
      startToParkedMs: round(median(samples.map((s) => s.startToParkedMs))),
      resumeToModelMs: round(median(samples.map((s) => s.resumeToModelMs))),
      resumeToAnswerMs: round(median(samples.map((s) => s.resumeToAnswerMs))),
      resumeToModelP90Ms: round(percentile(samples.map((s) => s.resumeToModelMs), 90)),
    });
    const ours = medians(sdk);
    const floorMedians = medians(floor);
    const ratio = (key: keyof ReturnType<typeof medians>, of = ours) => round(of[key] / floorMedians[key], 2);
    const local = medians(sdkLocalModel);
    const gate = medians(sdkGate);
    const bareMedians = medians(bare);
    const bareInboxMedians = medians(bareInbox);
    const vsBare = (of: ReturnType<typeof medians>, to = bareMedians) => ({
      startToParked: round(of.startToParkedMs / to.startToParkedMs, 2),
      resumeToModel: round(of.resumeToModelMs / to.resumeToModelMs, 2),
      resumeToAnswer: round(of.resumeToAnswerMs / to.resumeToAnswerMs, 2),
    });
    const result = {
      bench: "latency",
      samples: SAMPLES,
      eagerStart: EAGER_START,
      eagerActivities: EAGER_ACTIVITIES,
      medians: { sdk: ours, gate, bare: bareMedians, floor: floorMedians },
      // Ours ÷ the bare workflow (issue 25: start → parked ≤ 1.15). The bare workflow parks on the
      // model's approval call itself, as a gated tool (`needsApproval`) does; a handler calling
      // ctx.defer() (sdk) runs that handler as an activity first.
      vsBare: { sdk: vsBare(ours), gate: vsBare(gate) },
      // Ours with one round-trip cut undone: what each pays.
      inProcessParks: IN_PROCESS_PARKS,
      diagnostics: {
        // sdk against the bare workflow that runs its asking tool, lists and times the request too.
        bareInbox: { medians: bareInboxMedians, sdkVsBareInbox: vsBare(ours, bareInboxMedians) },
        queuedStart: medians(sdkQueuedStart),
        noEagerActivities: medians(sdkNoEagerActivities),
        fromHistory: { sdk: medians(sdkFromHistory), gate: medians(gateFromHistory), vsBare: { sdk: vsBare(medians(sdkFromHistory)), gate: vsBare(medians(gateFromHistory)) } },
      },
      // Ours with `modelCalls: "local"`: the same ratios and bytes.
      localModelCalls: {
        medians: local,
        resumeToModelRatio: ratio("resumeToModelMs", local),
        startToParkedRatio: ratio("startToParkedMs", local),
        bytesPerNewByte: round(perNewByteLocal),
      },
      criticalPath,
      crashSamplesMs: crash.map((ms) => round(ms)),
      resumeToModelRatio: ratio("resumeToModelMs"),
      startToParkedRatio: ratio("startToParkedMs"),
      resumeToAnswerRatio: ratio("resumeToAnswerMs"),
      crashResumeMs: round(median(crash)),
      bytesPerNewByte: round(perNewByte),
      targets: TARGETS,
    };
    return {
      ...result,
      pass:
        result.vsBare.gate.startToParked <= TARGETS.gateStartToParkedVsBare &&
        result.crashResumeMs <= TARGETS.crashResumeMs &&
        result.bytesPerNewByte <= TARGETS.bytesPerNewByte,
    };
  } finally {
    await killAll();
    await stack.close().catch(() => undefined);
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * SIGKILL the worker process while its run is parked, start another, resume at once: how
 * long the resume takes to come back with the finished run.
 */
async function crashSamples(
  address: string,
  namespace: string,
  connection: Client["connection"],
  model: Awaited<ReturnType<typeof startAgentStack>>["model"],
): Promise<number[]> {
  const taskQueue = `bench-latency-crash-${randomUUID()}`;
  const env: Record<string, string> = { TEMPORAL_ADDRESS: address, TASK_QUEUE: taskQueue, MODEL_URL: model.url, SECRET: TEST_SECRET };
  if (process.env.LATENCY_CRASH_STICKY) env.STICKY_TIMEOUT = process.env.LATENCY_CRASH_STICKY;
  const agents = new AgentClient({ connection, namespace, taskQueue, deferral: { secret: TEST_SECRET } });
  const samples: number[] = [];
  let worker = await spawnWorker("approval-worker", env);
  for (let i = 0; i < CRASH_SAMPLES; i++) {
    const runId = `latency-crash-${randomUUID()}`;
    model.script(runId, [
      { toolCalls: [{ name: "askApproval", arguments: { amount: 7 } }] },
      { toolCalls: [{ name: "sendPayout", arguments: { amount: 7 } }] },
      { text: "paid 7" },
    ]);
    const ack = await agents.run("payouts", { prompt: runId, runId });
    if (ack.status !== "deferred") throw new Error(`expected a deferral, got ${JSON.stringify(ack)}`);
    const token = await tokenFor(agents, ack.deferralId);
    await sleep(SETTLE_MS);
    await kill(worker, "SIGKILL");
    worker = await spawnWorker("approval-worker", env);
    const t0 = performance.now();
    const resumed = await agents.resume({ token, payload: PAYLOAD });
    const ms = performance.now() - t0;
    if (resumed.outcome.status !== "completed") throw new Error(`the resumed run did not complete: ${JSON.stringify(resumed)}`);
    progress(`crash ${i + 1}/${CRASH_SAMPLES}: SIGKILL, new worker, resume → completed in ${ms.toFixed(0)}ms`);
    samples.push(ms);
  }
  model.assertNoFailures();
  return samples;
}

interface Phase {
  /** Workflow tasks completed: each a poll answered and a completion sent. */
  workflowTasks: number;
  /** Activity tasks scheduled through the server (eager ones included). */
  activityTasks: number;
  /** Local activities (markers): they run inside a workflow task, no server round trip of their own. */
  localActivities: number;
  /** Workflow task attempts that timed out or failed. */
  workflowTaskRetries: number;
  /** Server round trips on the worker side: workflow tasks + activity tasks + retries. */
  roundTrips: number;
  modelCalls: number;
  sequence: string[];
}

/**
 * The run's history split where the workflow task that accepted its last update (the
 * resume) was scheduled: what reaching the park cost, and what the resume cost.
 */
/** Each event's type and milliseconds since the run's first event (LATENCY_TIMELINE=1 prints the last sample's). */
async function timelineOf(client: Client, workflowId: string): Promise<string> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const at = (e: proto.temporal.api.history.v1.IHistoryEvent) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
  const first = at(events[0]!);
  return events.map((e) => `${(EventType[e.eventType ?? 0] ?? "?").replace(/^EVENT_TYPE_/, "")}@${(at(e) - first).toFixed(1)}`).join(" ");
}

async function pathOf(client: Client, workflowId: string): Promise<{ beforePark: Phase; afterResume: Phase }> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const lastBefore = (end: number, type: number): number => {
    for (let i = end - 1; i >= 0; i--) if (events[i]!.eventType === type) return i;
    return -1;
  };
  const accepted = lastBefore(events.length, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED);
  const split = accepted < 0 ? events.length : lastBefore(accepted, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED);
  return { beforePark: phaseOf(events.slice(0, split)), afterResume: phaseOf(events.slice(split)) };
}

function phaseOf(events: proto.temporal.api.history.v1.IHistoryEvent[]): Phase {
  const phase: Phase = { workflowTasks: 0, activityTasks: 0, localActivities: 0, workflowTaskRetries: 0, roundTrips: 0, modelCalls: 0, sequence: [] };
  for (const e of events) {
    switch (e.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        phase.workflowTasks++;
        phase.sequence.push("WT");
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
      case EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
        phase.workflowTaskRetries++;
        phase.sequence.push("WT!");
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const name = e.activityTaskScheduledEventAttributes?.activityType?.name ?? "?";
        phase.activityTasks++;
        if (/model/i.test(name)) phase.modelCalls++;
        phase.sequence.push(`A:${name}`);
        break;
      }
      case EventType.EVENT_TYPE_MARKER_RECORDED:
        if (e.markerRecordedEventAttributes?.markerName === "core_local_activity") {
          phase.localActivities++;
          phase.sequence.push("LA");
        }
        break;
      default:
    }
  }
  phase.roundTrips = phase.workflowTasks + phase.activityTasks + phase.workflowTaskRetries;
  return phase;
}
