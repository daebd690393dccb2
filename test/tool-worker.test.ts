/**
 * What a tool worker prints as it starts. This file installs its own Temporal runtime
 * logger (each test file runs in its own process), so it keeps clear of the harness,
 * which silences everything below errors.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogEntry } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { defineAgent } from "../src/index.js";
import { createToolWorker } from "../src/worker.js";

const warnings: LogEntry[] = [];
Runtime.install({ logger: new DefaultLogger("WARN", (entry) => void warnings.push(entry)) });

let connection: NativeConnection;
beforeAll(async () => {
  connection = await NativeConnection.connect({ address: inject("temporalAddress") });
});
afterAll(() => connection?.close());

const agent = defineAgent({ id: "quiet", model: "gpt-4.1-mini", system: "s", tools: [] });

/** Runs a worker briefly; returns the warnings it logged. */
async function warningsOf(worker: Worker): Promise<string[]> {
  const from = warnings.length;
  await worker.runUntil(sleep(300));
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
