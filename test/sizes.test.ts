/**
 * Size guards: nothing a client sends, a tool returns or a model answers may reach Temporal
 * over its 2 MB payload limit (the server would terminate the workflow). Over the SDK's own
 * limit it is refused with AI1016 and nothing changes; a tool result is truncated for the
 * model; a run's transcript is read a page at a time, however long.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  AgentClient,
  defineAgent,
  defineTool,
  jsonBytes,
  MAX_PAGE_BYTES,
  MAX_PAYLOAD_BYTES,
  MAX_PRINCIPAL_BYTES,
  type ChatMessage,
  type ThreadsClient,
} from "../src/index.js";
import { runMessagesQuery } from "../src/workflow.js";
import { askApproval, linkFor, payoutAgent } from "./fixtures/approvals.js";
import { completed, SECRET, startHarness, uid, type Harness } from "./harness.js";
import { answerTokenOf, chatAgent, seen, threadRig } from "./thread-support.js";

// Enough turns of results big enough that the transcript outgrows one payload (2 MB). Every
// request carries the whole transcript, so the work grows with turns × bytes: fewer, larger
// results reach the same size for a third of the turns' cost.
const LONG_TURNS = 20;
const page128k = (i: number) => `page ${i}: ${"x".repeat(131_072)}`;
const DUMP_BYTES = 3_000_000;

const fetchPage = defineTool({
  name: "fetchPage",
  description: "Fetches a 128 KB page",
  input: z.object({ i: z.number() }),
  handler: ({ i }) => page128k(i),
});
const dump = defineTool({
  name: "dump",
  description: "Returns 3 MB",
  input: z.object({}),
  handler: () => "y".repeat(DUMP_BYTES),
});
const smallDump = defineTool({
  name: "smallDump",
  description: "Returns 3 MB to a tool that takes 2 KB",
  input: z.object({}),
  maxResultBytes: 2048,
  handler: () => "é".repeat(DUMP_BYTES / 2),
});
const bulky = defineTool({
  name: "bulky",
  description: "Returns 250 KB",
  input: z.object({ i: z.number() }),
  handler: ({ i }) => `${i}:${String(i % 10).repeat(250_000)}`,
});
const bigMeta = defineTool({
  name: "bigMeta",
  description: "Defers with 2 MB of meta, then answers plainly",
  input: z.object({}),
  handler: (_input, ctx) => ctx.defer({ meta: { blob: "m".repeat(2_000_000) } }),
});
const longAgent = defineAgent({
  id: "long",
  model: "gpt-4.1-mini",
  system: "You read many pages.",
  tools: [fetchPage, dump, smallDump, bulky, bigMeta],
  maxTurns: LONG_TURNS + 10,
});
// Reads 2 MB, then asks for approval: a parked run whose transcript is larger than one payload.
const longApproval = defineAgent({ id: "long-approval", model: "gpt-4.1-mini", system: "You read, then ask.", tools: [bulky, askApproval], maxTurns: 4 });
const sizedChat = defineAgent({ id: "sized-chat", model: chatAgent.model, system: "You chat and use tools.", tools: [...chatAgent.tools, dump], maxTurns: 4 });

let h: Harness;
let agents: AgentClient;
let hooked: AgentClient;
let threads: ThreadsClient;

beforeAll(async () => {
  h = await startHarness();
  let taskQueue: string;
  ({ agents, taskQueue } = await h.worker([longAgent, payoutAgent, longApproval], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
  // The same queue through a client with an authorize hook: its resumes read the deferral record first.
  // Its reads move multi-megabyte answers: a loaded machine may take longer than the default 5 s to answer one.
  hooked = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue, deferral: { secret: SECRET }, authorize: () => true, queryTimeout: "60s" });
  ({ threads } = await threadRig(h, [sizedChat]));
}, 300_000);
afterAll(() => h?.close());

/** Every message of a run, read page by page; the pages themselves for their sizes. */
async function allMessages(runId: string, limit = 1000) {
  const pages: ChatMessage[][] = [];
  let cursor: string | undefined;
  let total = -1;
  do {
    const page = await agents.listMessages({ runId, limit, ...(cursor ? { cursor } : {}) });
    pages.push(page.messages);
    total = page.total;
    cursor = page.cursor;
  } while (cursor);
  const messages = pages.flat();
  expect(messages).toHaveLength(total);
  return { messages, pages };
}

