/**
 * `eagerStart`: a client on its worker's NativeConnection asks the server to hand a new
 * run's first workflow task straight to that worker. On a server that allows it the first
 * task never goes through the task queue (the history says the starter, not a worker's poll,
 * started it); on one that does not, the run starts as usual. Either way the run behaves the same.
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
// Servers of our own, each told what to do: a server's default for eager start depends on its version.
let eagerServer: TemporalServerHandle;
let plainServer: TemporalServerHandle;
beforeAll(async () => {
  h = await startHarness();
  const server = (enabled: boolean) => startTemporal({ local: true, log: () => undefined, dynamicConfig: { "system.enableEagerWorkflowStart": enabled } });
  [eagerServer, plainServer] = await Promise.all([server(true), server(false)]);
});
afterAll(async () => {
  await h?.close();
  await Promise.all([eagerServer?.stop(), plainServer?.stop()]);
});

function scriptAdd(prompt: string) {
  h.model.script(prompt, [{ toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] }, { text: "5" }]);
}

describe("eagerStart", () => {
  it.each([
    ["a server that allows eager start", () => eagerServer.address, true],
    ["a server that does not", () => plainServer.address, false],
  ])("runs start and complete on %s", async (_what, address, eager) => {
    const native = await NativeConnection.connect({ address: address() });
    const taskQueue = uid("eager");
    const worker = await createAgentWorker({ connection: native, taskQueue, agents: [adder], model: openaiModel({ baseURL: h.model.url, apiKey: "test" }), workflowBundle: h.bundle });
    try {
      await worker.runUntil(async () => {
        // The starter's identity, told apart from the worker's in the history.
        const agents = new AgentClient({ client: new Client({ connection: native, identity: "eager-starter" }), taskQueue, eagerStart: true });
        const prompt = uid("add two and three");
        scriptAdd(prompt);
        const result = await agents.run(adder, { prompt, runId: prompt });
        expect(result).toMatchObject({ status: "completed", text: "5", turnsUsed: 2 });
        // An eager start hands the first task to the worker in the start's answer: the history
        // records it as started by the starting client. Otherwise the worker polled it.
        const events = (await agents.workflowHandle(prompt).fetchHistory()).events ?? [];
        const firstTask = events.find((e) => e.workflowTaskStartedEventAttributes)?.workflowTaskStartedEventAttributes;
        expect(firstTask?.identity).toBe(eager ? "eager-starter" : worker.options.identity);
        // The same id again attaches to the finished run, as without eager start.
        expect(await agents.run(adder, { prompt, runId: prompt })).toMatchObject({ status: "completed", text: "5" });
      });
    } finally {
      await native.close();
    }
    h.model.assertNoFailures();
  });
});
