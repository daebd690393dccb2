import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@temporalio/client";
import type { Payload, PayloadCodec } from "@temporalio/common";
import proto from "@temporalio/proto";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AgentClient, defineAgent, defineTool } from "../src/index.js";
import { durableAgentsPlugin, openaiModel } from "../src/worker.js";
import type { greet } from "./fixtures/user-workflows.js";
import { completed, startHarness, uid, type Harness } from "./harness.js";

const { EventType } = proto.temporal.api.enums.v1;
const { Payload: PayloadMessage } = proto.temporal.api.common.v1;

let h: Harness;
const ownWorkers: Array<{ worker: Worker; running: Promise<void> }> = [];

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  for (const w of ownWorkers) if (w.worker.getState() === "RUNNING") w.worker.shutdown();
  await Promise.allSettled(ownWorkers.map((w) => w.running));
  await h?.close();
});

const measure = defineTool({
  name: "measure",
  description: "Measures a word",
  input: z.object({ word: z.string() }),
  handler: ({ word }) => `${word} has ${word.length} letters`,
});
const agent = defineAgent({ id: "measurer", model: "gpt-4.1-mini", system: "Measure words.", tools: [measure], maxTurns: 4 });

/** A run whose model asks for a tool, then answers: two model calls and a tool call. */
function scriptToolRun(prompt: string) {
  h.model.script(prompt, [{ toolCalls: [{ name: "measure", arguments: { word: "otter" } }] }, { text: "otter has 5 letters" }]);
}

