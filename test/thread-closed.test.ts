/**
 * Threads Temporal closed behind the SDK's back, and ids that are not threads at all: each
 * answers with a typed code instead of hanging or reaching past the thread API.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AgentClient, ThreadsClient } from "../src/index.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";
import { chatAgent, release, seen } from "./thread-support.js";
import { weatherAgent } from "./fixtures/agents.js";

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;
let http: HttpServer;

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([chatAgent, weatherAgent], { deferral: { secret: SECRET }, client: { threads: { agent: chatAgent } } }));
  threads = agents.threads;
  http = await startHttp({ agents, threads });
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

describe("a thread Temporal terminated", () => {
  it("ends a wait that began before the termination with AI1029, and reads as terminated", async () => {
    const threadId = uid("terminated");
    h.model.script(threadId, [{ toolCalls: [{ name: "slowTask", arguments: { job: "forever" } }] }, { text: "never" }]);
    await threads.createThread({ threadId, prompt: threadId });
    // The turn is held in its tool: the wait cannot end on its own.
    await vi.waitFor(() => expect(seen.some((s) => s.threadId === threadId && s.tool === "slowTask" && s.event === "started")).toBe(true), { timeout: 10_000, interval: 25 });
    const waiting = threads.settled({ threadId }).then(
      () => "settled",
      (e: unknown) => e,
    );
    await threads.workflowHandle(threadId).terminate("an operator ended it");
    expect(await waiting).toMatchObject({ code: "AI1029", fields: { threadId, closedAs: "terminated", reason: "an operator ended it" } });
    await expect(threads.settled({ threadId })).rejects.toMatchObject({ code: "AI1029" });
    await expect(threads.state({ threadId })).rejects.toMatchObject({ code: "AI1029" });
    release(threadId);
  });
});

describe("an id that is not a thread", () => {
  it("is not deleted by deleteThread or DELETE /threads/:id: AI1020, and the finished run keeps its transcript", async () => {
    const runId = uid("not-a-thread");
    h.model.script(runId, [{ text: "a finished run" }]);
    await agents.run(weatherAgent, { prompt: runId, runId });
    await expect(threads.deleteThread({ threadId: runId })).rejects.toMatchObject({ code: "AI1020" });
    const viaHttp = await http.call("DELETE", `/threads/${encodeURIComponent(runId)}`, { user: "alice" });
    expect(viaHttp).toMatchObject({ status: 404, body: { error: { code: "AI1020" } } });
    expect((await agents.listMessages({ runId })).messages.map((m) => m.content)).toEqual([runId, "a finished run"]);
    expect((await agents.workflowHandle(runId).describe()).status.name).toBe("COMPLETED");
    // A running run is refused alike, and keeps running.
    const running = uid("running-not-a-thread");
    h.model.script(running, [{ toolCalls: [{ name: "getWeather", arguments: { city: "Oslo" } }] }, { text: "done" }]);
    const handle = await agents.start(weatherAgent, { prompt: running, runId: running });
    await expect(threads.deleteThread({ threadId: running })).rejects.toMatchObject({ code: "AI1020" });
    await expect(handle.settled()).resolves.toMatchObject({ status: "completed" });
  });
});
