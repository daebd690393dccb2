/**
 * OpenTelemetry: with an SDK registered in the process, a run that calls tools, defers, is
 * resumed by another worker and client, and completes is one trace: an `invoke_agent` span
 * per step (the resumed step a child of the first, linked to the deferring one), `chat` and
 * `execute_tool` spans under their steps, deferral events on the steps; tokens, latencies
 * and deferral counts arrive as metrics. Message content stays off unless asked for, and
 * the spans nest under those of `@temporalio/interceptors-opentelemetry` when it is installed.
 */
import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { Resource } from "@opentelemetry/resources";
import { AggregationTemporality, MeterProvider, MetricReader, type DataPoint, type Histogram, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { Client } from "@temporalio/client";
import { OpenTelemetryPlugin, OpenTelemetryWorkflowClientInterceptor } from "@temporalio/interceptors-opentelemetry";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AgentClient, defineAgent, defineTool } from "../src/index.js";
import { approvalOptions, linkFor } from "./fixtures/approvals.js";
import { completed, SECRET, startHarness, uid, type Harness } from "./harness.js";
import { chatAgent, threadRig } from "./thread-support.js";

class TestMetricReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor(exporter);
const provider = new BasicTracerProvider({ resource: new Resource({ "service.name": "otel-test" }) });
provider.addSpanProcessor(processor);
const reader = new TestMetricReader();
const meterProvider = new MeterProvider({ readers: [reader] });

let h: Harness;
beforeAll(async () => {
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  metrics.setGlobalMeterProvider(meterProvider);
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
  trace.disable();
  metrics.disable();
  context.disable();
});

/** What the prompts say besides the run id: it must appear on no span unless content is captured. */
const PROMPT = "pay invoice INV-7731 to Jane Roe";

/** A payouts agent of its own, so its metrics are told apart from other tests'. */
const agentFor = (prefix: string) => defineAgent({ ...approvalOptions, id: uid(prefix) });

/** Everything the run's spans are: those naming the run, and every span in their trace. */
function spansOfTrace(runId: string): ReadableSpan[] {
  const all = exporter.getFinishedSpans();
  const own = all.find((s) => s.attributes["durable_agents.run.id"] === runId);
  if (!own) throw new Error(`no span names the run ${runId}; spans: ${all.map((s) => s.name).join(", ")}`);
  return all.filter((s) => s.spanContext().traceId === own.spanContext().traceId);
}

const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name).sort((a, b) => hr(a.startTime) - hr(b.startTime));
const hr = ([s, ns]: [number, number]) => s * 1e9 + ns;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

/** Parks a run (tool call → deferral), resumes it through another worker and client, and waits for it to complete. */
async function parkAndResumeElsewhere(agent: ReturnType<typeof defineAgent>, runId: string, overrides: Parameters<Harness["worker"]>[1] = {}) {
  const prompt = `${runId} ${PROMPT}`;
  h.model.script(prompt, [
    { toolCalls: [{ name: "askApproval", arguments: { amount: 42 } }], usage: { promptTokens: 120, completionTokens: 12 } },
    { toolCalls: [{ name: "sendPayout", arguments: { amount: 42 } }], usage: { promptTokens: 150, completionTokens: 14 } },
    { text: "paid", usage: { promptTokens: 170, completionTokens: 3 } },
  ]);
  const first = await h.worker([agent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } }, ...overrides });
  expect(await first.agents.run(agent, { prompt, runId })).toMatchObject({ status: "deferred" });
  // The first worker is gone by the time the approval comes: another one, with a fresh cache, takes the run on.
  first.worker.shutdown();
  await first.running;
  const second = await h.worker([agent], { deferral: { secret: SECRET }, ...overrides, taskQueue: first.taskQueue });
  const resumer = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue: first.taskQueue, deferral: { secret: SECRET } });
  const resumed = await resumer.resume({ token: linkFor(runId).token, payload: { approved: true } });
  expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "paid" } });
  // The step that completes closes in the same workflow task as the result: give the sink its turn.
  await waitFor(() => named(spansOfTrace(runId), `invoke_agent ${agent.id}`).length === 2);
  second.worker.shutdown();
  await second.running;
}

