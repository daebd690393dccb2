/**
 * Nothing a model emits can destroy a run or a thread: a huge batch of tool calls, a batch
 * of large results, or a thread whose transcript outgrows what it can carry into its next
 * run. Each ends in a typed code the user can act on, with the run or thread readable,
 * cancellable and holding what it had; never a workflow Temporal terminates or wedges.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import {
  defineAgent,
  defineTool,
  jsonBytes,
  RUN_TRANSCRIPT_BYTES,
  STEP_RESULT_BYTES,
  THREAD_TRANSCRIPT_BYTES,
  type AgentClient,
  type ThreadsClient,
} from "../src/index.js";
import { startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;

/** How many times each conversation's tools ran: a refused answer must run none. */
const ran = new Map<string, number>();

/** Returns `bytes` bytes of text: a browsing or retrieval tool with a large page. */
const fetchPage = defineTool({
  name: "fetchPage",
  description: "Fetches a page of the given size",
  input: z.object({ bytes: z.number().int().min(0), tag: z.string() }),
  maxResultBytes: 1_048_576,
  handler: ({ bytes, tag }, ctx) => {
    const key = ctx.threadId ?? ctx.runId;
    ran.set(key, (ran.get(key) ?? 0) + 1);
    return `${tag}:${"p".repeat(Math.max(0, bytes - tag.length - 1))}`;
  },
});

const reader = defineAgent({ id: "limits-reader", model: "gpt-4.1-mini", system: "You read pages.", tools: [fetchPage], maxTurns: 40 });
const wide = defineAgent({ id: "limits-wide", model: "gpt-4.1-mini", system: "You read many pages.", tools: [fetchPage], maxTurns: 4, maxToolCalls: 256 });
const picky = defineAgent({ id: "limits-picky", model: "gpt-4.1-mini", system: "You read a few pages.", tools: [fetchPage], maxTurns: 4, maxToolCalls: 3 });

const calls = (n: number, bytes = 10) => Array.from({ length: n }, (_, i) => ({ name: "fetchPage", arguments: { bytes, tag: `t${i}` } }));
const toolContents = (messages: Array<{ role: string; content?: unknown }>) => messages.filter((m) => m.role === "tool").map((m) => String(m.content));

/** A thread's whole transcript, page after page (a page stops at 1 MiB). */
async function allThreadMessages(threadId: string) {
  const all = [];
  for (let cursor: string | undefined = "0"; cursor !== undefined; ) {
    const page = await threads.listMessages({ threadId, cursor, limit: 1000 });
    all.push(...page.messages);
    cursor = page.cursor;
  }
  return all;
}

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([reader, picky, wide], { client: { threads: { agent: reader } } }));
  threads = agents.threads;
});
afterAll(() => h?.close());

