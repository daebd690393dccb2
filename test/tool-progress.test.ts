/**
 * Tool progress: `ctx.progress(data)` reaches the readers of a thread or a run (followUpdates,
 * the front door's SSE routes) while the tool runs, out of band on the worker's stream
 * transport: nothing of it in the workflow's history, no signal, no billed action. Where no
 * transport carries it (deltas by signal) it is dropped, never signalled. A flood leaves
 * readers with the latest value; data that is not plain JSON, or too large, is the tool's
 * error (AI1001, AI1016) and the turn goes on.
 */
import proto from "@temporalio/proto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AgentClient, defineAgent, defineTool, MAX_PROGRESS_BYTES, type StreamSnapshot, type StreamUpdate } from "../src/index.js";
import { TransportPairs } from "./stream-transports.js";
import { startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";
import { openEvents, startHttp, type HttpServer, type SseEvent } from "./http-support.js";
import { ThreadChatTransport } from "../src/react.js";
import type { UIMessageChunk } from "ai";

const { EventType } = proto.temporal.api.enums.v1;
const POLL_MS = 50;
const WAIT = { timeout: 30_000, interval: 20 };

/** A gate per run or thread, released by the test: the tool waits on it between reports. */
const gates = new Map<string, Array<{ release: () => void; wait: Promise<void> }>>();
function gate(id: string, n: number) {
  const list = gates.get(id) ?? [];
  while (list.length <= n) {
    let release!: () => void;
    const wait = new Promise<void>((resolve) => (release = resolve));
    list.push({ release, wait });
  }
  gates.set(id, list);
  return list[n]!;
}
/** How long each flood of 100,000 reports took inside the handler, by run or thread. */
const floods = new Map<string, number>();

const crawl = defineTool({
  name: "crawl",
  description: "Crawls pages",
  input: z.object({ pages: z.number() }),
  async handler({ pages }, ctx) {
    for (let page = 1; page <= pages; page++) {
      ctx.progress({ page, of: pages, marker: `progress-of-${ctx.runId}` });
      await gate(ctx.runId, page).wait;
    }
    return `crawled ${pages} pages`;
  },
});
const flood = defineTool({
  name: "flood",
  description: "Reports progress 100,000 times",
  input: z.object({}),
  async handler(_input, ctx) {
    const started = performance.now();
    for (let i = 0; i < 100_000; i++) ctx.progress({ i });
    floods.set(ctx.runId, performance.now() - started);
    await gate(ctx.runId, 1).wait;
    return "flooded";
  },
});
const cycle: Record<string, unknown> = {};
cycle.self = cycle;
const BAD: Record<string, unknown> = { big: { text: "x".repeat(MAX_PROGRESS_BYTES) }, fn: { f: () => 1 }, cycle, bigint: { n: 10n } };
const misreport = defineTool({
  name: "misreport",
  description: "Reports progress it should not",
  input: z.object({ kind: z.string() }),
  handler({ kind }, ctx) {
    ctx.progress(BAD[kind] as never);
    return "unreachable";
  },
});
const worker = defineAgent({ id: "progress-worker", model: "gpt-4.1-mini", system: "You crawl.", tools: [crawl, flood, misreport], maxTurns: 10 });
/** Reports what the sub-agent may report alone, and what no longer fits once marked with the sub-agent. */
const heavy = defineTool({
  name: "heavy",
  description: "Reports a large preview",
  input: z.object({}),
  async handler(_input, ctx) {
    ctx.progress({ text: "x".repeat(MAX_PROGRESS_BYTES - 100) });
    await gate(ctx.runId, 1).wait;
    return "heavy done";
  },
});
/** A thread's sub-agent whose own tools report progress. */
const helper = defineAgent({ id: "progress-helper", model: "gpt-4.1-mini", system: "You crawl for the lead.", tools: [crawl, flood, heavy], maxTurns: 4 });
const lead = defineAgent({ id: "progress-lead", model: "gpt-4.1-mini", system: "You delegate.", agents: [helper], maxTurns: 6 });

let h: Harness;
/** The default worker: its direct stream transport (readers in its process hear it in-process). */
let agents: AgentClient;
/** A worker that streams deltas by signal: progress has no transport there. */
let bySignal: AgentClient;
let http: HttpServer;
const pairs = new TransportPairs();
const cleanup: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([worker, helper, lead], { client: { threads: { agent: worker } } }));
  ({ agents: bySignal } = await h.worker([worker], { threads: { stream: { transport: "workflow" } } }));
  http = await startHttp({ agents, events: { pollInterval: POLL_MS } });
});
afterAll(async () => {
  // A test that failed half-way leaves no tool waiting on its gate: the workers can stop.
  for (const list of gates.values()) for (const g of list) g.release();
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
  await http?.close();
  await h?.close();
  await pairs.stop();
});

