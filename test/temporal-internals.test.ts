/**
 * Each use of an interface Temporal does not publish (src/temporal/internals.ts), against
 * the installed SDK's real objects: a Temporal release that moves what one relies on fails
 * here by name, before a user meets the slower or noisier path it degrades to.
 */
import { randomUUID } from "node:crypto";
import { Client, Connection } from "@temporalio/client";
import type { Logger } from "@temporalio/common";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadDataConverter, onActivationCompleted, replaceWorkerLogger } from "../src/temporal/internals.js";
import { weatherAgent } from "./fixtures/agents.js";
import { startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe("Temporal's unpublished interfaces, on the installed SDK", () => {
  it("onActivationCompleted: a worker's workflow task completions, each once the server has answered it, by run id", async () => {
    const { worker, agents, running } = await h.worker([weatherAgent]);
    const answered: string[] = [];
    const stop = onActivationCompleted(worker, () => true, (runId) => answered.push(runId));
    try {
      expect(stop).toBeTypeOf("function");
      const runId = uid("internals");
      h.model.script(runId, [{ text: "Sunny." }]);
      await agents.run(weatherAgent, { prompt: runId, runId });
      const { runId: executionId } = await agents.workflowHandle(runId).describe();
      // The task that completed the run was answered (its completion is in the history) before it was reported.
      expect(answered).toContain(executionId);
      const history = await agents.workflowHandle(runId).fetchHistory();
      expect(history.events?.some((e) => e.workflowTaskCompletedEventAttributes)).toBe(true);
    } finally {
      stop?.();
      worker.shutdown();
      await running;
    }
  });

  it("replaceWorkerLogger: what a worker logs of itself goes through the replacement", async () => {
    const worker = await Worker.create({ connection: h.native, namespace: h.namespace, taskQueue: `tq-${randomUUID()}`, activities: { noop: async () => undefined } });
    const seen: string[] = [];
    const replaced = replaceWorkerLogger(worker, (logger) =>
      Object.create(logger, {
        warn: { value: (message: string) => void seen.push(message) },
        info: { value: (message: string) => void seen.push(message) },
      }) as Logger,
    );
    expect(replaced).toBe(true);
    await worker.runUntil(Promise.resolve());
    // Temporal's warning for a worker with no workflows, and its own state lines.
    expect(seen).toContainEqual(expect.stringMatching(/No workflows registered/));
  });

  it("loadDataConverter: a client takes the loaded converter as it is, wrapped payload converter and all", async () => {
    const connection = await Connection.connect({ address: inject("temporalAddress") });
    try {
      const loaded = loadDataConverter(undefined);
      const wrapped = { ...loaded, payloadConverter: Object.create(loaded.payloadConverter) };
      const client = new Client({ connection, namespace: h.namespace, dataConverter: wrapped as never });
      expect(client.options.loadedDataConverter.payloadConverter).toBe(wrapped.payloadConverter);
    } finally {
      await connection.close();
    }
  });
});