describe("more tool calls in one answer than the agent allows", () => {
  it("fail a run with AI1017 before any tool runs; the run stays readable and is not retried", async () => {
    const runId = uid("many-calls");
    h.model.script(runId, [{ toolCalls: calls(2_500) }, { text: "never asked" }]);
    const err = await agents.run(reader, { prompt: runId, runId }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "AI1017", fields: { agentId: "limits-reader", calls: 2_500, limit: 128 } });
    expect((err as Error).message).toContain("maxToolCalls");
    expect(ran.get(runId)).toBeUndefined();
    // Refused once: the same answer would come back.
    expect(h.model.requests.filter((r) => r.conversation === runId)).toHaveLength(1);
    // Failed with its transcript as it was, and readable.
    expect((await agents.listMessages({ runId })).messages).toEqual([{ role: "user", content: runId }]);
    expect((await agents.workflowHandle(runId).describe()).status.name).toBe("FAILED");
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("follow the agent's own maxToolCalls, and a definition out of range is refused", async () => {
    const runId = uid("picky");
    h.model.script(runId, [{ toolCalls: calls(4) }]);
    await expect(agents.run(picky, { prompt: runId, runId })).rejects.toMatchObject({ code: "AI1017", fields: { calls: 4, limit: 3 } });
    const fine = uid("picky-fine");
    h.model.script(fine, [{ toolCalls: calls(3) }, { text: "read three" }]);
    await expect(agents.run(picky, { prompt: fine, runId: fine })).resolves.toMatchObject({ status: "completed", text: "read three" });
    for (const maxToolCalls of [0, 513, 2.5, Number.NaN]) {
      expect(() => defineAgent({ id: "x", model: "m", system: "s", maxToolCalls })).toThrow(/AI1001.*maxToolCalls/);
    }
  });

  it("fail a thread's turn with AI1017; the thread stays readable, stoppable and takes the next message", async () => {
    const threadId = uid("many-calls-thread");
    // The refused answer is not kept, so the model is asked at the same turn again: it answers the new message.
    h.model.respond(threadId, (req) => (req.messages.at(-1)?.content === "try again" ? { text: "fewer this time" } : { toolCalls: calls(2_500) }));
    await threads.createThread({ threadId, prompt: threadId });
    const failed = await threads.settled({ threadId });
    expect(failed).toMatchObject({ status: "failed", lastError: { code: "AI1017" }, messageCount: 1, toolCalls: [] });
    expect(ran.get(threadId)).toBeUndefined();
    expect(await threads.stopThread({ threadId })).toMatchObject({ status: "failed" });
    await threads.sendMessage({ threadId, prompt: "try again" });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", messageCount: 3 });
    expect(await workflowTaskFailures(threads.client, threadId)).toEqual([]);
  });
});

describe("a batch of large results", () => {
  it("shares the step's room: 220 results of 250 KB reach the model cut to their share, and the run completes", async () => {
    const runId = uid("big-batch");
    let seen: string[] = [];
    h.model.script(runId, [{ toolCalls: calls(220, 250_000) }, { check: (req) => void (seen = toolContents(req.messages)), text: "skimmed" }]);
    await expect(agents.run(wide, { prompt: runId, runId })).resolves.toMatchObject({ status: "completed", text: "skimmed" });
    expect(seen).toHaveLength(220);
    const share = Math.floor(STEP_RESULT_BYTES / 220);
    for (const [i, content] of seen.entries()) {
      expect(content.startsWith(`t${i}:ppp`)).toBe(true);
      expect(jsonBytes(content) - 2).toBeLessThanOrEqual(share);
      expect(content).toMatch(/\[Truncated by durable-agents: this result was 250000 bytes, over the \d+ bytes this call was given \(its share of the room left for this step's results/);
    }
    const history = await agents.workflowHandle(runId).fetchHistory();
    expect(jsonBytes(history)).toBeLessThan(4 * STEP_RESULT_BYTES);
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("shares a thread's room alike, and the thread takes the next message", async () => {
    const threadId = uid("big-batch-thread");
    h.model.script(threadId, [{ toolCalls: calls(100, 250_000) }, { text: "skimmed" }, { text: "and again" }]);
    await threads.createThread({ threadId, prompt: threadId });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    const results = toolContents(await allThreadMessages(threadId));
    expect(results).toHaveLength(100);
    // One step takes at most half the room, so the conversation can go on.
    const total = results.reduce((sum, c) => sum + jsonBytes(c), 0);
    expect(total).toBeLessThanOrEqual(THREAD_TRANSCRIPT_BYTES / 2);
    await threads.sendMessage({ threadId, prompt: "more?" });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", messageCount: 1 + 1 + 100 + 1 + 2 });
  });
});

describe("a thread whose transcript outgrows one payload", () => {
  it("keeps rolling over with thirty 80 KB results, cuts what has no room, then refuses more with AI1018 and stays readable", async () => {
    const threadId = uid("full-thread");
    // Every turn: three 80 KB pages, then an answer; a small event budget makes it roll over often.
    h.model.respond(threadId, (request) => (request.messages.at(-1)?.role === "tool" ? { text: `read ${request.turn}` } : { toolCalls: calls(3, 80_000) }));
    await threads.createThread({ threadId, prompt: threadId, maxHistoryEvents: 100 });
    await threads.settled({ threadId });
    let refused: unknown;
    for (let turn = 1; turn < 10 && !refused; turn++) {
      await threads.sendMessage({ threadId, prompt: `page set ${turn}` }).catch((e: unknown) => (refused = e));
      const view = await threads.settled({ threadId });
      if (view.status === "failed") {
        // The answer found no room: the turn failed with the code, and the thread is still whole.
        expect(view.lastError?.code).toBe("AI1018");
      }
    }
    // Some message found the thread full: refused with a typed code, nothing changed.
    const before = await threads.state({ threadId });
    if (!refused) refused = await threads.sendMessage({ threadId, prompt: "x".repeat(300_000) }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "AI1018", fields: { host: "thread", id: threadId, limitBytes: THREAD_TRANSCRIPT_BYTES } });
    expect((await threads.state({ threadId })).messageCount).toBe(before.messageCount);
    // It rolled over with its whole transcript: never terminated, never over one payload.
    const view = await threads.state({ threadId });
    expect(view.generation).toBeGreaterThan(0);
    const all = await allThreadMessages(threadId);
    expect(all).toHaveLength(view.messageCount);
    expect(jsonBytes(all)).toBeLessThanOrEqual(THREAD_TRANSCRIPT_BYTES + 64_000);
    expect((await threads.workflowHandle(threadId).describe()).status.name).toBe("RUNNING");
    expect(await workflowTaskFailures(threads.client, threadId)).toEqual([]);
    // Cut to fit, results say so; and the thread still reads and deletes.
    expect(toolContents(all).some((c) => c.includes("its share of the room left"))).toBe(true);
    await threads.deleteThread({ threadId });
  });

  it("refuses a seeded transcript it could not carry with AI1018, and starts nothing", async () => {
    const threadId = uid("seed-too-big");
    const messages = Array.from({ length: 6 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: "s".repeat(240_000) }) as const);
    await expect(threads.createThread({ threadId, messages })).rejects.toMatchObject({ code: "AI1018", fields: { what: "the seeded transcript and prompt" } });
    await expect(threads.state({ threadId })).rejects.toMatchObject({ code: "AI1020" });
  });
});

describe("properties: no batch or result size destroys a run or a thread", () => {
  const batchSize = fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 100, max: 200 }), fc.integer({ min: 1_000, max: 5_000 }));
  const resultBytes = fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 100_000, max: 1_048_576 }));

  it("a run completes, or fails with AI1017 having run nothing", async () => {
    await fc.assert(
      fc.asyncProperty(batchSize, resultBytes, async (n, bytes) => {
        const runId = uid("prop-size");
        h.model.script(runId, [{ toolCalls: calls(n, bytes) }, { text: "done" }]);
        const outcome = await agents.run(reader, { prompt: runId, runId }).then(
          (r) => r.status,
          (e: { code?: string }) => e.code ?? "untyped",
        );
        expect(outcome).toBe(n > 128 ? "AI1017" : "completed");
        if (n > 128) expect(ran.get(runId)).toBeUndefined();
        const { messages } = await agents.listMessages({ runId, limit: 1000 });
        expect(jsonBytes(toolContents(messages))).toBeLessThanOrEqual(Math.min(RUN_TRANSCRIPT_BYTES, STEP_RESULT_BYTES + 512 * n));
        expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
      }),
      { numRuns: 8 },
    );
  });

  it("a thread completes, or fails its turn with AI1017 and takes the next message", async () => {
    await fc.assert(
      fc.asyncProperty(batchSize, resultBytes, async (n, bytes) => {
        const threadId = uid("prop-size-thread");
        h.model.respond(threadId, (req) => (req.messages.at(-1)?.content === "again" || req.messages.at(-1)?.role === "tool" ? { text: "done" } : { toolCalls: calls(n, bytes) }));
        await threads.createThread({ threadId, prompt: threadId });
        const view = await threads.settled({ threadId });
        if (n > 128) {
          expect(view).toMatchObject({ status: "failed", lastError: { code: "AI1017" }, messageCount: 1 });
          await threads.sendMessage({ threadId, prompt: "again" });
          expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
        } else {
          expect(view.status).toBe("completed");
        }
        expect(await workflowTaskFailures(threads.client, threadId)).toEqual([]);
      }),
      { numRuns: 8 },
    );
  });
});