const progressOf = (updates: StreamUpdate[]) => updates.flatMap((u) => (u.type === "tool-progress" ? [u] : []));
const sseUpdates = (events: SseEvent[]) => events.filter((e) => e.event === "message").map((e) => ({ id: e.id, update: JSON.parse(e.data) as StreamUpdate }));

function follow(updates: (options: { until: (b: StreamSnapshot) => boolean }) => AsyncGenerator<StreamSnapshot>) {
  const batches: StreamSnapshot[] = [];
  const ended = (u: StreamUpdate) => u.type === "status" && ["completed", "failed", "stopped"].includes(u.status);
  const done = (async () => {
    for await (const batch of updates({ until: (b) => b.updates.some(ended) })) batches.push(batch);
  })();
  return { updates: () => batches.flatMap((b) => b.updates), done };
}

/** Every payload's bytes in the execution's history, as text: what Temporal stored. */
async function historyText(client: AgentClient, id: string): Promise<{ text: string; signals: number }> {
  const history = await client.client.workflow.getHandle(id).fetchHistory();
  const text = Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish()).toString("latin1");
  return { text, signals: (history.events ?? []).filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED).length };
}

describe("ctx.progress in a thread's tool", () => {
  it("reaches followUpdates and the SSE route while the tool runs, and never the history", async () => {
    const threadId = uid("progress-thread");
    h.model.script(threadId, [{ toolCalls: [{ name: "crawl", arguments: { pages: 2 } }] }, { text: "done crawling" }]);
    await agents.threads.createThread({ threadId, agent: worker });
    const reader = follow((o) => agents.threads.followUpdates({ threadId, pollInterval: POLL_MS, ...o }));
    const sse = await openEvents(`${http.url}/threads/${threadId}/events`);
    await agents.threads.sendMessage({ threadId, prompt: threadId });

    await vi.waitFor(() => expect(progressOf(reader.updates()).map((p) => p.data)).toContainEqual({ page: 1, of: 2, marker: `progress-of-${threadId}` }), WAIT);
    await sse.until((e) => e.data.includes(`"page":1`));
    // The tool is still held on its first page: what the readers have came while it ran.
    expect(reader.updates().some((u) => u.type === "message" && u.message.role === "tool")).toBe(false);
    const first = progressOf(reader.updates())[0]!;
    expect(first).toMatchObject({ seq: 0, type: "tool-progress", toolName: "crawl" });
    expect(typeof first.toolCallId).toBe("string");
    gate(threadId, 1).release();
    await vi.waitFor(() => expect(progressOf(reader.updates()).map((p) => (p.data as { page: number }).page)).toContain(2), WAIT);
    await sse.until((e) => e.data.includes(`"page":2`));
    gate(threadId, 2).release();
    await reader.done;
    await sse.until((e) => e.data.includes(`"status":"completed"`));
    sse.close();

    // Over SSE, progress carries no id: a reconnect's Last-Event-ID stays on the log's last entry.
    const overSse = sseUpdates(sse.events);
    expect(overSse.filter((e) => e.update.type === "tool-progress").map((e) => e.id)).toEqual([undefined, undefined]);
    expect(overSse.filter((e) => e.update.type !== "tool-progress").every((e) => e.id === String(e.update.seq))).toBe(true);
    const stored = await agents.threads.listMessages({ threadId });
    expect(stored.messages.at(-1)).toMatchObject({ role: "assistant", content: "done crawling" });
    expect(stored.messages.find((m) => m.role === "tool")).toMatchObject({ content: "crawled 2 pages" });
    // Progress is a preview: the history holds the tool's result, no progress, and no signal.
    const { text, signals } = await historyText(agents, threadId);
    expect(text).toContain("crawled 2 pages");
    expect(text).not.toContain(`progress-of-${threadId}`);
    expect(text).not.toContain("tool-progress");
    expect(signals).toBe(0);
    expect(await workflowTaskFailures(agents.client, threadId)).toEqual([]);
  });

  it("is dropped where deltas go by signal: no signal, nothing in history, the turn goes on", async () => {
    const threadId = uid("progress-signal");
    h.model.script(threadId, [{ toolCalls: [{ name: "crawl", arguments: { pages: 1 } }] }, { text: "done" }]);
    await bySignal.threads.createThread({ threadId, agent: worker, prompt: threadId });
    const reader = follow((o) => bySignal.threads.followUpdates({ threadId, pollInterval: POLL_MS, ...o }));
    await vi.waitFor(() => expect(reader.updates().some((u) => u.type === "status" && u.status === "awaiting_tool_results")).toBe(true), WAIT);
    gate(threadId, 1).release();
    await reader.done;
    expect(progressOf(reader.updates())).toEqual([]);
    const { text, signals } = await historyText(bySignal, threadId);
    expect(text).not.toContain(`progress-of-${threadId}`);
    expect(signals).toBe(0);
    const messages = (await bySignal.threads.listMessages({ threadId })).messages;
    // The handler's report was taken (and dropped): the tool ran to its result.
    expect(messages.find((m) => m.role === "tool")).toMatchObject({ content: "crawled 1 pages" });
    expect(messages.at(-1)).toMatchObject({ content: "done" });
  });

  it("survives a flood of 100,000 reports: readers get a handful, the last one among them", async () => {
    const threadId = uid("progress-flood");
    h.model.script(threadId, [{ toolCalls: [{ name: "flood", arguments: {} }] }, { text: "flood over" }]);
    await agents.threads.createThread({ threadId, agent: worker });
    const reader = follow((o) => agents.threads.followUpdates({ threadId, pollInterval: POLL_MS, ...o }));
    await agents.threads.sendMessage({ threadId, prompt: threadId });
    await vi.waitFor(() => expect(progressOf(reader.updates()).map((p) => p.data)).toContainEqual({ i: 99_999 }), WAIT);
    gate(threadId, 1).release();
    await reader.done;
    // The first report goes at once and the latest after the interval: the 99,998 between replaced each other.
    expect(progressOf(reader.updates()).length).toBeLessThanOrEqual(3);
    expect(floods.get(threadId)).toBeDefined();
    expect((await agents.threads.listMessages({ threadId })).messages.at(-1)).toMatchObject({ content: "flood over" });
  });

  it.each([
    ["big", "AI1016"],
    ["fn", "AI1001"],
    ["cycle", "AI1001"],
    ["bigint", "AI1001"],
  ])("refuses %s data as the tool's error (%s): nothing reaches readers, the turn goes on", async (kind, code) => {
    const threadId = uid(`progress-${kind}`);
    h.model.respond(threadId, (request) => {
      const last = request.messages.at(-1)!;
      return last.role === "tool" ? { text: `tool said: ${String(last.content)}` } : { toolCalls: [{ name: "misreport", arguments: { kind } }] };
    });
    await agents.threads.createThread({ threadId, agent: worker });
    const reader = follow((o) => agents.threads.followUpdates({ threadId, pollInterval: POLL_MS, ...o }));
    await agents.threads.sendMessage({ threadId, prompt: threadId });
    await reader.done;
    expect(progressOf(reader.updates())).toEqual([]);
    const messages = (await agents.threads.listMessages({ threadId })).messages;
    const tool = messages.find((m) => m.role === "tool")!;
    expect(tool.content).toContain(code);
    expect(tool.content).toContain("ctx.progress() refused");
    expect(messages.at(-1)).toMatchObject({ role: "assistant" });
    expect(String(messages.at(-1)!.content)).toContain(code);
  });
});

