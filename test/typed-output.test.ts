/**
 * Typed final output: `defineAgent({ output })` asks the provider for JSON matching the
 * schema, validates the answer on the worker, sends an answer that does not fit back to the
 * model with what was wrong (bounded by `outputRetries`, then AI1071), and hands the parsed
 * value to the caller as `output`, typed from the schema, across a deferral too.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient, type ApprovalRequestInfo } from "../src/index.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

const Invoice = z.object({ invoice: z.string().regex(/^INV-\d+$/), amount: z.number().positive(), paid: z.boolean().default(false) });

const notified: ApprovalRequestInfo[] = [];
const pay = defineTool({
  name: "pay",
  description: "Pay an invoice",
  input: z.object({ invoice: z.string() }),
  needsApproval: true,
  approval: { notify: (r) => void notified.push(r) },
  handler: ({ invoice }) => `paid ${invoice}`,
});

const clerk = defineAgent({ id: "typed-clerk", model: "gpt-4.1-mini", system: "You read invoices.", tools: [pay], output: Invoice, outputRetries: 2, maxTurns: 6 });
const plain = defineAgent({ id: "typed-plain", model: "gpt-4.1-mini", system: "You answer.", maxTurns: 2 });
const step = defineTool({ name: "step", description: "Take a step", input: z.object({ n: z.number() }), handler: ({ n }) => `step ${n}` });
/** Walks long enough to continue as new several times, then answers typed; its model has a fallback. */
const walker = defineAgent({ id: "typed-walker", model: "walker-model", fallbackModels: ["walker-backup"], system: "You walk.", tools: [step], output: z.object({ steps: z.number() }), maxTurns: 30 });

let h: Harness;
let agents: AgentClient;

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([clerk, plain, walker], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
});
afterAll(() => h?.close());

const requestsOf = (conversation: string) => h.model.requests.filter((r) => r.conversation === conversation);

