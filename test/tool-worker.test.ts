/**
 * What a tool worker prints as it starts, read from the test process's runtime log
 * (test/test-runtime.ts), which keeps warnings for whoever listens.
 */
import { randomUUID } from "node:crypto";
import { NativeConnection, Worker, type LogEntry } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { defineAgent } from "../src/index.js";
import { createToolWorker } from "../src/worker.js";
import { onRuntimeLog } from "./test-runtime.js";

const warnings: LogEntry[] = [];
const stopListening = onRuntimeLog((entry) => void warnings.push(entry));

let connection: NativeConnection;
beforeAll(async () => {
  connection = await NativeConnection.connect({ address: inject("temporalAddress") });
});
afterAll(async () => {
  stopListening();
  await connection?.close();
});

const agent = defineAgent({ id: "quiet", model: "gpt-4.1-mini", system: "s", tools: [] });

/**
 * Runs a worker until it is running, then stops it; returns the warnings it logged. Temporal
 * decides whether to poll for workflow tasks, and warns, in the same step that makes the
 * worker running.
 */
async function warningsOf(worker: Worker): Promise<string[]> {
  const from = warnings.length;
  await worker.runUntil(vi.waitFor(() => expect(worker.getState()).toBe("RUNNING"), { timeout: 10_000, interval: 10 }));
  return warnings.slice(from).map((w) => w.message);
}

describe("createToolWorker", () => {
  it("starts without Temporal's warning that it registered no workflows, which a bare activity worker logs", async () => {
    const namespace = inject("temporalNamespace");
    const bare = await Worker.create({ connection, namespace, taskQueue: `tq-${randomUUID()}`, activities: { noop: async () => undefined } });
    expect(await warningsOf(bare)).toContainEqual(expect.stringMatching(/No workflows registered/));

    const tools = await createToolWorker({ connection, namespace, taskQueue: `tq-${randomUUID()}`, agents: [agent], concurrency: 2 });
    expect(await warningsOf(tools)).toEqual([]);
    // It still sets what lets a stopped thread reach its tools: the heartbeat throttle.
    expect(tools.options.maxHeartbeatThrottleIntervalMs).toBe(500);
  });
});