const code = (err: unknown) => (err as { code?: string }).code;
const rejection = async (promise: Promise<unknown>) => promise.then(() => undefined, (err: unknown) => err);
const toolContents = (messages: ChatMessage[]) => messages.filter((m) => m.role === "tool").map((m) => m.content);

describe("a long run", () => {
  it(`of ${LONG_TURNS} turns with 128 KB tool results completes, and its transcript pages to the end`, async () => {
    const runId = uid("long-run");
    h.model.respond(runId, (_req, turn) => {
      // Each request carries the whole transcript (up to 2 MB): the server need not keep them.
      h.model.requests.splice(0);
      return turn < LONG_TURNS
        ? { toolCalls: [{ name: "fetchPage", arguments: { i: turn } }], usage: { promptTokens: 1, completionTokens: 1 } }
        : { text: `read ${LONG_TURNS} pages`, usage: { promptTokens: 1, completionTokens: 1 } };
    });
    const result = await completed(agents.run(longAgent, { prompt: runId, runId }));
    const messageCount = 1 + 2 * LONG_TURNS + 1;
    expect(result).toEqual({
      status: "completed",
      text: `read ${LONG_TURNS} pages`,
      turnsUsed: LONG_TURNS + 1,
      usage: { promptTokens: LONG_TURNS + 1, completionTokens: LONG_TURNS + 1, totalTokens: 2 * (LONG_TURNS + 1) },
      messageCount,
    });

    // A closed run's pages are read by a worker replaying it (how long that takes: `npm run bench -- large-results`).
    const { messages, pages } = await allMessages(runId);
    // Over 2 MB in all, so cut by bytes into several pages, each well under a payload.
    expect(jsonBytes(messages)).toBeGreaterThan(2 * 1024 * 1024);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const page of pages) expect(jsonBytes(page)).toBeLessThanOrEqual(MAX_PAGE_BYTES);
    expect(messages[0]).toEqual({ role: "user", content: runId });
    expect(messages[1]).toMatchObject({ role: "assistant", tool_calls: [{ function: { name: "fetchPage", arguments: JSON.stringify({ i: 0 }) } }] });
    expect(messages[2]).toEqual({ role: "tool", tool_call_id: "call_0_0", content: page128k(0) });
    expect(messages.at(-2)).toEqual({ role: "tool", tool_call_id: `call_${LONG_TURNS - 1}_0`, content: page128k(LONG_TURNS - 1) });
    expect(messages.at(-1)).toMatchObject({ role: "assistant", content: `read ${LONG_TURNS} pages` });
    expect(toolContents(messages)).toEqual(Array.from({ length: LONG_TURNS }, (_, i) => page128k(i)));
    // Small pages page the same transcript.
    const first = await agents.listMessages({ runId, limit: 3 });
    expect(first).toEqual({ messages: messages.slice(0, 3), total: messageCount, cursor: "3" });
    expect((await agents.listMessages({ runId, cursor: String(messageCount - 1) })).messages).toEqual([messages.at(-1)]);

    // state() shows only the newest messages, within its bound (20 messages, 256 KiB): here
    // the bytes bind, so it shows as many as fit.
    const recentBound = 256 * 1024;
    const state = await agents.state({ runId });
    expect(state).toMatchObject({ status: "completed", messageCount, turnsUsed: LONG_TURNS + 1 });
    const recent = state.recentMessages;
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.length).toBeLessThan(20);
    expect(recent).toEqual(messages.slice(-recent.length));
    expect(jsonBytes(recent)).toBeLessThanOrEqual(recentBound);
    expect(jsonBytes(messages.slice(-(recent.length + 1)))).toBeGreaterThan(recentBound);
    expect("messages" in state).toBe(false);

    h.model.assertNoFailures();
  }, 900_000);

  it("parks with a transcript larger than one payload, and still acknowledges, shows its record and resumes through an authorize hook", async () => {
    const runId = uid("long-parked");
    h.model.script(runId, [
      { toolCalls: Array.from({ length: 9 }, (_, i) => ({ name: "bulky", arguments: { i } })) },
      { toolCalls: [{ name: "askApproval", arguments: { amount: 77 } }] },
      { text: "approved after reading" },
    ]);
    expect(await agents.run(longApproval, { prompt: runId, runId })).toMatchObject({ status: "deferred" });
    const { deferralId, token } = linkFor(runId);
    // The record read leaves the 2.25 MB transcript out, but keeps what a person approving needs.
    const record = await hooked.deferrals.getRecord({ deferralId });
    expect(record).toMatchObject({ id: deferralId, status: "deferred", toolName: "askApproval", toolArguments: '{"amount":77}', meta: { amount: 77 } });
    expect(record).not.toHaveProperty("stepState");
    // The whole view (with the transcript) cannot travel: a typed refusal that says where to read instead.
    await expect(hooked.deferrals.get({ deferralId })).rejects.toMatchObject({ code: "AI1016", message: expect.stringContaining("deferrals.getRecord()") });
    await expect(hooked.handle(runId).settled()).resolves.toMatchObject({ status: "deferred", deferralId });
    const resumed = await hooked.resume({ token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "approved after reading" } });
    h.model.assertNoFailures();
  });

  it("reads a transcript larger than one payload a page at a time, and sends a batch's big results by query", async () => {
    const runId = uid("bulky-run");
    const batch = (turn: number) => Array.from({ length: 8 }, (_, k) => ({ name: "bulky", arguments: { i: turn * 8 + k } }));
    const expected = Array.from({ length: 16 }, (_, i) => `${i}:${String(i % 10).repeat(250_000)}`);
    h.model.script(runId, [
      { toolCalls: batch(0) },
      {
        // 2 MB of results in one batch: never one model-call input; the worker read them by query.
        check: (req) => expect(toolContents(req.messages)).toEqual(expected.slice(0, 8)),
        toolCalls: batch(1),
      },
      {
        check: (req) => {
          expect(req.messages).toHaveLength(1 + 1 + 1 + 8 + 1 + 8);
          expect(toolContents(req.messages)).toEqual(expected);
        },
        text: "read them all",
      },
    ]);
    const result = await completed(agents.run(longAgent, { prompt: runId, runId }));
    expect(result).toMatchObject({ text: "read them all", messageCount: 1 + 1 + 8 + 1 + 8 + 1 });
    const { messages, pages } = await allMessages(runId);
    expect(toolContents(messages)).toEqual(expected);
    expect(pages.length).toBeGreaterThanOrEqual(4);
    // No model call's input carried the batch: each stays far under a payload.
    const history = await agents.workflowHandle(runId).fetchHistory();
    const inputs = (history.events ?? []).flatMap((e) => {
      const attributes = e.activityTaskScheduledEventAttributes;
      return attributes?.activityType?.name === "callAgentModel" ? [attributes.input?.payloads?.[0]?.data?.length ?? 0] : [];
    });
    expect(inputs).toHaveLength(3);
    for (const bytes of inputs) expect(bytes).toBeLessThan(MAX_PAGE_BYTES);
    h.model.assertNoFailures();
  });
});

