/**
 * Reads only a worker can answer (queries: a run's state, a deferral record, a parked run's
 * acknowledgment, the thread reads) fail after the client's `queryTimeout` with AI1015,
 * naming the task queue, when no worker answers; instead of hanging ~30 s and throwing a
 * bare ServiceError. Waiting for a run to finish is not such a read: it waits for a worker.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentClient, ThreadsClient, WorkerUnavailableError } from "../src/index.js";
import { linkFor, payoutAgent } from "./fixtures/approvals.js";
import { weatherAgent } from "./fixtures/agents.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const QUERY_TIMEOUT = "1s";

/** A client for a task queue no worker polls. */
function unserved(): { agents: AgentClient; taskQueue: string } {
  const taskQueue = `nobody-${randomUUID()}`;
  return { agents: new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue, queryTimeout: QUERY_TIMEOUT }), taskQueue };
}

describe("no worker polls the task queue", () => {
  it("state() and deferrals.get() read AI1015 naming the task queue, with no pollers", async () => {
    const { agents, taskQueue } = unserved();
    const runId = uid("unserved");
    await agents.start(payoutAgent, { prompt: runId, runId });
    for (const read of [() => agents.state({ runId }), () => agents.deferrals.get({ deferralId: `dfr:1:${runId}` })]) {
      const err = await read().catch((e: unknown) => e);
      expect(WorkerUnavailableError.isInstance(err)).toBe(true);
      expect(err).toMatchObject({ code: "AI1015", fields: { taskQueue, workflowId: runId, pollers: 0 } });
      expect((err as Error).message).toMatch(/no worker polls it/);
    }
    // Unknown ids are still unknown, not unavailable.
    await expect(agents.state({ runId: `missing-${randomUUID()}` })).rejects.toMatchObject({ code: "AI1010" });
    await expect(agents.deferrals.get({ deferralId: `dfr:1:missing-${randomUUID()}` })).rejects.toMatchObject({ code: "RC5046" });
  });

  it("the thread reads read AI1015", async () => {
    const taskQueue = `nobody-${randomUUID()}`;
    const threads = new ThreadsClient({ connection: h.connection, namespace: h.namespace, taskQueue, agent: "support", queryTimeout: QUERY_TIMEOUT });
    const { threadId } = await threads.createThread({ prompt: "hello" });
    const reads = [
      () => threads.state({ threadId }),
      () => threads.listMessages({ threadId }),
      () => threads.streamUpdates({ threadId }),
      () => threads.settled({ threadId }),
      async () => {
        for await (const batch of threads.followUpdates({ threadId })) return batch;
      },
    ];
    for (const read of reads) {
      await expect(read(), String(reads.indexOf(read))).rejects.toMatchObject({ code: "AI1015", fields: { taskQueue, workflowId: threadId, pollers: 0 } });
    }
  });

  it("waiting for a run is not a read: a run started before any worker completes once one comes", async () => {
    const { agents, taskQueue } = unserved();
    const runId = uid("late-worker");
    h.model.script(runId, [{ text: "Sunny." }]);
    const settling = (await agents.start(weatherAgent, { prompt: runId, runId })).settled();
    // A read of the same run gives up after the query timeout (AI1015); the wait begun before it must not.
    await expect(agents.state({ runId })).rejects.toMatchObject({ code: "AI1015" });
    await h.worker([weatherAgent], { taskQueue });
    await expect(settling).resolves.toMatchObject({ status: "completed", text: "Sunny." });
  });
});

describe("the worker stopped", () => {
  it("a parked run's record reads AI1015 until a worker is back; its acknowledgment comes from its history", async () => {
    const first = await h.worker([payoutAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, queryTimeout: QUERY_TIMEOUT } });
    const runId = uid("stopped");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 2 } }] }]);
    const ack = await first.agents.run(payoutAgent, { prompt: runId, runId });
    expect(ack).toMatchObject({ status: "deferred", deferralId: linkFor(runId).deferralId });
    first.worker.shutdown();
    await first.running;

    for (const read of [() => first.agents.deferrals.get({ deferralId: linkFor(runId).deferralId }), () => first.agents.state({ runId })]) {
      await expect(read()).rejects.toMatchObject({ code: "AI1015", fields: { taskQueue: first.taskQueue, workflowId: runId } });
    }
    // The acknowledgment needs no worker: the park's events in the run's history spell it.
    await expect(first.agents.handle(runId).settled()).resolves.toEqual(ack);

    const second = await h.worker([payoutAgent], { taskQueue: first.taskQueue, deferral: { secret: SECRET } });
    expect(second.taskQueue).toBe(first.taskQueue);
    await expect(first.agents.handle(runId).settled()).resolves.toEqual(ack);
  });
});

describe("hostile and odd options", () => {
  it("refuses a queryTimeout that is not a positive duration with AI1001", () => {
    for (const queryTimeout of ["soon", 0, -5, "0s"]) {
      expect(() => new AgentClient({ connection: h.connection, taskQueue: "x", queryTimeout: queryTimeout as never })).toThrow(/AI1001.*queryTimeout/);
      expect(() => new ThreadsClient({ connection: h.connection, taskQueue: "x", queryTimeout: queryTimeout as never })).toThrow(/AI1001.*queryTimeout/);
    }
  });
});
