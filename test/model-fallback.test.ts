/**
 * Model fallback: an agent that lists `fallbackModels` gets its answer from the next model
 * when one is out (5xx, 429, a connection cut mid-answer), inside the same attempt: no retry
 * delay, no extra activity. A content error is never handed on. When every model is out the
 * call's retries start again from the first, and the last attempt fails with AI1003 naming
 * each model. Which model answered is in the usage, for runs and threads alike, and a
 * streaming reader shows only the answer that was given.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, inProcessStreamTransport, type AgentClient, type ApprovalRequestInfo, type Model, type StreamUpdate, type ThreadsClient } from "../src/index.js";
import { startScriptedModelServer } from "../src/testing/index.js";
import { openaiModel } from "../src/worker.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { render } from "./thread-support.js";

const lookups: string[] = [];
const lookup = defineTool({
  name: "lookup",
  description: "Look an order up",
  input: z.object({ id: z.string() }),
  handler: ({ id }) => {
    lookups.push(id);
    return `order ${id}: shipped`;
  },
});

const PRIMARY = "primary-model";
const SECOND = "second-model";
const THIRD = "third-model";
const agent = defineAgent({ id: "fallback-agent", model: PRIMARY, fallbackModels: [SECOND, THIRD], system: "You answer.", tools: [lookup], maxTurns: 4 });

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;

beforeAll(async () => {
  h = await startHarness();
  const transport = inProcessStreamTransport();
  ({ agents } = await h.worker([agent], {
    deferral: { secret: SECRET },
    threads: { modelMaxAttempts: 2, stream: { transport } },
    client: { threads: { agent }, stream: { transport } },
  }));
  threads = agents.threads;
});
afterAll(() => h?.close());

/** The models a conversation's requests went to, in order. */
const modelsAsked = (conversation: string) => h.model.requests.filter((r) => r.conversation === conversation).map((r) => r.model);
/** An injected error for this request only (the server serves `errors[attempt]`). */
const failOnce = (attempt: number, status: 500 | 503 | 429 | 401 | 400) => Object.assign([], { [attempt]: status === 429 ? { status, retryAfterSeconds: 0 } : status });

describe("model fallback in a run", () => {
  it("answers with the next model when the first is out, in the same attempt, and says so in the usage", async () => {
    const runId = uid("fallback run");
    h.model.respond(runId, (req, turn) => {
      if (req.model === PRIMARY) return { errors: failOnce(req.attempt, 503), text: "never" };
      return turn === 0
        ? { toolCalls: [{ name: "lookup", arguments: { id: runId } }], usage: { promptTokens: 30, completionTokens: 5 } }
        : { text: `done by ${req.model}`, usage: { promptTokens: 40, completionTokens: 6 } };
    });
    const result = await agents.run(agent, { prompt: runId, runId });
    expect(result).toMatchObject({ status: "completed", text: `done by ${SECOND}`, turnsUsed: 2 });
    // Each model call asked the first model, found it out and asked the second: two calls, two activities.
    expect(modelsAsked(runId)).toEqual([PRIMARY, SECOND, PRIMARY, SECOND]);
    expect(lookups.filter((id) => id === runId)).toHaveLength(1);
    if (result.status !== "completed") throw new Error("not completed");
    expect(result.usage).toEqual({
      promptTokens: 70,
      completionTokens: 11,
      totalTokens: 81,
      fallback: { [SECOND]: { promptTokens: 70, completionTokens: 11, totalTokens: 81 } },
    });
    const scheduled = (await agents.workflowHandle(runId).fetchHistory()).events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === "callAgentModel");
    // One more before them: the run's first call, sent before the agent was described, went
    // out with the default 8 attempts, not this worker's 2, so it asked no model (the asks
    // above) and was made again as this worker schedules model calls.
    expect(scheduled).toHaveLength(3);
  });

  it("moves down the list past every model that is out (429, 500), and the usage of the agent's own model stays out of `fallback`", async () => {
    const runId = uid("third run");
    h.model.respond(runId, (req, turn) => {
      if (turn === 0) return req.model === PRIMARY ? { text: "first turn by primary", toolCalls: [{ name: "lookup", arguments: { id: runId } }], usage: { promptTokens: 10, completionTokens: 1 } } : { text: "wrong model" };
      if (req.model === PRIMARY) return { errors: failOnce(req.attempt, 429), text: "never" };
      if (req.model === SECOND) return { errors: failOnce(req.attempt, 500), text: "never" };
      return { text: "third answered", usage: { promptTokens: 20, completionTokens: 2 } };
    });
    const result = await agents.run(agent, { prompt: runId, runId });
    expect(result).toMatchObject({ status: "completed", text: "third answered" });
    expect(modelsAsked(runId)).toEqual([PRIMARY, PRIMARY, SECOND, THIRD]);
    expect(result.status === "completed" && result.usage).toEqual({ promptTokens: 30, completionTokens: 3, totalTokens: 33, fallback: { [THIRD]: { promptTokens: 20, completionTokens: 2, totalTokens: 22 } } });
  });

  it("never hands a content error on: a 400 or a 401 fails the run with AI1003 and no other model is asked", async () => {
    for (const status of [400, 401] as const) {
      const runId = uid(`refused ${status}`);
      h.model.respond(runId, (req) => ({ errors: failOnce(req.attempt, status), text: "never" }));
      await agents.start(agent, { prompt: runId, runId });
      await expect(agents.result({ runId })).rejects.toMatchObject({ code: "AI1003", message: expect.stringContaining(`HTTP ${status}`) });
      expect(modelsAsked(runId)).toEqual([PRIMARY]);
    }
  });

  it("when every model is out, retries the list from the first model, then fails with AI1003 naming each model's failure", async () => {
    const runId = uid("all out");
    h.model.respond(runId, (req) => ({ errors: failOnce(req.attempt, req.model === THIRD ? 500 : 503), text: "never" }));
    await agents.start(agent, { prompt: runId, runId });
    const failure = agents.result({ runId });
    await expect(failure).rejects.toMatchObject({ code: "AI1003" });
    const message = await failure.catch((e: Error) => e.message);
    for (const model of [PRIMARY, SECOND, THIRD]) expect(message).toContain(model);
    expect(message).toMatch(/after 2 attempts/);
    // Two attempts (the worker's modelMaxAttempts), each down the whole list.
    expect(modelsAsked(runId)).toEqual([PRIMARY, SECOND, THIRD, PRIMARY, SECOND, THIRD]);
  });
});