describe("durableAgentsPlugin on the user's own Worker.create", () => {
  it("runs the user's workflows from their workflowsPath next to agent runs, writing no temp files", async () => {
    // os.tmpdir() follows TMPDIR: a private one shows what this worker writes, whatever else runs on the machine.
    const scratch = mkdtempSync(join(tmpdir(), "plugin-tmp-"));
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    const taskQueue = uid("tq-plugin");
    let worker: Worker;
    try {
      worker = await Worker.create({
        connection: h.native,
        namespace: h.namespace,
        taskQueue,
        workflowsPath: fileURLToPath(new URL("./fixtures/user-workflows.ts", import.meta.url)),
        activities: { shout: async (text: string) => text.toUpperCase() },
        plugins: [durableAgentsPlugin({ agents: [agent], model: openaiModel({ baseURL: h.model.url, apiKey: "test" }) })],
      });
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
    expect(readdirSync(scratch).filter((name) => name.startsWith("durable-agents-bundle-"))).toEqual([]);
    rmSync(scratch, { recursive: true, force: true });
    ownWorkers.push({ worker, running: worker.run() });

    const agents = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue });
    const prompt = uid("measure otter");
    scriptToolRun(prompt);
    const [run, greeting] = await Promise.all([
      completed(agents.run(agent, { prompt })),
      agents.client.workflow.execute<typeof greet>("greet", { workflowId: uid("greet"), taskQueue, args: ["ada"] }),
    ]);
    expect(run.text).toBe("otter has 5 letters");
    expect(greeting).toBe("HELLO ADA!");
    // The default heartbeat throttle: the threads' stop latency, unless the worker sets its own.
    expect(worker.options.maxHeartbeatThrottleIntervalMs).toBe(500);
    h.model.assertNoFailures();
  });

  it("with a payload codec on the worker, runs and streaming threads work end to end, and the SDK's own queries and signals go through it", async () => {
    const codec = new MarkingCodec();
    const dataConverter = { payloadCodecs: [codec] };
    const client = new Client({ connection: h.connection, namespace: h.namespace, dataConverter });
    const { agents } = await h.worker([agent], {
      // Every model call misses the worker's copy of the transcript and queries the workflow
      // for it: a query whose answer only decodes with the codec.
      threadCacheSize: 0,
      // By signal, so that the batches' signals are there to show they went through the codec.
      threads: { stream: { transport: "workflow", batchInterval: "50ms" } },
      worker: { dataConverter },
      client: { client },
    });

    const prompt = uid("measure otter");
    scriptToolRun(prompt);
    const run = await agents.start(agent, { prompt });
    expect((await completed(run.settled())).text).toBe("otter has 5 letters");

    const story = "An otter has five letters, and this answer is long enough to stream in several batches.";
    const threadPrompt = uid("measure and tell");
    // The answer comes out in two pieces, each once the follower has read the one before: two batches at least.
    const pieces = [16, 40].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(threadPrompt, [{ toolCalls: [{ name: "measure", arguments: { word: "otter" } }] }, { text: story, holds: pieces }]);
    const { threadId } = await agents.threads.createThread({ agent, prompt: threadPrompt });
    const thread = agents.threads.handle(threadId);
    const streamed: string[] = [];
    const following = (async () => {
      for await (const batch of thread.followUpdates({ pollInterval: 20, until: (b) => b.updates.some((u) => u.type === "status" && u.status === "completed") })) {
        for (const u of batch.updates) if (u.type === "text-delta") streamed.push(u.text);
      }
    })();
    for (const { hold, afterChars } of pieces) {
      await vi.waitFor(() => expect(streamed.join("").length).toBeGreaterThanOrEqual(afterChars), { timeout: 30_000, interval: 20 });
      hold.release();
    }
    await following;
    // Deltas arrive in batches through the codec; the finished message carries the rest.
    expect(streamed.length).toBeGreaterThan(0);
    expect(story.startsWith(streamed.join(""))).toBe(true);
    const messages = (await thread.listMessages()).messages;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(messages.at(-1)?.content).toBe(story);
    // listThreads reads each thread's creation time from its memo, which the codec encoded.
    await vi.waitFor(
      async () => {
        const listed = (await agents.threads.listThreads({ limit: 100 })).threads.find((t) => t.threadId === threadId);
        expect(Date.parse(listed?.createdAt ?? "")).toBeGreaterThan(Date.now() - 120_000);
      },
      { timeout: 10_000 },
    );

    // What the server stores, read without the codec: every payload the SDK sent is encoded,
    // the stream's batches (signals from the model activity) included.
    const raw = new Client({ connection: h.connection, namespace: h.namespace });
    const threadHistory = await raw.workflow.getHandle(threadId).fetchHistory();
    const signals = threadHistory.events!.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
    expect(signals.length).toBeGreaterThanOrEqual(2);
    for (const history of [threadHistory, await raw.workflow.getHandle(run.runId).fetchHistory()]) {
      const payloads = history.events!.flatMap((e) => [
        ...(e.workflowExecutionSignaledEventAttributes?.input?.payloads ?? []),
        ...(e.activityTaskScheduledEventAttributes?.input?.payloads ?? []),
        ...(e.activityTaskCompletedEventAttributes?.result?.payloads ?? []),
        ...(e.workflowExecutionStartedEventAttributes?.input?.payloads ?? []),
      ]);
      expect(payloads.length).toBeGreaterThan(4);
      expect(payloads.map(encodingOf)).toEqual(payloads.map(() => MarkingCodec.encoding));
    }
    expect(codec.decoded).toBeGreaterThan(0);
    h.model.assertNoFailures();
  });

  it("runs the user's workflow interceptor modules for agent runs and threads (createAgentWorker passing `interceptors` through)", async () => {
    const started: Array<{ type: string; id: string }> = [];
    const scheduled: Array<{ id: string; activity: string }> = [];
    const { agents } = await h.worker([agent], {
      // No prebuilt bundle: Temporal bundles at creation, with the interceptor modules.
      workflowBundle: undefined,
      worker: {
        interceptors: { workflowModules: [fileURLToPath(new URL("./fixtures/probe-interceptor.ts", import.meta.url))] },
        sinks: {
          probe: {
            started: { fn: (_info: unknown, type: string, id: string) => void started.push({ type, id }) },
            scheduled: { fn: (_info: unknown, id: string, activity: string) => void scheduled.push({ id, activity }) },
          },
        },
      },
    });
    const prompt = uid("measure otter");
    scriptToolRun(prompt);
    const runId = uid("intercepted");
    await completed(agents.run(agent, { prompt, runId }));
    expect(started).toContainEqual({ type: "agentRun", id: runId });
    expect(scheduled.filter((s) => s.id === runId).map((s) => s.activity)).toEqual(expect.arrayContaining(["callAgentModel", "callAgentTool"]));
    // Temporal built this bundle, so the build id is Temporal's own.
    expect(buildIdsOf((await agents.workflowHandle(runId).fetchHistory()).events ?? [])).toEqual([expect.stringMatching(/^@temporalio\/worker@.+\+[0-9a-f]{64}$/)]);

    const threadPrompt = uid("hello thread");
    h.model.script(threadPrompt, [{ text: "hi" }]);
    const { threadId } = await agents.threads.createThread({ agent, prompt: threadPrompt });
    await agents.threads.settled({ threadId });
    expect(started).toContainEqual({ type: "agentThread", id: threadId });
    h.model.assertNoFailures();
  });
});

