/**
 * Any model provider through the AI SDK: `aiSdkModel()` driven by the AI SDK's own mock
 * language model (a run with tools, a deferral, a streamed thread), then by
 * `@ai-sdk/openai-compatible` over HTTP against the scripted model server (settings,
 * `transformMessages`, error classification). Agent model settings reach `openaiModel` too.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, type ChatMessage, type StreamUpdate } from "../src/index.js";
import { aiSdkModel } from "../src/ai-sdk.js";
import { weatherAgent } from "./fixtures/agents.js";
import { linkFor, payoutAgent, payouts } from "./fixtures/approvals.js";
import { completed, SECRET, startHarness, uid, type Harness } from "./harness.js";
import { chatAgent, threadRig } from "./thread-support.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
const finish = (unified: "stop" | "tool-calls") => ({ unified, raw: unified });
const toolCall = (toolCallId: string, toolName: string, input: object): LanguageModelV3GenerateResult => ({
  content: [{ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: finish("tool-calls"),
  usage: usage(10, 5),
  warnings: [],
});
const text = (answer: string): LanguageModelV3GenerateResult => ({ content: [{ type: "text", text: answer }], finishReason: finish("stop"), usage: usage(20, 3), warnings: [] });

/** What the model was sent last: the AI SDK prompt, as role → text of each part. */
function lastPrompt(calls: LanguageModelV3CallOptions[]) {
  return calls.at(-1)!.prompt.map((m) => ({
    role: m.role,
    parts: typeof m.content === "string" ? [m.content] : m.content.map((p) => ("text" in p ? p.text : p.type === "tool-result" ? p.output : p.type === "tool-call" ? `${p.toolName}(${JSON.stringify(p.input)})` : p.type)),
  }));
}

describe("aiSdkModel with the AI SDK's mock language model", () => {
  it("runs an agent with tools: calls come back as the run's tool calls, results go back as tool results, usage adds up", async () => {
    const mock = new MockLanguageModelV3({ doGenerate: [toolCall("c1", "add", { a: 2, b: 3 }), text("five")] });
    const { agents } = await h.worker([weatherAgent], { model: aiSdkModel(mock) });
    const result = await completed(agents.run(weatherAgent, { prompt: "2+3?", runId: uid("mock-run") }));
    expect(result).toMatchObject({ text: "five", turnsUsed: 2, usage: { promptTokens: 30, completionTokens: 8, totalTokens: 38 } });
    expect(lastPrompt(mock.doGenerateCalls)).toEqual([
      { role: "system", parts: ["You answer weather questions using tools."] },
      { role: "user", parts: ["2+3?"] },
      { role: "assistant", parts: ['add({"a":2,"b":3})'] },
      { role: "tool", parts: [{ type: "text", value: "5" }] },
    ]);
    // The tools were offered with their JSON Schemas, and nothing was executed by the SDK.
    expect(mock.doGenerateCalls[0]!.tools?.map((t) => t.name)).toEqual(["getWeather", "add"]);
  });

  it("defers and resumes: the approval lands as the deferred call's result in the next prompt", async () => {
    const mock = new MockLanguageModelV3({
      doGenerate: [toolCall("c1", "askApproval", { amount: 7 }), toolCall("c2", "sendPayout", { amount: 7 }), text("paid 7")],
    });
    const { agents } = await h.worker([payoutAgent], { model: aiSdkModel(mock), deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
    const runId = uid("mock-defer");
    expect(await agents.run(payoutAgent, { prompt: "pay 7", runId })).toMatchObject({ status: "deferred" });
    const resumed = await agents.resume({ token: linkFor(runId).token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "paid 7" } });
    expect(payouts.filter((p) => p.runId === runId).map((p) => p.amount)).toEqual([7]);
    expect(lastPrompt(mock.doGenerateCalls).slice(2, 4)).toEqual([
      { role: "assistant", parts: ['askApproval({"amount":7})'] },
      { role: "tool", parts: [{ type: "text", value: '{"approved":true}' }] },
    ]);
  });

  it("streams a thread's answer: the deltas reach readers before the whole message", async () => {
    const pieces = ["Durable ", "agents ", "stream ", "too."];
    const stream: LanguageModelV3StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      ...pieces.map((delta): LanguageModelV3StreamPart => ({ type: "text-delta", id: "t", delta })),
      { type: "text-end", id: "t" },
      { type: "finish", finishReason: finish("stop"), usage: usage(12, 4) },
    ];
    const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: simulateReadableStream({ chunks: stream, initialDelayInMs: 300, chunkDelayInMs: 250 }) }) });
    const rig = await threadRig(h, [chatAgent], { overrides: { model: aiSdkModel(mock) } });
    const { threadId } = await rig.threads.createThread({ prompt: "say it" });
    const seen: StreamUpdate[] = [];
    for await (const batch of rig.threads.followUpdates({ threadId, pollInterval: 50, until: (b) => b.status === "completed" })) {
      seen.push(...batch.updates);
    }
    const deltas = seen.filter((u) => u.type === "text-delta");
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    const final = seen.find((u) => u.type === "message" && u.message.role === "assistant");
    expect(final).toMatchObject({ message: { content: pieces.join("") } });
    const { messages } = await rig.threads.listMessages({ threadId });
    expect(messages.at(-1)).toMatchObject({ role: "assistant", content: "Durable agents stream too." });
  });
});