describe("fallback across servers with openaiModel, as docs/agents.md shows it", () => {
  it("routes each name to the server that serves it: the primary's server is out, the fallback's answers in the same attempt", async () => {
    const local = await startScriptedModelServer();
    try {
      // The documented configuration: one openaiModel per server, a Model that picks the server by name.
      const gateway = openaiModel({ baseURL: h.model.url, apiKey: "scripted" });
      const ollama = openaiModel({ baseURL: local.url, apiKey: "ollama" });
      const model: Model = { complete: (request) => (request.model.startsWith("llama") ? ollama : gateway).complete(request) };
      const routed = defineAgent({ id: "fallback-routed", model: "gpt-4.1", fallbackModels: ["llama3.1:8b"], system: "You answer.", maxTurns: 2 });
      const { agents: routedAgents } = await h.worker([routed], { model });
      const runId = uid("routed");
      h.model.respond(runId, (req) => ({ errors: failOnce(req.attempt, 503), text: "never" }));
      local.script(runId, [{ text: "answered by the local server", usage: { promptTokens: 12, completionTokens: 4 } }]);
      const result = await routedAgents.run(routed, { prompt: runId, runId });
      expect(result).toMatchObject({ status: "completed", text: "answered by the local server", usage: { fallback: { "llama3.1:8b": { promptTokens: 12, completionTokens: 4 } } } });
      expect(modelsAsked(runId)).toEqual(["gpt-4.1"]);
      expect(local.requests.filter((r) => r.conversation === runId).map((r) => r.model)).toEqual(["llama3.1:8b"]);
    } finally {
      await local.close();
    }
  });
});

