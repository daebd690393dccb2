import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Connection } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentClient } from "../src/index.js";
import { openaiModel, createAgentWorker } from "../src/worker.js";
import { startTemporal } from "../src/testing/index.js";
import { delegatingAgent, payoutAgent } from "./fixtures/approvals.js";
import { SECRET, startHarness, tokenFor, uid, type Harness } from "./harness.js";
import { kill, killAll, spawnWorker } from "./workers/spawn.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await killAll();
  await h?.close();
});

function scriptPayout(runId: string, amount: number) {
  h.model.script(runId, [
    { toolCalls: [{ name: "askApproval", arguments: { amount } }] },
    { toolCalls: [{ name: "sendPayout", arguments: { amount } }] },
    { text: `paid ${amount}` },
  ]);
}

describe("deferred runs survive", () => {
  it("their worker being SIGKILLed: a new worker process resumes them", async () => {
    const taskQueue = uid("kill-deferred");
    const env = { TEMPORAL_ADDRESS: h.address, TASK_QUEUE: taskQueue, MODEL_URL: h.model.url, SECRET };
    const first = await spawnWorker("approval-worker", env);
    const agents = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue, deferral: { secret: SECRET } });
    const runIds = [uid("k"), uid("k"), uid("k")];
    const acks = await Promise.all(
      runIds.map((runId, i) => {
        scriptPayout(runId, i + 1);
        return agents.run(payoutAgent, { prompt: runId, runId });
      }),
    );
    expect(acks.map((a) => a.status)).toEqual(["deferred", "deferred", "deferred"]);
    await kill(first, "SIGKILL");
    await spawnWorker("approval-worker", env);
    const resumed = await Promise.all(
      acks.map(async (ack) => {
        if (ack.status !== "deferred") throw new Error("not deferred");
        return agents.resume({ token: await tokenFor(agents, ack.deferralId), payload: { approved: true } });
      }),
    );
    expect(resumed.map((r) => r.outcome)).toEqual([1, 2, 3].map((n) => expect.objectContaining({ status: "completed", result: expect.objectContaining({ text: `paid ${n}` }) })));
  });

  it("in a sub-agent, their worker being SIGKILLed: a new worker process resumes the child, and the parent goes on", async () => {
    const taskQueue = uid("kill-sub-agent");
    const env = { TEMPORAL_ADDRESS: h.address, TASK_QUEUE: taskQueue, MODEL_URL: h.model.url, SECRET };
    const first = await spawnWorker("approval-worker", env);
    const agents = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue, deferral: { secret: SECRET } });
    const runId = uid("ks");
    h.model.script(runId, [{ toolCalls: [{ id: "c1", name: "payouts", arguments: { prompt: `${runId} pay 7` } }] }, { text: "the payouts agent paid 7" }]);
    scriptPayout(`${runId} pay 7`, 7);
    const ack = await agents.run(delegatingAgent, { prompt: runId, runId });
    expect(ack).toMatchObject({ status: "deferred", deferralId: expect.stringContaining(`${runId}/agent/c1`) });
    await kill(first, "SIGKILL");
    await spawnWorker("approval-worker", env);
    if (ack.status !== "deferred") throw new Error("not deferred");
    const resumed = await agents.resume({ token: await tokenFor(agents, ack.deferralId), payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "the payouts agent paid 7" } });
    expect(await agents.result({ runId: `${runId}/agent/c1` })).toMatchObject({ text: "paid 7" });
  });

  it("the Temporal server being stopped and restarted on its database file", async () => {
    const dbFilename = join(mkdtempSync(join(tmpdir(), "restart-")), "temporal.db");
    const server = await startTemporal({ dbFilename, local: true, log: () => undefined });
    expect(server.owned).toBe(true);
    const taskQueue = uid("restart");
    const connection = await Connection.connect({ address: server.address });
    let native = await NativeConnection.connect({ address: server.address });
    const makeWorker = (conn: NativeConnection) =>
      createAgentWorker({
        connection: conn,
        taskQueue,
        agents: [payoutAgent],
        model: openaiModel({ baseURL: h.model.url, apiKey: "test" }),
        deferral: { secret: SECRET },
        workflowBundle: h.bundle,
      });
    try {
      let worker = await makeWorker(native);
      let running = worker.run();
      const agents = new AgentClient({ connection, taskQueue, deferral: { secret: SECRET } });
      const runIds = [uid("r"), uid("r")];
      const acks = await Promise.all(
        runIds.map((runId, i) => {
          scriptPayout(runId, 10 + i);
          return agents.run(payoutAgent, { prompt: runId, runId });
        }),
      );
      expect(acks.map((a) => a.status)).toEqual(["deferred", "deferred"]);

      worker.shutdown();
      await running;
      await native.close();
      await server.restart();

      native = await NativeConnection.connect({ address: server.address });
      worker = await makeWorker(native);
      running = worker.run();
      const resumed = await Promise.all(
        acks.map(async (ack) => {
          if (ack.status !== "deferred") throw new Error("not deferred");
          return agents.resume({ token: await tokenFor(agents, ack.deferralId), payload: { approved: true } });
        }),
      );
      expect(resumed.map((r) => r.outcome)).toEqual([
        expect.objectContaining({ status: "completed", result: expect.objectContaining({ text: "paid 10" }) }),
        expect.objectContaining({ status: "completed", result: expect.objectContaining({ text: "paid 11" }) }),
      ]);
      worker.shutdown();
      await running;
    } finally {
      await connection.close();
      await native.close().catch(() => undefined);
      await server.stop();
    }
  });
});