describe("useChat's transport", () => {
  it("shows a running tool's progress as a data part of the answer, one per call (its id), before the tool's output", async () => {
    const threadId = uid("progress-chat");
    const prompt = uid("chat-prompt");
    h.model.script(prompt, [{ toolCalls: [{ name: "crawl", arguments: { pages: 1 } }] }, { text: "chat crawled" }]);
    const transport = new ThreadChatTransport({ baseUrl: http.url, headers: { "x-user": "alice" } });
    const stream = await transport.sendMessages({
      chatId: threadId,
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
      messages: [{ id: uid("ui"), role: "user", parts: [{ type: "text", text: prompt }] }],
    });
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) {
      chunks.push(chunk);
      // The tool waits for this: the part arrived while it ran.
      if (chunk.type === "data-tool-progress") gate(threadId, 1).release();
    }
    const part = chunks.find((c) => c.type === "data-tool-progress") as { id?: string; data: { toolCallId: string; toolName: string; data: unknown } } | undefined;
    expect(part?.data).toMatchObject({ toolName: "crawl", data: { page: 1, of: 1, marker: `progress-of-${threadId}` } });
    expect(part?.id).toBe(part?.data.toolCallId);
    const output = chunks.findIndex((c) => c.type === "tool-output-available");
    expect(chunks.indexOf(part as never)).toBeLessThan(output);
    expect(chunks.at(-1)).toEqual({ type: "finish" });
    // Without the part the tool is never released: fail rather than wait for ever.
  }, 30_000);
});