describe("paging refuses what it cannot read", () => {
  it("refuses a bad cursor, limit or raw page request with a typed code, and a tool limit out of range", async () => {
    const runId = uid("paged");
    h.model.script(runId, [{ text: "short" }]);
    await completed(agents.run(longAgent, { prompt: runId, runId }));
    for (const options of [{ cursor: "abc" }, { cursor: "-1" }, { cursor: "__proto__" }, { limit: 0 }, { limit: 1001 }, { limit: 2.5 }]) {
      expect(code(await rejection(agents.listMessages({ runId, ...options }))), JSON.stringify(options)).toBe("AI1001");
    }
    expect(code(await rejection(agents.listMessages({ runId: uid("nobody") })))).toBe("AI1010");
    // Sent around the client, a malformed page request is refused by the workflow: AI1012, nothing read.
    const handle = agents.workflowHandle(runId);
    for (const request of [null, { offset: -1, limit: 5 }, { offset: 0, limit: "5" }, { offset: 0, limit: 5, epoch: 1.5 }]) {
      const err = await rejection(handle.query(runMessagesQuery, request as never));
      expect((err as Error).message, JSON.stringify(request)).toMatch(/^\[AI1012\]/);
    }
    // A page past the end is empty; a huge limit is clamped to a page.
    expect(await handle.query(runMessagesQuery, { offset: 99, limit: 5 })).toEqual({ messages: [], total: 2 });
    expect((await handle.query(runMessagesQuery, { offset: 0, limit: 1e9 })).messages).toHaveLength(2);
    for (const maxResultBytes of [0, 1023, MAX_PAYLOAD_BYTES + 1, 5000.5, Number.NaN]) {
      expect(code(await rejection(Promise.resolve().then(() => defineTool({ ...fetchPage, maxResultBytes }))))).toBe("AI1001");
    }
  });
});

