/**
 * A run's tool result is stored in history once, as its tool call's result: the next
 * model call names it, and the worker fills it in from what its tool returned, or reads
 * the run's transcript when it never saw that result (the tool ran elsewhere).
 */
import type { Worker } from "@temporalio/worker";
import proto from "@temporalio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient } from "../src/index.js";
import { createToolWorker } from "../src/worker.js";
import { startHarness, uid, type Harness } from "./harness.js";

const { EventType } = proto.temporal.api.enums.v1;

const POOL = uid("report-pool");
/** A distinctive, long result: what the model must read whole and history must hold once. */
const report = (topic: string) => `REPORT<${topic}> ` + "figures and findings ".repeat(150);

const writeReport = defineTool({
  name: "writeReport",
  description: "Writes a long report",
  input: z.object({ topic: z.string() }),
  handler: ({ topic }) => report(topic),
});
const pooledReport = defineTool({
  name: "pooledReport",
  description: "Writes a long report on the pool",
  input: z.object({ topic: z.string() }),
  queue: POOL,
  handler: ({ topic }) => report(topic),
});
const writer = defineAgent({ id: "writer", model: "gpt-4.1-mini", system: "You write reports.", tools: [writeReport, pooledReport], maxTurns: 6 });

let h: Harness;
let agents: AgentClient;
let pool: { worker: Worker; running: Promise<void> };

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([writer]));
  const worker = await createToolWorker({ connection: h.native, namespace: h.namespace, taskQueue: POOL, agents: [writer], concurrency: 1 });
  pool = { worker, running: worker.run() };
});
afterAll(async () => {
  pool?.worker.shutdown();
  await pool?.running;
  await h?.close();
});

/** How many times `needle` appears in the payloads the run's history stores. */
async function storedCopies(runId: string, needle: string): Promise<number> {
  const events = (await agents.client.workflow.getHandle(runId).fetchHistory()).events ?? [];
  let copies = 0;
  for (const e of events) {
    const payloads = [
      ...(e.activityTaskScheduledEventAttributes?.input?.payloads ?? []),
      ...(e.activityTaskCompletedEventAttributes?.result?.payloads ?? []),
      ...(e.workflowExecutionCompletedEventAttributes?.result?.payloads ?? []),
    ];
    for (const p of payloads) copies += Buffer.from(p.data ?? []).toString("utf8").split(needle).length - 1;
  }
  expect(events.some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)).toBe(true);
  return copies;
}

const toolContents = (req: { messages: Array<{ role: string; content?: unknown }> }) => req.messages.filter((m) => m.role === "tool").map((m) => m.content);

describe("tool results in model calls", () => {
  it("are stored once, and the model reads each whole", async () => {
    const prompt = uid("write two reports");
    h.model.script(prompt, [
      { toolCalls: [{ name: "writeReport", arguments: { topic: "a" } }] },
      { check: (req) => expect(toolContents(req)).toEqual([report("a")]), toolCalls: [{ name: "writeReport", arguments: { topic: "b" } }] },
      { check: (req) => expect(toolContents(req)).toEqual([report("a"), report("b")]), text: "two reports written" },
    ]);
    const result = await agents.run(writer, { prompt, runId: prompt });
    expect(result).toMatchObject({ status: "completed", text: "two reports written" });
    h.model.assertNoFailures();
    expect(await storedCopies(prompt, "REPORT<a>")).toBe(1);
    expect(await storedCopies(prompt, "REPORT<b>")).toBe(1);
    // The transcript a reader pages through holds them whole too.
    const page = await agents.listMessages({ runId: prompt });
    expect(page.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([report("a"), report("b")]);
  });

  it("reach the model whole when the tool ran on another worker, which the model's worker reads them from the run for", async () => {
    const prompt = uid("write a pooled report");
    h.model.script(prompt, [
      { toolCalls: [{ name: "pooledReport", arguments: { topic: "p" } }, { name: "writeReport", arguments: { topic: "q" } }] },
      { check: (req) => expect(toolContents(req)).toEqual([report("p"), report("q")]), text: "pooled report written" },
    ]);
    const result = await agents.run(writer, { prompt, runId: prompt });
    expect(result).toMatchObject({ status: "completed", text: "pooled report written" });
    h.model.assertNoFailures();
    expect(await storedCopies(prompt, "REPORT<p>")).toBe(1);
  });
});