describe("ctx.progress in a run's tool", () => {
  it("reaches the run's followUpdates and its SSE route while the tool runs, and never the history", async () => {
    const runId = uid("progress-run");
    h.model.script(runId, [{ toolCalls: [{ name: "crawl", arguments: { pages: 1 } }] }, { text: "run crawled" }]);
    const handle = await agents.start(worker, { prompt: runId, runId });
    const reader = follow((o) => agents.followUpdates({ runId, pollInterval: POLL_MS, ...o }));
    const sse = await openEvents(`${http.url}/runs/${runId}/events`);
    await vi.waitFor(() => expect(progressOf(reader.updates()).map((p) => p.data)).toContainEqual({ page: 1, of: 1, marker: `progress-of-${runId}` }), WAIT);
    await sse.until((e) => e.data.includes(`"tool-progress"`));
    expect(reader.updates().some((u) => u.type === "message" && u.message.role === "tool")).toBe(false);
    gate(runId, 1).release();
    await reader.done;
    sse.close();
    expect(await handle.result()).toMatchObject({ status: "completed", text: "run crawled" });
    const { text, signals } = await historyText(agents, runId);
    expect(text).not.toContain(`progress-of-${runId}`);
    expect(signals).toBe(0);
  });
});

describe("ctx.progress across processes", () => {
  it.each([
    [
      "Redis",
      pairs.redis,
    ],
    ["a direct transport of the reader's own (it connects to the worker's endpoint)", pairs.direct],
  ] as const)("reaches a reader whose client has %s", async (_how, transports) => {
    const [onWorker, onReader] = await transports();
    cleanup.push(() => onWorker.close(), () => onReader.close());
    const { agents: published, taskQueue } = await h.worker([worker], { threads: { stream: { transport: onWorker } }, client: { stream: { transport: onWorker } } });
    const reading = new AgentClient({ client: published.client, taskQueue, stream: { transport: onReader } });
    const runId = uid("progress-far");
    h.model.script(runId, [{ toolCalls: [{ name: "crawl", arguments: { pages: 1 } }] }, { text: "far crawled" }]);
    const handle = await published.start(worker, { prompt: runId, runId });
    const reader = follow((o) => reading.followUpdates({ runId, pollInterval: POLL_MS, ...o }));
    await vi.waitFor(() => expect(progressOf(reader.updates()).map((p) => p.data)).toContainEqual({ page: 1, of: 1, marker: `progress-of-${runId}` }), WAIT);
    expect(reader.updates().some((u) => u.type === "message" && u.message.role === "tool")).toBe(false);
    gate(runId, 1).release();
    await reader.done;
    expect(await handle.result()).toMatchObject({ status: "completed", text: "far crawled" });
  });
});

