import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentClient, MaxTurnsError, AgentNotRegisteredError } from "../src/index.js";
import { completed, startHarness, uid, type Harness } from "./harness.js";
import { toolLog, weatherAgent } from "./fixtures/agents.js";

let h: Harness;
let agents: AgentClient;

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([weatherAgent]));
});
afterAll(() => h?.close());

describe("the agent loop", () => {
  it("runs a multi-turn conversation with parallel tool calls and returns the answer", async () => {
    const prompt = uid("weather in two cities");
    h.model.script(prompt, [
      {
        toolCalls: [
          { name: "getWeather", arguments: { city: "Oslo" } },
          { name: "getWeather", arguments: { city: "Lisbon" } },
        ],
        usage: { promptTokens: 10, completionTokens: 5 },
      },
      {
        check: (req) => {
          const tools = req.messages.filter((m) => m.role === "tool");
          expect(tools.map((m) => JSON.parse(m.content as string).city)).toEqual(["Oslo", "Lisbon"]);
          expect(req.messages[0]).toMatchObject({ role: "system", content: weatherAgent.system });
        },
        toolCalls: [{ name: "add", arguments: { a: 12, b: 18 } }],
        usage: { promptTokens: 20, completionTokens: 6 },
      },
      { text: "Oslo 12°C, Lisbon 18°C, together 30.", usage: { promptTokens: 30, completionTokens: 7 } },
    ]);
    const runId = uid("run");
    const result = await completed(agents.run(weatherAgent, { prompt, runId, principal: { id: "alice" } }));

    expect(result.text).toBe("Oslo 12°C, Lisbon 18°C, together 30.");
    expect(result.turnsUsed).toBe(3);
    expect(result.usage).toEqual({ promptTokens: 60, completionTokens: 18, totalTokens: 78 });
    expect(result.messageCount).toBe(7);
    const { messages } = await agents.listMessages({ runId });
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "assistant", "tool", "assistant"]);
    expect(messages[5]).toMatchObject({ role: "tool", content: "30" });
    const calls = toolLog.filter((c) => c.runId === runId);
    expect(calls.map((c) => c.input)).toEqual(expect.arrayContaining([{ city: "Oslo" }, { city: "Lisbon" }]));
    expect(calls.every((c) => c.principal === "alice")).toBe(true);

    const state = await agents.state({ runId });
    expect(state).toMatchObject({ status: "completed", turnsUsed: 3, usage: result.usage, messageCount: 7 });
    expect(state.recentMessages).toEqual(messages);
    h.model.assertNoFailures();
  });

  it("gives a later call whose id the model reused an idempotency key of its own", async () => {
    const prompt = uid("reused call id");
    const call = (city: string) => ({ toolCalls: [{ name: "getWeather", id: "call_1", arguments: { city } }] });
    h.model.script(prompt, [call("Oslo"), call("Lisbon"), { text: "two cities" }]);
    const runId = uid("run");
    await completed(agents.run(weatherAgent, { prompt, runId }));
    // Two effects, two keys: the first as always, the reuse marked by which use it is.
    expect(toolLog.filter((c) => c.runId === runId).map((c) => [c.toolCallId, c.key])).toEqual([
      ["call_1", `${runId}/call_1`],
      ["call_1", `${runId}/call_1#2`],
    ]);
  });

  it("hands invalid arguments back to the model as a tool error it can correct", async () => {
    const prompt = uid("bad args");
    h.model.script(prompt, [
      { toolCalls: [{ name: "add", arguments: { a: "one", b: 2 } }] },
      {
        check: (req) => expect(req.messages.at(-1)?.content).toMatch(/^Error: invalid arguments for "add":[\s\S]*a/),
        toolCalls: [{ name: "add", arguments: "{not json" }],
      },
      {
        check: (req) => expect(req.messages.at(-1)?.content).toMatch(/not valid JSON/),
        toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }],
      },
      { text: "3" },
    ]);
    // maxTurns is 4 and this uses exactly 4.
    const result = await completed(agents.run(weatherAgent, { prompt }));
    expect(result.text).toBe("3");
    expect(result.turnsUsed).toBe(4);
    h.model.assertNoFailures();
  });

  it("tells the model about an unknown tool instead of failing the run", async () => {
    const prompt = uid("unknown tool");
    h.model.script(prompt, [
      { toolCalls: [{ name: "launchRockets", arguments: {} }] },
      {
        check: (req) => expect(req.messages.at(-1)?.content).toMatch(/unknown tool "launchRockets". Available tools: getWeather, add/),
        text: "I cannot do that.",
      },
    ]);
    await expect(agents.run(weatherAgent, { prompt })).resolves.toMatchObject({ text: "I cannot do that.", turnsUsed: 2 });
  });

  it("fails with a typed MaxTurnsError carrying turns and usage when maxTurns runs out", async () => {
    const prompt = uid("loops forever");
    const step = { toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }], usage: { promptTokens: 3, completionTokens: 2 } };
    h.model.script(prompt, [step, step, step, step]);
    const err = await agents.run(weatherAgent, { prompt }).catch((e: unknown) => e);
    expect(MaxTurnsError.isInstance(err)).toBe(true);
    expect((err as MaxTurnsError).code).toBe("AI1004");
    expect((err as MaxTurnsError).fields).toEqual({ maxTurns: 4, turnsUsed: 4, usage: { promptTokens: 12, completionTokens: 8, totalTokens: 20 } });
    h.model.assertNoFailures();
  });

  it("starting the same run id twice starts one run", async () => {
    const prompt = uid("idempotent");
    // The run is still at its model call when both starts return.
    const hold = h.model.hold();
    h.model.script(prompt, [{ hold, text: "once" }]);
    const runId = uid("same");
    const [a, b] = await Promise.all([agents.start(weatherAgent, { prompt, runId }), agents.start(weatherAgent, { prompt, runId })]);
    expect(a.runId).toBe(b.runId);
    hold.release();
    await expect(a.result()).resolves.toMatchObject({ text: "once" });
    // Once it has finished, the same id still names that run and does not start another.
    await expect(agents.run(weatherAgent, { prompt, runId })).resolves.toMatchObject({ text: "once" });
    expect(h.model.requests.filter((r) => r.conversation === prompt)).toHaveLength(1);
    const { executions } = await h.connection.workflowService.listWorkflowExecutions({
      namespace: h.namespace,
      query: `WorkflowId = "${runId}"`,
    });
    expect(executions).toHaveLength(1);
  });

  it("fails with AI1002 when the worker does not know the agent", async () => {
    const err = await agents.run("nobody", { prompt: uid("who") }).catch((e: unknown) => e);
    expect(AgentNotRegisteredError.isInstance(err)).toBe(true);
    expect((err as Error).message).toMatch(/No agent "nobody" is registered.*registered: weather/);
  });
});