describe("a parked run and the fallback list", () => {
  it("resumes under a worker whose agent lists other fallbacks: the list is not part of the fingerprint", async () => {
    const notified: ApprovalRequestInfo[] = [];
    const pay = defineTool({ name: "pay", description: "Pay", input: z.object({ amount: z.number() }), needsApproval: true, approval: { notify: (r) => void notified.push(r) }, handler: ({ amount }) => `paid ${amount}` });
    const options = { id: "fallback-parked", model: PRIMARY, system: "You pay.", tools: [pay], maxTurns: 3 };
    const before = defineAgent(options);
    const after = defineAgent({ ...options, fallbackModels: [SECOND] });
    const runId = uid("parked fallback");
    h.model.respond(runId, (req, turn) => {
      if (turn === 0) return { toolCalls: [{ id: "call_pay", name: "pay", arguments: { amount: 5 } }] };
      return req.model === PRIMARY ? { errors: failOnce(req.attempt, 503), text: "never" } : { text: "paid, by the fallback" };
    });
    const first = await h.worker([before], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
    expect(await first.agents.run(before, { prompt: runId, runId })).toMatchObject({ status: "deferred" });
    // The approver hears of it from the first worker: a notification still in flight when it
    // shuts down would wait out its activity's timeout, which is not what this test is about.
    await vi.waitFor(() => expect(notified.some((n) => n.runId === runId)).toBe(true), { timeout: 20_000, interval: 20 });
    first.worker.shutdown();
    await first.running;
    const second = await h.worker([after], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } }, taskQueue: first.taskQueue });
    const request = notified.find((n) => n.runId === runId)!;
    const resumed = await second.agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: "call_pay", approved: true }] } });
    expect(resumed).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "paid, by the fallback" } } });
    expect(modelsAsked(runId)).toEqual([PRIMARY, PRIMARY, SECOND]);
  });
});

describe("model fallback in a thread", () => {
  it("a stream cut mid-answer: readers drop the first model's draft and show the fallback's answer; the usage names it", async () => {
    const prompt = uid("cut thread");
    const FIRST = "The first model starts to say something long that it will never finish";
    const ANSWER = "The second model gives the whole answer.";
    const cut = h.model.hold();
    h.model.respond(prompt, (req) => (req.model === PRIMARY ? { text: FIRST, holds: [{ hold: cut, afterChars: 20 }], dropAfterChars: 30 } : { text: ANSWER, usage: { promptTokens: 9, completionTokens: 4 } }));
    const { threadId } = await threads.createThread({});
    const updates: StreamUpdate[] = [];
    const reading = (async () => {
      for await (const batch of threads.followUpdates({ threadId, pollInterval: 50, until: (b) => b.updates.some((u) => u.type === "status" && u.status === "completed") })) updates.push(...batch.updates);
    })();
    await threads.sendMessage({ threadId, prompt });
    await cut.reached;
    await vi.waitFor(() => expect(updates.some((u) => u.type === "text-delta")).toBe(true), { timeout: 20_000, interval: 20 });
    cut.release();
    await reading;

    const reset = updates.find((u) => u.type === "reset");
    expect(reset).toMatchObject({ reason: "retry" });
    const after = updates.slice(updates.indexOf(reset!) + 1).flatMap((u) => (u.type === "text-delta" ? [u.text] : [])).join("");
    expect(ANSWER.startsWith(after)).toBe(true);
    expect([...render(updates).values()]).toEqual([ANSWER]);
    expect(modelsAsked(prompt)).toEqual([PRIMARY, SECOND]);
    const state = await threads.state({ threadId });
    expect(state.usage.fallback).toEqual({ [SECOND]: { promptTokens: 9, completionTokens: 4, totalTokens: 13 } });
  });

  it("by signal (the default stream), a stream cut mid-answer stops streaming: the fallback's answer arrives whole and replaces the draft", async () => {
    const { agents: bySignal } = await h.worker([agent], { threads: { modelMaxAttempts: 2 }, client: { threads: { agent } } });
    const prompt = uid("cut by signal");
    const ANSWER = "Answered whole by the second model.";
    const cut = h.model.hold();
    h.model.respond(prompt, (req) => (req.model === PRIMARY ? { text: "A first model's draft that is cut off here", holds: [{ hold: cut, afterChars: 20 }], dropAfterChars: 30 } : { text: ANSWER }));
    const { threadId } = await bySignal.threads.createThread({});
    const updates: StreamUpdate[] = [];
    const reading = (async () => {
      for await (const batch of bySignal.threads.followUpdates({ threadId, pollInterval: 50, until: (b) => b.updates.some((u) => u.type === "status" && u.status === "completed") })) updates.push(...batch.updates);
    })();
    await bySignal.threads.sendMessage({ threadId, prompt });
    await cut.reached;
    await vi.waitFor(() => expect(updates.some((u) => u.type === "text-delta")).toBe(true), { timeout: 20_000, interval: 20 });
    cut.release();
    await reading;
    expect([...render(updates).values()]).toEqual([ANSWER]);
    expect(modelsAsked(prompt)).toEqual([PRIMARY, SECOND]);
    expect((await bySignal.threads.state({ threadId })).usage.fallback).toEqual({ [SECOND]: expect.objectContaining({ totalTokens: expect.any(Number) }) });
  });
});