/** Waits until the spans or metrics the test needs have been exported (the sink runs after the workflow task). */
async function waitFor(done: () => boolean): Promise<void> {
  await vi.waitFor(() => expect(done()).toBe(true), { timeout: 20_000, interval: 20 });
}

async function collect(): Promise<ResourceMetrics> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  return resourceMetrics;
}

function points(rm: ResourceMetrics, name: string): DataPoint<unknown>[] {
  return rm.scopeMetrics.flatMap((s) => s.metrics.filter((m) => m.descriptor.name === name).flatMap((m) => m.dataPoints as DataPoint<unknown>[]));
}

describe("OpenTelemetry", () => {
  it("makes one trace of a run that calls tools, parks, is resumed elsewhere and completes, linked across the park", async () => {
    const agent = agentFor("traced");
    const runId = uid("otel-run");
    await parkAndResumeElsewhere(agent, runId);
    const spans = spansOfTrace(runId);

    const steps = named(spans, `invoke_agent ${agent.id}`);
    expect(steps).toHaveLength(2);
    const [parkedStep, resumedStep] = steps as [ReadableSpan, ReadableSpan];
    expect(parkedStep.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent.id, "durable_agents.step.outcome": "deferred" });
    const deferralId = linkFor(runId).deferralId;
    expect(parkedStep.events.map((e) => [e.name, e.attributes?.["durable_agents.deferral.id"]])).toEqual([["deferred", deferralId]]);
    // Days later, on another worker: the same trace, a child of the run's first step, linked to the deferring one.
    expect(resumedStep.parentSpanId).toBe(idOf(parkedStep));
    expect(resumedStep.links.map((l) => l.context.spanId)).toEqual([idOf(parkedStep)]);
    expect(resumedStep.events.map((e) => [e.name, e.attributes?.["durable_agents.deferral.id"]])).toEqual([["resumed", deferralId]]);
    expect(resumedStep.attributes).toMatchObject({ "durable_agents.step.outcome": "completed", "durable_agents.turns_used": 3 });
    expect(parkedStep.parentSpanId).toBeUndefined();

    const chats = named(spans, "chat gpt-4.1-mini");
    expect(chats.map((c) => c.parentSpanId)).toEqual([idOf(parkedStep), idOf(resumedStep), idOf(resumedStep)]);
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-4.1-mini",
      "gen_ai.agent.name": agent.id,
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 12,
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "durable_agents.attempt": 1,
    });
    expect(chats[2]!.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);

    const [ask] = named(spans, "execute_tool askApproval");
    const [send] = named(spans, "execute_tool sendPayout");
    expect(ask!.parentSpanId).toBe(idOf(parkedStep));
    expect(ask!.attributes).toMatchObject({ "gen_ai.tool.name": "askApproval", "gen_ai.tool.call.id": linkFor(runId).toolCallId, "durable_agents.tool.outcome": "deferred", "durable_agents.deferral.id": deferralId });
    expect(send!.parentSpanId).toBe(idOf(resumedStep));
    expect(send!.attributes).toMatchObject({ "gen_ai.tool.name": "sendPayout", "durable_agents.tool.outcome": "success" });
    expect(typeof send!.attributes["gen_ai.tool.call.id"]).toBe("string");

    // Content is off by default: neither the prompt nor a tool's arguments or result is on any span.
    const everything = JSON.stringify(spans.map((s) => [s.attributes, s.events]));
    expect(everything).not.toContain(PROMPT);
    expect(everything).not.toContain("sent 42");
    expect(everything).not.toContain("gen_ai.input.messages");
  });

  it("closes the run's first step as failed when its first model call, which opened it, fails for good", async () => {
    const agent = agentFor("refused");
    const runId = uid("otel-refused");
    const prompt = `${runId} ${PROMPT}`;
    // Every attempt refused: a 401 is final, the run fails with AI1003 before it learns of the step.
    h.model.respond(prompt, () => ({ errors: [401, 401], text: "never" }));
    const { agents } = await h.worker([agent], { deferral: { secret: SECRET } });
    await agents.start(agent, { prompt, runId });
    await expect(agents.result({ runId })).rejects.toMatchObject({ code: "AI1003" });
    await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === `invoke_agent ${agent.id}` && s.attributes["durable_agents.run.id"] === runId));
    const [step] = named(spansOfTrace(runId), `invoke_agent ${agent.id}`);
    expect(step!.attributes).toMatchObject({ "durable_agents.step.outcome": "failed", "error.type": "AI1003" });
    expect(step!.attributes["durable_agents.step.abandoned"]).toBeUndefined();
    const [chat] = named(spansOfTrace(runId), "chat gpt-4.1-mini");
    expect(chat!.parentSpanId).toBe(idOf(step!));
  });

  it("reports tokens by agent and model, model and tool latency, and parked, resumed, denied deferrals as metrics", async () => {
    const agent = agentFor("metered");
    const runId = uid("otel-metrics");
    await parkAndResumeElsewhere(agent, runId);
    let rm = await collect();
    const tokens = points(rm, "gen_ai.client.token.usage").filter((p) => p.attributes["gen_ai.agent.name"] === agent.id) as DataPoint<Histogram>[];
    const byType = (type: string) => tokens.find((p) => p.attributes["gen_ai.token.type"] === type && p.attributes["gen_ai.request.model"] === "gpt-4.1-mini")!.value;
    expect(byType("input")).toMatchObject({ count: 3, sum: 120 + 150 + 170 });
    expect(byType("output")).toMatchObject({ count: 3, sum: 12 + 14 + 3 });
    const durations = points(rm, "gen_ai.client.operation.duration").filter((p) => p.attributes["gen_ai.agent.name"] === agent.id) as DataPoint<Histogram>[];
    expect(durations.find((p) => p.attributes["gen_ai.operation.name"] === "chat")!.value.count).toBe(3);
    expect(durations.find((p) => p.attributes["gen_ai.tool.name"] === "sendPayout")!.value.count).toBe(1);
    expect(durations.find((p) => p.attributes["gen_ai.tool.name"] === "askApproval")!.attributes["durable_agents.tool.outcome"]).toBe("deferred");
    const counter = (name: string) => points(rm, name).find((p) => p.attributes["gen_ai.agent.name"] === agent.id)?.value;
    expect(counter("durable_agents.deferrals.resumed")).toBe(1);
    expect(counter("durable_agents.deferrals.parked")).toBe(0);

    // A run parked and not yet answered counts as parked; denying it moves it to denied.
    const waiting = uid("otel-denied");
    h.model.script(waiting, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 7 } }] }, { text: "not paid" }]);
    const w = await h.worker([agent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
    expect(await w.agents.run(agent, { prompt: waiting, runId: waiting })).toMatchObject({ status: "deferred" });
    rm = await collect();
    expect(counter("durable_agents.deferrals.parked")).toBe(1);
    await w.agents.deferrals.deny({ deferralId: linkFor(waiting).deferralId, reason: "no budget" });
    await w.agents.result({ runId: waiting });
    rm = await collect();
    expect(counter("durable_agents.deferrals.parked")).toBe(0);
    expect(counter("durable_agents.deferrals.denied")).toBe(1);
    const [, afterDenial] = named(spansOfTrace(waiting), `invoke_agent ${agent.id}`);
    expect(afterDenial!.events.map((e) => e.name)).toEqual(["denied"]);
  });

  it("names the model that answered on the chat span and on its tokens, with an event for each model that was out", async () => {
    const agent = defineAgent({ ...approvalOptions, id: uid("fallback"), fallbackModels: ["gpt-4.1-nano"] });
    const runId = uid("otel-fallback");
    h.model.respond(runId, (req) => (req.model === "gpt-4.1-mini" ? { errors: Object.assign([], { [req.attempt]: 503 }), text: "never" } : { text: "answered", usage: { promptTokens: 21, completionTokens: 2 } }));
    const w = await h.worker([agent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
    expect(await w.agents.run(agent, { prompt: runId, runId })).toMatchObject({ status: "completed", text: "answered" });
    await waitFor(() => named(spansOfTrace(runId), "chat gpt-4.1-mini").length === 1);
    const [chat] = named(spansOfTrace(runId), "chat gpt-4.1-mini");
    expect(chat!.attributes).toMatchObject({ "gen_ai.request.model": "gpt-4.1-mini", "gen_ai.response.model": "gpt-4.1-nano" });
    expect(chat!.events.map((e) => [e.name, e.attributes])).toEqual([
      ["durable_agents.model_fallback", { "gen_ai.request.model": "gpt-4.1-mini", "error.type": "HTTP503", "durable_agents.next_model": "gpt-4.1-nano" }],
    ]);
    const tokens = points(await collect(), "gen_ai.client.token.usage").filter((p) => p.attributes["gen_ai.agent.name"] === agent.id) as DataPoint<Histogram>[];
    expect(tokens.map((p) => [p.attributes["gen_ai.response.model"], p.attributes["gen_ai.token.type"], p.value.sum])).toEqual(
      expect.arrayContaining([["gpt-4.1-nano", "input", 21], ["gpt-4.1-nano", "output", 2]]),
    );
  });

  it("puts message content on the spans only with captureContent: true", async () => {
    const agent = agentFor("content");
    const runId = uid("otel-content");
    await parkAndResumeElsewhere(agent, runId, { captureContent: true });
    const spans = spansOfTrace(runId);
    const [firstChat] = named(spans, "chat gpt-4.1-mini");
    expect(String(firstChat!.attributes["gen_ai.input.messages"])).toContain(PROMPT);
    expect(String(firstChat!.attributes["gen_ai.output.messages"])).toContain("askApproval");
    const [send] = named(spans, "execute_tool sendPayout");
    expect(send!.attributes).toMatchObject({ "gen_ai.tool.call.arguments": JSON.stringify({ amount: 42 }), "gen_ai.tool.call.result": "sent 42" });
  });

  it("nests its spans under @temporalio/interceptors-opentelemetry's workflow and activity spans: one trace", async () => {
    const agent = agentFor("intercepted");
    const runId = uid("otel-intercepted");
    const plugin = new OpenTelemetryPlugin({ resource: new Resource({ "service.name": "otel-test" }), spanProcessor: processor });
    const client = new Client({ connection: h.connection, namespace: h.namespace, interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } });
    // Temporal's workflow interceptors go into the bundle: this worker bundles its own.
    const overrides = { workflowBundle: undefined, worker: { plugins: [plugin] }, client: { client } };
    await parkAndResumeElsewhere(agent, runId, overrides);
    const spans = spansOfTrace(runId);
    const byId = new Map(spans.map((s) => [idOf(s), s]));
    const parentName = (s: ReadableSpan) => (s.parentSpanId ? byId.get(s.parentSpanId)?.name : undefined);

    expect(spans.some((s) => s.name === "StartWorkflow:agentRun")).toBe(true);
    expect(spans.some((s) => s.name === "RunWorkflow:agentRun")).toBe(true);
    const chats = named(spans, "chat gpt-4.1-mini");
    expect(chats).toHaveLength(3);
    for (const chat of chats) expect(parentName(chat)).toBe("RunActivity:callAgentModel");
    for (const tool of [...named(spans, "execute_tool askApproval"), ...named(spans, "execute_tool sendPayout")]) expect(parentName(tool)).toBe("RunActivity:callAgentTool");
    const [parkedStep, resumedStep] = named(spans, `invoke_agent ${agent.id}`);
    expect(resumedStep!.parentSpanId).toBe(idOf(parkedStep!));
    expect(resumedStep!.links.map((l) => l.context.spanId)).toEqual([idOf(parkedStep!)]);
    // Every span, Temporal's and ours, from the client's start to the last model call: one trace.
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it("carries the trace across continue-as-new: every execution's steps in one trace, each linked to the one before", async () => {
    const step = defineTool({ name: "step", description: "One small step", input: z.object({ i: z.number() }), handler: ({ i }) => `ok ${i}` });
    const walker = defineAgent({ ...approvalOptions, id: uid("walker"), tools: [step], maxTurns: 100 });
    const runId = uid("otel-walk");
    h.model.respond(runId, (_req, turn) =>
      turn < 30 ? { toolCalls: [{ name: "step", arguments: { i: turn } }], usage: { promptTokens: 1, completionTokens: 1 } } : { text: "walked", usage: { promptTokens: 1, completionTokens: 1 } },
    );
    const { agents, worker, running } = await h.worker([walker]);
    expect(await completed(agents.run(walker, { prompt: runId, runId, maxHistoryEvents: 100 }))).toMatchObject({ text: "walked", turnsUsed: 31 });
    await waitFor(() => named(spansOfTrace(runId), `invoke_agent ${walker.id}`).some((s) => s.attributes["durable_agents.step.outcome"] === "completed"));
    worker.shutdown();
    await running;

    const spans = spansOfTrace(runId);
    const steps = named(spans, `invoke_agent ${walker.id}`);
    expect(steps.length).toBeGreaterThan(2);
    expect(steps.map((s) => s.attributes["durable_agents.step.outcome"])).toEqual([...steps.slice(1).map(() => "continued"), "completed"]);
    const [first, ...later] = steps as [ReadableSpan, ...ReadableSpan[]];
    later.forEach((s, i) => {
      expect(s.parentSpanId).toBe(idOf(first));
      expect(s.links.map((l) => l.context.spanId)).toEqual([idOf(steps[i]!)]);
    });
    // Every model call is in the trace, under the step of the execution that made it.
    const chats = named(spans, "chat gpt-4.1-mini");
    expect(chats).toHaveLength(31);
    const stepIds = new Set(steps.map(idOf));
    for (const chat of chats) expect(stepIds.has(chat.parentSpanId!)).toBe(true);
  });

  it("makes each thread turn an invoke_agent span, its model and tool calls its children, linked to the turn before", async () => {
    const rig = await threadRig(h);
    const first = uid("otel-turn");
    const second = uid("otel-turn");
    // The scripted server knows a thread by its first message: both turns are in its script.
    h.model.script(first, [{ toolCalls: [{ name: "lookup", arguments: { word: "cat" } }] }, { text: "a cat" }, { text: "again" }]);
    const { threadId } = await rig.threads.createThread();
    await rig.threads.sendMessage({ threadId, prompt: first });
    await rig.threads.settled({ threadId });
    await rig.threads.sendMessage({ threadId, prompt: second });
    expect(await rig.threads.settled({ threadId })).toMatchObject({ status: "completed" });
    const turnsOf = () =>
      exporter.getFinishedSpans().filter((s) => s.name === `invoke_agent ${chatAgent.id}` && s.attributes["gen_ai.conversation.id"] === threadId);
    await waitFor(() => turnsOf().length === 2);
    const turns = turnsOf().sort((a, b) => hr(a.startTime) - hr(b.startTime));
    expect(turns.map((t) => t.attributes["durable_agents.step.outcome"])).toEqual(["completed", "completed"]);
    expect(turns[1]!.links.map((l) => l.context.spanId)).toEqual([idOf(turns[0]!)]);
    const children = (turn: ReadableSpan) =>
      exporter
        .getFinishedSpans()
        .filter((s) => s.parentSpanId === idOf(turn))
        .map((s) => s.name)
        .sort();
    expect(children(turns[0]!)).toEqual(["chat gpt-4.1-mini", "chat gpt-4.1-mini", "execute_tool lookup"]);
    expect(children(turns[1]!)).toEqual(["chat gpt-4.1-mini"]);
    const [tool] = exporter.getFinishedSpans().filter((s) => s.name === "execute_tool lookup" && s.parentSpanId === idOf(turns[0]!));
    expect(tool!.attributes).toMatchObject({ "gen_ai.conversation.id": threadId, "durable_agents.tool.outcome": "success", "durable_agents.host": "thread" });
  });
});