describe("too large to send", () => {
  it("refuses an oversized prompt or principal with AI1016 and starts no run; hostile ones get a typed code at once", async () => {
    const runId = uid("huge-prompt");
    const err = await rejection(agents.run(longAgent, { prompt: "x".repeat(MAX_PAYLOAD_BYTES), runId }));
    expect(err).toMatchObject({ code: "AI1016", fields: { what: "The run's prompt", limitBytes: MAX_PAYLOAD_BYTES } });
    expect((err as { fields: { bytes: number } }).fields.bytes).toBeGreaterThan(MAX_PAYLOAD_BYTES);
    expect((err as Error).message).toMatch(/^\[AI1016\] The run's prompt is \d+ bytes of JSON, over the 1572864-byte limit.*Nothing was sent or changed/);
    expect(code(await rejection(agents.state({ runId })))).toBe("AI1010");

    const principal = { id: "mallory", notes: "n".repeat(MAX_PRINCIPAL_BYTES) };
    expect(await rejection(agents.run(longAgent, { prompt: "hi", runId, principal }))).toMatchObject({ code: "AI1016", fields: { limitBytes: MAX_PRINCIPAL_BYTES } });
    // Characters that JSON escapes weigh what their escapes weigh: 1 MB of quotes is 2 MB.
    expect(code(await rejection(agents.run(longAgent, { prompt: '"'.repeat(1_000_000), runId })))).toBe("AI1016");
    // A 50 MB prompt is refused without being copied, and a principal nested 100,000 deep without a stack overflow.
    expect(code(await rejection(agents.run(longAgent, { prompt: "z".repeat(50_000_000), runId })))).toBe("AI1016");
    let deep: unknown = { id: "x" };
    for (let i = 0; i < 100_000; i++) deep = { id: "x", inner: deep };
    expect(code(await rejection(agents.run(longAgent, { prompt: "hi", runId, principal: deep as never })))).toBe("AI1001");
    expect(code(await rejection(agents.state({ runId })))).toBe("AI1010");
  });

  it("refuses an oversized resume payload with AI1016; the token is not spent and the deferral resumes", async () => {
    const runId = uid("huge-resume");
    h.model.script(runId, [
      { toolCalls: [{ name: "askApproval", arguments: { amount: 5 } }] },
      { check: (req) => expect(JSON.parse(req.messages.at(-1)!.content as string)).toEqual({ approved: true }), text: "paid" },
    ]);
    const ack = await agents.run(payoutAgent, { prompt: runId, runId });
    expect(ack.status).toBe("deferred");
    const { token, deferralId } = linkFor(runId);
    const huge = await rejection(agents.resume({ token, payload: { approved: true, note: "n".repeat(MAX_PAYLOAD_BYTES) } }));
    expect(huge).toMatchObject({ code: "AI1016", fields: { what: "The resume payload" } });
    expect(code(await rejection(agents.resume({ token, payload: { approved: true }, principal: { id: "boss", cv: "c".repeat(MAX_PRINCIPAL_BYTES) } })))).toBe("AI1016");
    expect(await agents.deferrals.get({ deferralId })).toMatchObject({ status: "deferred" });
    expect(await agents.resume({ token, payload: { approved: true } })).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
  });

  it("refuses an oversized thread message, seeded transcript or async result with AI1016; the thread is unchanged", async () => {
    const threadId = uid("sized-thread");
    h.model.script(threadId, [{ toolCalls: [{ name: "askHuman", arguments: { question: "ok?" } }] }, { text: "thanks" }]);
    await threads.createThread({ threadId, prompt: threadId });
    await vi.waitFor(async () => expect((await threads.state({ threadId })).toolCalls.some((c) => c.state === "waiting")).toBe(true), { timeout: 20_000, interval: 25 });
    const before = await threads.listMessages({ threadId });
    const big = "b".repeat(MAX_PAYLOAD_BYTES);
    expect(await rejection(threads.sendMessage({ threadId, prompt: big }))).toMatchObject({ code: "AI1016", fields: { what: "The message" } });
    expect(code(await rejection(threads.addMessage({ threadId, message: { role: "user", content: big } })))).toBe("AI1016");
    expect(code(await rejection(threads.resumeThread({ threadId, prompt: big })))).toBe("AI1016");
    const toolCallId = seen.find((s) => s.tool === "askHuman" && s.threadId === threadId)!.toolCallId;
    const answerToken = answerTokenOf(threadId, toolCallId);
    expect(await rejection(threads.addToolResult({ threadId, toolCallId, answerToken, result: { text: big } }))).toMatchObject({
      code: "AI1016",
      fields: { what: "The tool result" },
    });
    expect(code(await rejection(threads.addToolError({ threadId, toolCallId, answerToken, error: big })))).toBe("AI1016");
    expect(await threads.listMessages({ threadId })).toEqual(before);
    expect((await threads.state({ threadId })).queued).toEqual([]);
    // Still waiting for its answer, which lands as usual.
    expect(await threads.addToolResult({ threadId, toolCallId, answerToken, result: { approved: true } })).toMatchObject({ status: "accepted" });
    await threads.settled({ threadId });
    expect((await threads.listMessages({ threadId })).messages.at(-1)).toMatchObject({ role: "assistant", content: "thanks" });

    const seededId = uid("seeded");
    const seeded: ChatMessage[] = [{ role: "user", content: big }];
    expect(code(await rejection(threads.createThread({ threadId: seededId, messages: seeded })))).toBe("AI1016");
    expect(code(await rejection(threads.state({ threadId: seededId })))).toBe("AI1020");
    h.model.assertNoFailures();
  });
});

describe("too large to record", () => {
  it("gives the model a 3 MB tool result truncated, with a note, and the run completes", async () => {
    const runId = uid("dump-run");
    const contents: string[] = [];
    h.model.script(runId, [
      { toolCalls: [{ name: "dump", arguments: {} }, { name: "smallDump", arguments: {} }] },
      { check: (req) => void contents.push(...toolContents(req.messages)), text: "skimmed it" },
    ]);
    const result = await completed(agents.run(longAgent, { prompt: runId, runId }));
    expect(result.text).toBe("skimmed it");
    expect(contents).toHaveLength(2);
    const [big, small] = contents as [string, string];
    expect(jsonBytes(big) - 2).toBeLessThanOrEqual(262_144);
    expect(big.startsWith("y".repeat(200_000))).toBe(true);
    expect(big).toMatch(new RegExp(`\\[Truncated by durable-agents: this result was ${DUMP_BYTES} bytes, over the tool's 262144-byte limit; only its first \\d+ bytes are above\\.`));
    // The tool's own limit, measured in bytes: é is two.
    expect(jsonBytes(small) - 2).toBeLessThanOrEqual(2048);
    expect(small).toMatch(/^é+\n\n\[Truncated by durable-agents: this result was 3000000 bytes, over the tool's 2048-byte limit/);
    expect(toolContents((await agents.listMessages({ runId })).messages)).toEqual(contents);
    h.model.assertNoFailures();
  });

  it("truncates a thread's tool results alike", async () => {
    const threadId = uid("dump-thread");
    h.model.script(threadId, [{ toolCalls: [{ name: "dump", arguments: {} }] }, { text: "got a part" }]);
    await threads.createThread({ threadId, prompt: threadId });
    await threads.settled({ threadId });
    const tool = (await threads.listMessages({ threadId })).messages.find((m) => m.role === "tool")!;
    expect(jsonBytes(tool.content) - 2).toBeLessThanOrEqual(262_144);
    expect(tool.content).toContain(`this result was ${DUMP_BYTES} bytes`);
    expect((await threads.state({ threadId })).status).toBe("completed");
  });

  it("sends a thread's large seeded transcript to the model by query, a page at a time", async () => {
    const threadId = uid("seeded-big");
    // 1.25 MB: over a page, under what a thread's transcript may hold (THREAD_TRANSCRIPT_BYTES).
    const seeded: ChatMessage[] = Array.from({ length: 5 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `${i}:${"s".repeat(250_000)}` }) as ChatMessage);
    // The conversation is keyed by its first user message (the seed's); the turn counts the seed's answers.
    h.model.respond(seeded[0]!.content as string, () => ({
      check: (req) => expect(req.messages.slice(1)).toEqual([...seeded, { role: "user", content: threadId }]),
      text: "read the seed",
    }));
    await threads.createThread({ threadId, messages: seeded, prompt: threadId });
    await threads.settled({ threadId });
    expect(await threads.state({ threadId })).toMatchObject({ status: "completed", messageCount: 7 });
    const { messages, cursor } = await threads.listMessages({ threadId, limit: 1000 });
    // The page stops at 1 MiB.
    expect(messages.length).toBeLessThan(7);
    expect(cursor).toBe(String(messages.length));
    h.model.assertNoFailures();
  });

  it("fails a model answer over the limit with AI1016, never a terminated workflow", async () => {
    const runId = uid("huge-answer");
    h.model.script(runId, [{ text: "z".repeat(MAX_PAYLOAD_BYTES) }]);
    const err = await rejection(agents.run(longAgent, { prompt: runId, runId }));
    expect(err).toMatchObject({ code: "AI1016", fields: { what: "The model's answer" } });
    expect((await agents.workflowHandle(runId).describe()).status.name).toBe("FAILED");
    // Refused once, not retried: the same answer would come back.
    expect(h.model.requests.filter((r) => r.conversation === runId)).toHaveLength(1);
  });

  it("tells the model when ctx.defer()'s meta is too large, and the run goes on", async () => {
    const runId = uid("big-meta");
    h.model.script(runId, [
      { toolCalls: [{ name: "bigMeta", arguments: {} }] },
      { check: (req) => expect(req.messages.at(-1)!.content).toMatch(/ctx\.defer\(\) refused: \[AI1016\] tool "bigMeta" ctx\.defer\(\)'s meta and schema is \d+ bytes/), text: "could not ask" },
    ]);
    expect(await agents.run(longAgent, { prompt: runId, runId })).toMatchObject({ status: "completed", text: "could not ask" });
    h.model.assertNoFailures();
  });
});
