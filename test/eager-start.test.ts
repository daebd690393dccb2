/**
 * `eagerStart`: a client on its worker's NativeConnection asks the server to hand a new
 * run's first workflow task straight to that worker. On a server that allows it and on one
 * that does not, the run behaves the same.
 */
import { Client } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentClient, defineAgent } from "../src/index.js";
import { createAgentWorker, openaiModel } from "../src/worker.js";
import { startTemporal, type TemporalServerHandle } from "../src/testing/index.js";
import { add } from "./fixtures/agents.js";
import { startHarness, uid, type Harness } from "./harness.js";

const adder = defineAgent({ id: "eager-adder", model: "gpt-4.1-mini", system: "You add.", tools: [add], maxTurns: 4 });

let h: Harness;
let eagerServer: TemporalServerHandle;
beforeAll(async () => {
  h = await startHarness();
  eagerServer = await startTemporal({ local: true, log: () => undefined, dynamicConfig: { "system.enableEagerWorkflowStart": true } });
});
afterAll(async () => {
  await h?.close();
  await eagerServer?.stop();
});

function scriptAdd(prompt: string) {
  h.model.script(prompt, [{ toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] }, { text: "5" }]);
}

describe("eagerStart", () => {
  it.each([
    ["a server that allows eager start", () => eagerServer.address],
    ["a server that does not", () => h.address],
  ])("runs start and complete on %s", async (_what, address) => {
    const native = await NativeConnection.connect({ address: address() });
    const taskQueue = uid("eager");
    const worker = await createAgentWorker({ connection: native, taskQueue, agents: [adder], model: openaiModel({ baseURL: h.model.url, apiKey: "test" }), workflowBundle: h.bundle });
    try {
      await worker.runUntil(async () => {
        const agents = new AgentClient({ client: new Client({ connection: native }), taskQueue, eagerStart: true });
        const prompt = uid("add two and three");
        scriptAdd(prompt);
        const result = await agents.run(adder, { prompt, runId: prompt });
        expect(result).toMatchObject({ status: "completed", text: "5", turnsUsed: 2 });
        // The same id again attaches to the finished run, as without eager start.
        expect(await agents.run(adder, { prompt, runId: prompt })).toMatchObject({ status: "completed", text: "5" });
      });
    } finally {
      await native.close();
    }
    h.model.assertNoFailures();
  });
});