describe("typed output", () => {
  it("asks for the schema's JSON and returns the parsed value, defaults applied, typed from the schema", async () => {
    const runId = uid("typed");
    h.model.script(runId, [{ text: JSON.stringify({ invoice: "INV-7", amount: 12.5 }) }]);
    const result = await agents.run(clerk, { prompt: runId, runId });
    expect(result).toMatchObject({ status: "completed", output: { invoice: "INV-7", amount: 12.5, paid: false } });
    if (result.status !== "completed") throw new Error("not completed");
    expectTypeOf(result.output).toEqualTypeOf<{ invoice: string; amount: number; paid: boolean } | undefined>();
    const format = requestsOf(runId)[0]!.params["response_format"] as { type: string; json_schema: { name: string; schema: { properties: object } } };
    expect(format).toMatchObject({ type: "json_schema", json_schema: { name: "typed-clerk_output" } });
    expect(Object.keys(format.json_schema.schema.properties)).toEqual(["invoice", "amount", "paid"]);
    // The same value reading the result later.
    await expect(agents.result<z.output<typeof Invoice>>({ runId })).resolves.toMatchObject({ output: { invoice: "INV-7", paid: false } });
  });

  it("sends an answer that does not fit back with what was wrong, and counts every answer's tokens; the transcript keeps only the answer that fitted", async () => {
    const runId = uid("fixed");
    h.model.script(runId, [
      { text: "Sure! The invoice is INV-9.", usage: { promptTokens: 10, completionTokens: 5 } },
      { text: JSON.stringify({ invoice: "9", amount: -1 }), usage: { promptTokens: 20, completionTokens: 6 } },
      { text: "```json\n" + JSON.stringify({ invoice: "INV-9", amount: 3, paid: true }) + "\n```", usage: { promptTokens: 30, completionTokens: 7 } },
    ]);
    const result = await agents.run(clerk, { prompt: runId, runId });
    expect(result).toMatchObject({ status: "completed", output: { invoice: "INV-9", amount: 3, paid: true }, turnsUsed: 1, usage: { promptTokens: 60, completionTokens: 18 } });
    const [, second, third] = requestsOf(runId);
    expect(second!.messages.at(-1)!.content).toMatch(/not JSON/);
    expect(third!.messages.at(-1)!.content).toMatch(/invoice[\s\S]*amount/);
    const page = await agents.listMessages({ runId });
    expect(page.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("takes a fenced json block after a line of prose as the answer, as docs/agents.md says, without sending it back", async () => {
    const runId = uid("prose-fence");
    h.model.script(runId, [{ text: "Here is the invoice you asked for:\n```json\n" + JSON.stringify({ invoice: "INV-12", amount: 5 }) + "\n```" }]);
    const result = await agents.run(clerk, { prompt: runId, runId });
    expect(result).toMatchObject({ status: "completed", output: { invoice: "INV-12", amount: 5, paid: false } });
    expect(requestsOf(runId)).toHaveLength(1);
  });

  it("fails with AI1071 once the corrections run out, naming the last problem; the model was asked outputRetries + 1 times", async () => {
    const runId = uid("never fits");
    h.model.respond(runId, () => ({ text: "no JSON for you" }));
    await agents.start(clerk, { prompt: runId, runId });
    await expect(agents.result({ runId })).rejects.toMatchObject({ code: "AI1071", message: expect.stringMatching(/answered 3 time\(s\)[\s\S]*not JSON/) });
    expect(requestsOf(runId)).toHaveLength(3);
  });

  it("lets tool calls through unchecked, and holds the answer after a resume to the schema", async () => {
    const runId = uid("typed parked");
    h.model.script(runId, [
      { toolCalls: [{ id: "call_pay", name: "pay", arguments: { invoice: "INV-4" } }] },
      { text: JSON.stringify({ invoice: "INV-4", amount: 40, paid: true }) },
    ]);
    expect(await agents.run(clerk, { prompt: runId, runId })).toMatchObject({ status: "deferred" });
    await vi.waitFor(() => expect(notified.some((n) => n.runId === runId)).toBe(true), { timeout: 20_000, interval: 20 });
    const token = notified.find((n) => n.runId === runId)!.token;
    const resumed = await agents.resume({ token, payload: { decisions: [{ toolCallId: "call_pay", approved: true }] } });
    expect(resumed).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { output: { invoice: "INV-4", amount: 40, paid: true } } } });
    expect(await agents.result({ runId })).toMatchObject({ output: { invoice: "INV-4", paid: true } });
  });

  it("an agent without output: no response_format, no output, answers as text", async () => {
    const runId = uid("untyped");
    h.model.script(runId, [{ text: "just text" }]);
    const result = await agents.run(plain, { prompt: runId, runId });
    expect(result).toEqual(expect.objectContaining({ status: "completed", text: "just text" }));
    expect(result).not.toHaveProperty("output");
    expect(requestsOf(runId)[0]!.params).not.toHaveProperty("response_format");
  });

  it("holds a thread's answers to its agent's output too: a fitting answer is stored as its JSON, one that never fits fails the turn with AI1071", async () => {
    const summarizer = defineAgent({ id: "typed-thread", model: "gpt-4.1-mini", system: "You summarise.", output: z.object({ summary: z.string() }), outputRetries: 1 });
    const { agents: chat } = await h.worker([summarizer], { client: { threads: { agent: summarizer } } });
    const good = uid("typed thread");
    h.model.script(good, [{ text: "a summary" }, { text: JSON.stringify({ summary: "short" }) }]);
    const { threadId } = await chat.threads.createThread({ prompt: good });
    expect(await chat.threads.settled({ threadId })).toMatchObject({ status: "completed" });
    const { messages } = await chat.threads.listMessages({ threadId });
    expect(messages.map((m) => [m.role, m.content])).toEqual([["user", good], ["assistant", JSON.stringify({ summary: "short" })]]);

    const bad = uid("typed thread bad");
    h.model.respond(bad, () => ({ text: "never JSON" }));
    const other = await chat.threads.createThread({ prompt: bad });
    expect(await chat.threads.settled({ threadId: other.threadId })).toMatchObject({ status: "failed", lastError: { code: "AI1071" } });
    expect(requestsOf(bad)).toHaveLength(2);
  });

  it("carries through continue-as-new: the typed answer at the end, and the fallback's usage from before it", async () => {
    const runId = uid("typed walk");
    const STEPS = 20;
    h.model.respond(runId, (req, turn) => {
      // The first call's model is out: its fallback answers, and its tokens must survive the continues-as-new.
      if (turn === 0 && req.model === "walker-model") return { errors: Object.assign([], { [req.attempt]: 503 }), text: "never" };
      if (turn < STEPS) return { toolCalls: [{ name: "step", arguments: { n: turn } }], usage: { promptTokens: 1, completionTokens: 1 } };
      return { text: JSON.stringify({ steps: STEPS }), usage: { promptTokens: 1, completionTokens: 1 } };
    });
    const result = await agents.run(walker, { prompt: runId, runId, maxHistoryEvents: 100 });
    expect(result).toMatchObject({ status: "completed", output: { steps: STEPS }, turnsUsed: STEPS + 1 });
    expect(result.status === "completed" && result.usage).toEqual({ promptTokens: STEPS + 1, completionTokens: STEPS + 1, totalTokens: 2 * (STEPS + 1), fallback: { "walker-backup": { promptTokens: 1, completionTokens: 1, totalTokens: 2 } } });
    // The run that answered is not the first: it continued as new from another.
    const [started] = (await agents.workflowHandle(runId).fetchHistory()).events ?? [];
    expect(started?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
  });
});