describe("aiSdkModel over HTTP with @ai-sdk/openai-compatible", () => {
  const provider = () => createOpenAICompatible({ name: "scripted", baseURL: h.model.url, apiKey: "scripted" });

  it("sends the agent's settings and transformed messages; the transcript keeps what happened", async () => {
    const tuned = defineAgent({
      id: "tuned",
      model: "scripted-model",
      system: "You add numbers.",
      tools: weatherAgent.tools,
      temperature: 0.2,
      maxOutputTokens: 64,
      stop: ["END"],
      // Redacts before sending: the model never sees the account number, the transcript keeps it.
      transformMessages: (messages) => messages.map((m) => (m.role === "user" ? { ...m, content: m.content.replace(/account \d+/g, "account [account]") } : m)),
    });
    const runId = uid("compat");
    const prompt = `${runId} add 1 and 2 for account 12345678`;
    const redacted = `${runId} add 1 and 2 for account [account]`;
    h.model.script(redacted, [
      {
        check: (req) => {
          expect(req.model).toBe("scripted-model");
          expect(req.params).toMatchObject({ temperature: 0.2, max_tokens: 64, stop: ["END"] });
        },
        toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }],
      },
      { check: (req) => expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: "3" }), text: "3" },
    ]);
    const { agents } = await h.worker([tuned], { model: aiSdkModel(provider()) });
    await expect(completed(agents.run(tuned, { prompt, runId }))).resolves.toMatchObject({ text: "3" });
    const { messages } = await agents.listMessages({ runId });
    expect((messages as ChatMessage[])[0]).toEqual({ role: "user", content: prompt });
    h.model.assertNoFailures();
  });

  it("aborts the provider's request when the run is cancelled", async () => {
    const { agents } = await h.worker([weatherAgent], { model: aiSdkModel(provider()) });
    const runId = uid("compat-cancel");
    const hold = h.model.hold();
    h.model.script(runId, [{ hold, text: "too late" }]);
    await agents.start(weatherAgent, { prompt: runId, runId });
    await hold.reached;
    await agents.cancel({ runId });
    await expect(agents.result({ runId })).rejects.toMatchObject({ code: "AI1005" });
    await vi.waitFor(() => expect(h.model.aborted.map((a) => a.conversation)).toContain(runId), { timeout: 10_000, interval: 50 });
  });

  it("asks for structured output when the agent declares one, and an answer that does not fit is corrected, not thrown", async () => {
    const typed = defineAgent({ id: "compat-typed", model: "scripted-model", system: "You answer in JSON.", output: z.object({ city: z.string(), celsius: z.number() }) });
    const structured = createOpenAICompatible({ name: "scripted", baseURL: h.model.url, apiKey: "scripted", supportsStructuredOutputs: true });
    const { agents } = await h.worker([typed], { model: aiSdkModel(structured) });
    const runId = uid("compat-typed");
    h.model.script(runId, [{ text: "It is warm in Lisbon." }, { text: JSON.stringify({ city: "Lisbon", celsius: 24 }) }]);
    await expect(agents.run(typed, { prompt: runId, runId })).resolves.toMatchObject({ status: "completed", output: { city: "Lisbon", celsius: 24 } });
    const [first, second] = h.model.requests.filter((r) => r.conversation === runId);
    expect(first!.params["response_format"]).toMatchObject({ type: "json_schema", json_schema: { name: "compat-typed_output", schema: { properties: { city: {}, celsius: {} } } } });
    expect(second!.messages.at(-1)!.content).toMatch(/not JSON/);
  });

  it("classifies provider errors as openaiModel does: 429 retried, 400 refused with AI1003, an overflow AI1009", async () => {
    const { agents } = await h.worker([weatherAgent], { model: aiSdkModel(provider()) });
    const throttled = uid("throttled");
    h.model.script(throttled, [{ errors: [{ status: 429, retryAfterSeconds: 0 }], text: "after a pause" }]);
    await expect(completed(agents.run(weatherAgent, { prompt: throttled, runId: throttled }))).resolves.toMatchObject({ text: "after a pause" });

    const refused = uid("refused");
    h.model.script(refused, [{ errors: [400] }]);
    await expect(agents.run(weatherAgent, { prompt: refused, runId: refused })).rejects.toMatchObject({ code: "AI1003" });
    expect(h.model.requests.filter((r) => r.conversation === refused)).toHaveLength(1);

    const overflow = uid("overflow");
    h.model.script(overflow, [{ errors: ["context_length_exceeded"] }]);
    await expect(agents.run(weatherAgent, { prompt: overflow, runId: overflow })).rejects.toMatchObject({ code: "AI1009" });
  });
});