/** Every build id the worker stamped on the workflow's tasks and activity starts. */
function buildIdsOf(events: proto.temporal.api.history.v1.IHistoryEvent[]): string[] {
  const stamps = events.flatMap((e) => [
    e.workflowTaskStartedEventAttributes?.workerVersion?.buildId,
    e.workflowTaskCompletedEventAttributes?.workerVersion?.buildId,
    e.activityTaskStartedEventAttributes?.workerVersion?.buildId,
  ]);
  return [...new Set(stamps.filter((id): id is string => typeof id === "string" && id.length > 0))];
}

describe("what a worker writes into a run's history", () => {
  it("stamps a 12-digit build id from its bundle, and schedules steps without the run's id, its queue or defaults", async () => {
    const { agents, taskQueue } = await h.worker([agent]);
    const prompt = uid("measure otter");
    scriptToolRun(prompt);
    const runId = uid("stamped");
    expect(await completed(agents.run(agent, { prompt, runId }))).toMatchObject({ text: "otter has 5 letters" });
    const events = (await agents.workflowHandle(runId).fetchHistory()).events ?? [];

    // Temporal's default is its package and version and the bundle's whole SHA-256 (90 characters).
    expect(buildIdsOf(events)).toEqual([createHash("sha256").update(h.bundle.code).digest("hex").slice(0, 12)]);

    // What the activities learn from their own task is not stored with every step.
    const stored = events.flatMap((e) => [
      ...(e.activityTaskScheduledEventAttributes?.input?.payloads ?? []),
      ...(e.activityTaskCompletedEventAttributes?.result?.payloads ?? []),
    ]);
    expect(stored.length).toBe(6);
    for (const payload of stored) {
      const json = Buffer.from(payload.data!).toString();
      expect(json).not.toContain(runId);
      expect(json).not.toContain(taskQueue);
      expect(json).not.toMatch(/"restored":false|"isError":false|"role":"assistant"|"epoch":0/);
    }
    // And the tool still ran, for this run: its result is in the transcript.
    const { messages } = await agents.listMessages({ runId });
    expect(messages.find((m) => m.role === "tool")?.content).toBe("otter has 5 letters");
    h.model.assertNoFailures();
  });
});

describe("a user workflow named like an agent workflow", () => {
  it("fails the workflow tasks with an error that names the clash, instead of hiding either workflow", async () => {
    const taskQueue = uid("tq-clash");
    const worker = await Worker.create({
      connection: h.native,
      namespace: h.namespace,
      taskQueue,
      workflowsPath: fileURLToPath(new URL("./fixtures/clashing-workflows.ts", import.meta.url)),
      plugins: [durableAgentsPlugin({ agents: [agent], model: openaiModel({ baseURL: h.model.url, apiKey: "test" }) })],
    });
    ownWorkers.push({ worker, running: worker.run() });
    const client = new Client({ connection: h.connection, namespace: h.namespace });
    const handle = await client.workflow.start("hello", { workflowId: uid("clash"), taskQueue });
    await vi.waitFor(
      async () => {
        const failures = (await handle.fetchHistory()).events!.flatMap((e) => e.workflowTaskFailedEventAttributes?.failure?.message ?? []);
        expect(failures.join("\n")).toMatch(/clashing-workflows\.ts exports agentRun, already the name of an agent workflow/);
      },
      { timeout: 20_000, interval: 200 },
    );
    await handle.terminate("test over");
  });
});

/** A reversible codec, as an encrypting one would be: the whole payload, reversed, under an encoding of its own. */
class MarkingCodec implements PayloadCodec {
  static readonly encoding = "binary/test-reversed";
  decoded = 0;

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => ({
      metadata: { encoding: new TextEncoder().encode(MarkingCodec.encoding) },
      data: PayloadMessage.encode(p).finish().slice().reverse(),
    }));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      if (encodingOf(p) !== MarkingCodec.encoding) return p;
      this.decoded++;
      return PayloadMessage.decode(p.data!.slice().reverse());
    });
  }
}

function encodingOf(p: Payload): string {
  return new TextDecoder().decode(p.metadata?.encoding ?? new Uint8Array());
}
