import { Context } from "@temporalio/activity";
import type { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, AgentClient } from "../src/index.js";
import { createToolWorker } from "../src/worker.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { threadRig, type ThreadRig } from "./thread-support.js";

/** The work pool's queue: its own task queue, served by a tool worker with a concurrency limit. */
const POOL = uid("render-pool");
const runs: Array<{ job: number; taskQueue: string }> = [];
let active = 0;
let mostAtOnce = 0;
/** Per job: opened by the test, it lets that render finish. */
const finishers = new Map<number, { finished: Promise<void>; finish(): void }>();
function finisherOf(job: number) {
  let entry = finishers.get(job);
  if (!entry) {
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    finishers.set(job, (entry = { finished, finish }));
  }
  return entry;
}

const render = defineTool({
  name: "render",
  description: "Renders a page (expensive)",
  input: z.object({ job: z.number() }),
  queue: POOL,
  async handler({ job }) {
    active += 1;
    mostAtOnce = Math.max(mostAtOnce, active);
    runs.push({ job, taskQueue: Context.current().info.taskQueue });
    await finisherOf(job).finished;
    active -= 1;
    return `page ${job} rendered`;
  },
});

const publisher = defineAgent({ id: "publisher", model: "gpt-4.1-mini", system: "You render pages.", tools: [render] });

let h: Harness;
let rig: ThreadRig;
let pool: { worker: Worker; running: Promise<void> };

beforeAll(async () => {
  h = await startHarness();
  rig = await threadRig(h, [publisher]);
  const worker = await createToolWorker({ connection: h.native, namespace: h.namespace, taskQueue: POOL, agents: [publisher], concurrency: 1 });
  pool = { worker, running: worker.run() };
});
afterAll(async () => {
  pool?.worker.shutdown();
  await pool?.running;
  await h?.close();
});

/**
 * Lets the renders finish one at a time, each once it has started: the first only once the
 * workflow has scheduled them all, so a pool that took more than one at once would have
 * started them while the first still runs.
 */
async function renderOneByOne(workflowId: string, jobs: number[]): Promise<void> {
  const before = runs.length;
  for (const [i] of jobs.entries()) {
    await vi.waitFor(() => expect(runs.length - before).toBeGreaterThan(i), { timeout: 30_000, interval: 20 });
    if (i === 0) await vi.waitFor(async () => expect(await scheduledRenders(workflowId)).toBe(jobs.length), { timeout: 30_000, interval: 20 });
    expect(runs.length - before).toBe(i + 1);
    expect(active).toBe(1);
    finisherOf(runs.at(-1)!.job).finish();
  }
}

async function scheduledRenders(workflowId: string): Promise<number> {
  const history = await h.connection.workflowService.getWorkflowExecutionHistory({ namespace: h.namespace, execution: { workflowId } });
  return (history.history?.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.taskQueue?.name === POOL).length;
}

describe("tool work pools", () => {
  it("run a tool's calls on its own queue, never more at once than the pool's concurrency", async () => {
    const prompt = uid("render four pages");
    h.model.script(prompt, [
      { toolCalls: [1, 2, 3, 4].map((job) => ({ name: "render", arguments: { job } })) },
      {
        check: (req) => expect(req.messages.filter((m) => m.role === "tool").map((m) => m.content).sort()).toEqual([1, 2, 3, 4].map((j) => `page ${j} rendered`)),
        text: "all four rendered",
      },
    ]);
    const { threadId } = await rig.threads.createThread({ prompt });
    await renderOneByOne(threadId, [1, 2, 3, 4]);
    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
    expect(runs.map((r) => r.job).sort()).toEqual([1, 2, 3, 4]);
    expect(runs.every((r) => r.taskQueue === POOL)).toBe(true);
    expect(mostAtOnce).toBe(1);
    h.model.assertNoFailures();
  });

  it("route an agent run's tool calls to the pool too", async () => {
    const agents = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue: rig.taskQueue });
    const prompt = uid("render two pages in a run");
    h.model.script(prompt, [
      { toolCalls: [5, 6].map((job) => ({ name: "render", arguments: { job } })) },
      { text: "both rendered" },
    ]);
    const before = runs.length;
    mostAtOnce = 0;
    const run = await agents.start(publisher, { prompt, runId: prompt });
    await renderOneByOne(run.runId, [5, 6]);
    await expect(run.result()).resolves.toMatchObject({ text: "both rendered" });
    expect(runs.slice(before).map((r) => [r.job, r.taskQueue]).sort()).toEqual([
      [5, POOL],
      [6, POOL],
    ]);
    expect(mostAtOnce).toBe(1);
  });
});