describe("agent model settings", () => {
  it("reach the provider through openaiModel too, with providerOptions.openai merged into the request", async () => {
    const tuned = defineAgent({ id: "tuned-openai", model: "gpt-4.1-mini", system: "Be brief.", temperature: 0, maxOutputTokens: 16, stop: ["\n\n"], providerOptions: { openai: { seed: 7 } } });
    const runId = uid("tuned");
    h.model.script(runId, [{ check: (req) => expect(req.params).toMatchObject({ temperature: 0, max_tokens: 16, stop: ["\n\n"], seed: 7 }), text: "ok" }]);
    const { agents } = await h.worker([tuned]);
    await expect(completed(agents.run(tuned, { prompt: runId, runId }))).resolves.toMatchObject({ text: "ok" });
    h.model.assertNoFailures();
  });

  it("refuses settings a provider could not take with AI1001", () => {
    const base = { id: "bad", model: "m", system: "s" };
    expect(() => defineAgent({ ...base, temperature: -1 })).toThrow(/AI1001.*temperature/);
    expect(() => defineAgent({ ...base, temperature: Number.NaN })).toThrow(/AI1001.*temperature/);
    expect(() => defineAgent({ ...base, maxOutputTokens: 1.5 })).toThrow(/AI1001.*maxOutputTokens/);
    expect(() => defineAgent({ ...base, stop: ["ok", ""] })).toThrow(/AI1001.*stop/);
    expect(() => defineAgent({ ...base, providerOptions: { openai: { at: new Date() } } as never })).toThrow(/AI1001.*providerOptions/);
    expect(() => defineAgent({ ...base, transformMessages: "trim" as never })).toThrow(/AI1001.*transformMessages/);
  });

  it("fails the call with AI1001, not a retry loop, when transformMessages returns something that is not messages", async () => {
    const broken = defineAgent({ id: "broken-transform", model: "m", system: "s", transformMessages: () => [] });
    const { agents } = await h.worker([broken]);
    const runId = uid("broken");
    await expect(agents.run(broken, { prompt: runId, runId })).rejects.toMatchObject({ code: "AI1001" });
    expect(h.model.requests.filter((r) => r.conversation === runId)).toHaveLength(0);
  });
});