describe("ctx.progress in a thread's sub-agent's tool", () => {
  const childOf = (threadId: string, toolCallId: string) => `${threadId}/agent/${toolCallId}`;
  const ofCall = (updates: StreamUpdate[], toolCallId: string) => progressOf(updates).filter((p) => p.toolCallId === toolCallId);

  it("reaches the thread's followUpdates and SSE readers as the calling call's progress, marked with the sub-agent, and never the history", async () => {
    const threadId = uid("progress-sub");
    const child = childOf(threadId, "s1");
    h.model.script(threadId, [{ toolCalls: [{ id: "s1", name: "progress-helper", arguments: { prompt: `${threadId} crawl` } }] }, { text: "delegated" }]);
    h.model.script(`${threadId} crawl`, [{ toolCalls: [{ name: "crawl", arguments: { pages: 2 } }] }, { text: "crawled it" }]);
    await agents.threads.createThread({ threadId, agent: lead });
    const reader = follow((o) => agents.threads.followUpdates({ threadId, pollInterval: POLL_MS, ...o }));
    const sse = await openEvents(`${http.url}/threads/${threadId}/events`);
    await agents.threads.sendMessage({ threadId, prompt: threadId });

    const marked = (page: number) => ({ agent: "progress-helper", runId: child, tool: { toolCallId: expect.any(String), toolName: "crawl" }, data: { page, of: 2, marker: `progress-of-${child}` } });
    await vi.waitFor(() => expect(ofCall(reader.updates(), "s1").map((p) => p.data)).toContainEqual(marked(1)), WAIT);
    expect(ofCall(reader.updates(), "s1").at(-1)).toMatchObject({ seq: 0, type: "tool-progress", toolName: "progress-helper" });
    await sse.until((e) => e.data.includes(`"tool-progress"`) && e.data.includes(`"page":1`) && e.data.includes(`"progress-helper"`));
    // The child's tool is held on its first page: the thread's readers have its report already.
    expect(reader.updates().some((u) => u.type === "message" && u.message.role === "tool")).toBe(false);
    gate(child, 1).release();
    await vi.waitFor(() => expect(ofCall(reader.updates(), "s1").map((p) => p.data)).toContainEqual(marked(2)), WAIT);
    gate(child, 2).release();
    await reader.done;
    sse.close();
    expect((await agents.threads.listMessages({ threadId })).messages.at(-1)).toMatchObject({ content: "delegated" });
    // Out of band, as the thread's own tools' progress: nothing of it in the thread's history or the child's.
    for (const id of [threadId, child]) expect((await historyText(agents, id)).text).not.toContain("progress-of-");
  });

  it("is throttled as the thread's own (a flood of 100,000 gives a handful, the last among them), and a report too large once marked arrives as truncated", async () => {
    const threadId = uid("progress-sub-flood");
    const flooding = childOf(threadId, "f1");
    const weighing = childOf(threadId, "w1");
    h.model.script(threadId, [{ toolCalls: [{ id: "f1", name: "progress-helper", arguments: { prompt: `${threadId} flood` } }] }, { toolCalls: [{ id: "w1", name: "progress-helper", arguments: { prompt: `${threadId} weigh` } }] }, { text: "all over" }]);
    h.model.script(`${threadId} flood`, [{ toolCalls: [{ name: "flood", arguments: {} }] }, { text: "flooded it" }]);
    h.model.script(`${threadId} weigh`, [{ toolCalls: [{ name: "heavy", arguments: {} }] }, { text: "weighed it" }]);
    await agents.threads.createThread({ threadId, agent: lead });
    const reader = follow((o) => agents.threads.followUpdates({ threadId, pollInterval: POLL_MS, ...o }));
    await agents.threads.sendMessage({ threadId, prompt: threadId });

    await vi.waitFor(() => expect(ofCall(reader.updates(), "f1").map((p) => (p.data as { data?: unknown }).data)).toContainEqual({ i: 99_999 }), WAIT);
    gate(flooding, 1).release();
    await vi.waitFor(() => expect(ofCall(reader.updates(), "w1").length).toBeGreaterThan(0), WAIT);
    expect(ofCall(reader.updates(), "w1")[0]!.data).toEqual({ agent: "progress-helper", runId: weighing, tool: { toolCallId: expect.any(String), toolName: "heavy" }, data: null, truncated: true });
    gate(weighing, 1).release();
    await reader.done;
    // Tool progress of the flood: the first at once, the latest after the interval (the sub-agent's answer's previews are apart).
    const floodReports = ofCall(reader.updates(), "f1").filter((p) => (p.data as { tool?: unknown }).tool !== undefined);
    expect(floodReports.length).toBeLessThanOrEqual(3);
    expect((await agents.threads.listMessages({ threadId })).messages.at(-1)).toMatchObject({ content: "all over" });
  });
});

