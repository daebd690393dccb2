/**
 * Sub-agents in chat threads: a thread's agent lists others in `agents`, as a run's does; its
 * model calls one as a tool and the thread starts that agent as a Temporal child workflow
 * (`<threadId>/agent/<toolCallId>`), whose final answer is the call's result in the turn. The
 * child's turns and tokens count in the turn's; what goes wrong in it is a tool error the
 * thread's model reads (with its code); a huge answer is cut to the call's share of the
 * thread's room; a stop or a delete of the thread reaches the child. While the child writes,
 * its answer reaches the thread's readers (followUpdates, SSE, useChat; in-process, Redis and
 * direct transports) as tool-progress of the call; its gated calls are the thread's approvals,
 * decided from the thread or the inbox.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { UIMessageChunk } from "ai";
import { AgentClient, defineAgent, defineTool, ThreadsClient, type ChatMessage, type StreamSnapshot, type StreamUpdate, type SubAgentProgress } from "../src/index.js";
import { TransportPairs } from "./stream-transports.js";
import { ThreadChatTransport } from "../src/react.js";
import { subAgentDeferralSignal } from "../src/core/wire/run.js";
import { SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";
import { openEvents, startHttp, type HttpServer } from "./http-support.js";

const lookup = defineTool({ name: "lookup", description: "Looks a fact up", input: z.object({ topic: z.string() }), handler: ({ topic }) => `${topic}: 42` });
const researcher = defineAgent({ id: "tsub-researcher", description: "Finds facts", model: "gpt-4.1-mini", system: "You research.", tools: [lookup], maxTurns: 4 });
/** Allowed one turn: any tool call it makes ends it in AI1004. */
const hasty = defineAgent({ id: "tsub-hasty", model: "gpt-4.1-mini", system: "You hurry.", tools: [lookup], maxTurns: 1 });
/** What the gated tool did, by run: it runs only once approved. */
const paid: Array<{ runId: string; amount: number }> = [];
const pay = defineTool({
  name: "pay",
  description: "Pays",
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  approval: { meta: { requires: ["payments:approve"] } },
  handler: ({ amount }, ctx) => (paid.push({ runId: ctx.runId, amount }), `paid ${amount}`),
});
const payer = defineAgent({ id: "tsub-payer", description: "Pays invoices", model: "gpt-4.1-mini", system: "You pay.", tools: [pay], maxTurns: 4 });
const lead = defineAgent({ id: "tsub-lead", model: "gpt-4.1-mini", system: "You chat and delegate.", agents: [researcher, hasty, payer], maxTurns: 8 });

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;
let http: HttpServer;
const pairs = new TransportPairs();
const cleanup: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  h = await startHarness();
  // Only the lead is listed: its sub-agents are registered with it, as for runs.
  ({ agents } = await h.worker([lead], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, threads: { agent: lead } } }));
  threads = agents.threads;
  http = await startHttp({ agents, events: { pollInterval: 50 } });
});
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
  await http?.close();
  await h?.close();
  await pairs.stop();
});

const childOf = (threadId: string, toolCallId: string) => `${threadId}/agent/${toolCallId}`;
const toolResults = (messages: ChatMessage[]) => messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");
const threadToolResults = async (threadId: string) => toolResults((await threads.listMessages({ threadId })).messages as ChatMessage[]);

describe("a thread's sub-agent", () => {
  it("runs as a child workflow of the thread whose answer is the call's result; its turns and tokens count in the turn's", async () => {
    const threadId = uid("tsub-ask");
    h.model.script(threadId, [
      { toolCalls: [{ id: "c1", name: "tsub-researcher", arguments: { prompt: `${threadId} research the answer` } }], usage: { promptTokens: 3, completionTokens: 1 } },
      { check: (req) => expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: "It is 42." }), text: "The answer is 42.", usage: { promptTokens: 3, completionTokens: 1 } },
    ]);
    h.model.script(`${threadId} research the answer`, [
      { toolCalls: [{ name: "lookup", arguments: { topic: "answer" } }], usage: { promptTokens: 100, completionTokens: 10 } },
      { text: "It is 42.", usage: { promptTokens: 100, completionTokens: 10 } },
    ]);
    await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const view = await threads.settled({ threadId });
    expect(view).toMatchObject({ status: "completed" });
    // The lead's model was offered its sub-agents as tools, with their descriptions.
    const offered = h.model.requests.find((r) => r.messages.some((m) => m.content === threadId))?.tools as Array<{ function: { name: string; description: string } }>;
    expect(offered.map((t) => t.function.name)).toEqual(["tsub-researcher", "tsub-hasty", "tsub-payer"]);
    expect(offered[0]!.function.description).toBe("Finds facts");
    expect(await threadToolResults(threadId)).toEqual(["It is 42."]);
    // A run of its own, read by its id, acting for the thread's principal.
    expect(await agents.result({ runId: childOf(threadId, "c1") })).toMatchObject({ status: "completed", text: "It is 42.", turnsUsed: 2 });
    expect((await agents.state({ runId: childOf(threadId, "c1") })).principal).toEqual({ id: "sam" });
    const child = (await agents.listMessages({ runId: childOf(threadId, "c1") })).messages;
    expect(toolResults(child)).toEqual(["answer: 42"]);
    // The child's 200 prompt tokens count in the thread's usage, with the lead's own 6.
    expect(view.usage.promptTokens).toBe(206);
    expect(await workflowTaskFailures(agents.client, threadId)).toEqual([]);
  });

  it("that fails is a tool error with its code for the thread's model, and the turn goes on", async () => {
    const threadId = uid("tsub-fail");
    h.model.script(threadId, [
      { toolCalls: [{ id: "f1", name: "tsub-hasty", arguments: { prompt: `${threadId} hurry` } }] },
      { check: (req) => expect(req.messages.at(-1)?.content).toMatch(/^Error: the agent "tsub-hasty" did not answer: \[AI1004\]/), text: "It gave up." },
    ]);
    h.model.script(`${threadId} hurry`, [{ toolCalls: [{ name: "lookup", arguments: { topic: "x" } }] }]);
    await threads.createThread({ threadId, prompt: threadId });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect((await threadToolResults(threadId))[0]).toMatch(/\[AI1004\]/);
    await expect(agents.result({ runId: childOf(threadId, "f1") })).rejects.toMatchObject({ code: "AI1004" });
  });

  it("refuses, as a tool error and without a child, an agent it does not list and a call without a prompt", async () => {
    const threadId = uid("tsub-hostile");
    h.model.script(threadId, [
      {
        toolCalls: [
          { id: "g1", name: "tsub-ghost", arguments: { prompt: "haunt" } },
          { id: "g2", name: "tsub-researcher", arguments: { task: "no prompt" } },
          { id: "g3", name: "tsub-researcher", arguments: "{not json" as never },
        ],
      },
      { text: "Nothing to do." },
    ]);
    await threads.createThread({ threadId, prompt: threadId });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    const [ghost, noPrompt, garbage] = await threadToolResults(threadId);
    expect(ghost).toMatch(/tsub-ghost/);
    expect(noPrompt).toBe(`Error: call the agent "tsub-researcher" with {"prompt": "<the task>"}.`);
    expect(garbage).toBe(noPrompt);
    for (const id of ["g1", "g2", "g3"]) await expect(agents.workflowHandle(childOf(threadId, id)).describe()).rejects.toThrow();
    expect(await workflowTaskFailures(agents.client, threadId)).toEqual([]);
  });

  it("answering hugely has its answer cut to the call's share of the thread's room, with a note for the model", async () => {
    const threadId = uid("tsub-huge");
    const huge = "y".repeat(900_000);
    h.model.script(threadId, [
      { toolCalls: [{ id: "u1", name: "tsub-researcher", arguments: { prompt: `${threadId} write a lot` } }] },
      { check: (req) => expect(req.messages.at(-1)?.content).toMatch(/\[Truncated by durable-agents: this result was 900000 bytes/), text: "Too long to read." },
      { text: "Still here." },
    ]);
    h.model.script(`${threadId} write a lot`, [{ text: huge }]);
    await threads.createThread({ threadId, prompt: threadId });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    const [result] = await threadToolResults(threadId);
    expect(result!.length).toBeLessThanOrEqual(262_144);
    expect(result!.startsWith("yyyy")).toBe(true);
    // The child keeps its whole answer.
    expect((await agents.result({ runId: childOf(threadId, "u1") })).text).toHaveLength(900_000);
    // The thread goes on: a next message is answered.
    await threads.sendMessage({ threadId, prompt: `${threadId} again` });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
  });
});

const WAIT = { timeout: 30_000, interval: 20 };
const childProgress = (updates: StreamUpdate[], toolCallId: string) =>
  updates.flatMap((u) => (u.type === "tool-progress" && u.toolCallId === toolCallId ? [u.data as unknown as SubAgentProgress] : []));

function follow(threadId: string, via: ThreadsClient = threads) {
  const batches: StreamSnapshot[] = [];
  const ended = (u: StreamUpdate) => u.type === "status" && ["completed", "failed", "stopped"].includes(u.status);
  const done = (async () => {
    for await (const batch of via.followUpdates({ threadId, pollInterval: 50, until: (b) => b.updates.some(ended) })) batches.push(batch);
  })();
  return { updates: () => batches.flatMap((b) => b.updates), done };
}

describe("a thread's sub-agent's answer", () => {
  it("reaches the thread's followUpdates and SSE readers while the child writes it, marked with the sub-agent and the call", async () => {
    const threadId = uid("tsub-stream");
    const hold = h.model.hold();
    h.model.script(threadId, [{ toolCalls: [{ id: "j1", name: "tsub-researcher", arguments: { prompt: `${threadId} explain` } }] }, { text: "It explained." }]);
    h.model.script(`${threadId} explain`, [{ text: "Durable execution means the work survives crashes.", hold, holdAfterChars: 18 }]);
    await threads.createThread({ threadId });
    const reader = follow(threadId);
    const sse = await openEvents(`${http.url}/threads/${threadId}/events`);
    await threads.sendMessage({ threadId, prompt: threadId });

    await hold.reached;
    // Mid-answer: the child holds after 18 characters, and the readers have them already.
    await vi.waitFor(() => expect(childProgress(reader.updates(), "j1").at(-1)?.text).toMatch(/^Durable execution/), WAIT);
    const seen = childProgress(reader.updates(), "j1").at(-1)!;
    expect(seen).toMatchObject({ agent: "tsub-researcher", runId: childOf(threadId, "j1"), answer: 1 });
    expect(seen.text.length).toBeLessThan("Durable execution means the work survives crashes.".length);
    expect(reader.updates().find((u) => u.type === "tool-progress")).toMatchObject({ seq: 0, toolName: "tsub-researcher" });
    await sse.until((e) => e.data.includes(`"tool-progress"`) && e.data.includes("Durable execution"));
    expect(reader.updates().some((u) => u.type === "message" && u.message.role === "tool")).toBe(false);

    hold.release();
    await reader.done;
    await sse.until((e) => e.data.includes(`"status":"completed"`));
    sse.close();
    expect(await threadToolResults(threadId)).toEqual(["Durable execution means the work survives crashes."]);
    // Out of band: nothing of the preview in the thread's history.
    const history = JSON.stringify(await threads.workflowHandle(threadId).fetchHistory());
    expect(history).not.toContain("tool-progress");
  });

  it("shows in useChat as the call's data part before the call's output", async () => {
    const threadId = uid("tsub-chat");
    const prompt = uid("tsub-chat-prompt");
    const hold = h.model.hold();
    h.model.script(prompt, [{ toolCalls: [{ id: "u1", name: "tsub-researcher", arguments: { prompt: `${prompt} summarise` } }] }, { text: "Summarised." }]);
    h.model.script(`${prompt} summarise`, [{ text: "A short summary of it all.", hold, holdAfterChars: 7 }]);
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
      // The child holds until its preview reached the chat: without the part this never ends.
      if (chunk.type === "data-tool-progress") hold.release();
    }
    const part = chunks.find((c) => c.type === "data-tool-progress") as { id?: string; data: { toolCallId: string; toolName: string; data: SubAgentProgress } } | undefined;
    expect(part?.data).toMatchObject({ toolCallId: "u1", toolName: "tsub-researcher", data: { agent: "tsub-researcher", runId: childOf(threadId, "u1") } });
    expect(part!.data.data.text).toMatch(/^A short/);
    expect(chunks.indexOf(part as never)).toBeLessThan(chunks.findIndex((c) => c.type === "tool-output-available"));
  }, 30_000);
});

describe("a thread's sub-agent's answer across processes", () => {
  it.each([
    [
      "Redis",
      pairs.redis,
    ],
    ["a direct transport of the reader's own (it connects to the worker's endpoint)", pairs.direct],
  ] as const)("reaches a reader whose client has %s, mid-answer", async (_how, transports) => {
    const [onWorker, onReader] = await transports();
    cleanup.push(() => onWorker.close(), () => onReader.close());
    const { agents: published, taskQueue } = await h.worker([lead], { deferral: { secret: SECRET }, threads: { stream: { transport: onWorker } }, client: { stream: { transport: onWorker }, threads: { agent: lead } } });
    const reading = new AgentClient({ client: published.client, taskQueue, stream: { transport: onReader } });
    const threadId = uid("tsub-far");
    const hold = h.model.hold();
    h.model.script(threadId, [{ toolCalls: [{ id: "f1", name: "tsub-researcher", arguments: { prompt: `${threadId} far` } }] }, { text: "Far done." }]);
    h.model.script(`${threadId} far`, [{ text: "Answering from far away, slowly.", hold, holdAfterChars: 9 }]);
    await published.threads.createThread({ threadId });
    const reader = follow(threadId, reading.threads);
    await published.threads.sendMessage({ threadId, prompt: threadId });
    await hold.reached;
    await vi.waitFor(() => expect(childProgress(reader.updates(), "f1").at(-1)?.text).toMatch(/^Answering/), WAIT);
    expect(reader.updates().some((u) => u.type === "message" && u.message.role === "tool")).toBe(false);
    hold.release();
    await reader.done;
    expect(await published.threads.settled({ threadId })).toMatchObject({ status: "completed" });
  });
});

describe("a thread's sub-agent's gated call", () => {
  /** A thread whose turn delegates a payment to the payer, whose gated call then waits: its request as the thread shows it. */
  async function parkedPayment(threadId: string, callId: string) {
    h.model.script(threadId, [
      { toolCalls: [{ id: callId, name: "tsub-payer", arguments: { prompt: `${threadId} pay invoice 7` } }] },
      { check: (req) => expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: "Paid 7." }), text: "Invoice 7 is paid." },
    ]);
    h.model.script(`${threadId} pay invoice 7`, [{ toolCalls: [{ id: "pay-1", name: "pay", arguments: { amount: 7 } }] }, { text: "Paid 7." }]);
    await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const view = await vi.waitFor(
      async () => {
        const state = await threads.state({ threadId });
        expect(state.approvals).toHaveLength(1);
        return state;
      },
      { timeout: 20_000, interval: 50 },
    );
    return { view, request: view.approvals[0]! };
  }

  it("parks the child; its request shows in the thread's state and stream, and threads.decide lets the child and the turn go on", async () => {
    const threadId = uid("tsub-gate");
    const { view, request } = await parkedPayment(threadId, "p1");
    const child = childOf(threadId, "p1");
    expect(request).toMatchObject({ calls: [{ toolCallId: "pay-1", toolName: "pay", arguments: JSON.stringify({ amount: 7 }) }], subAgent: { agentId: "tsub-payer", runId: child, toolCallId: "p1" } });
    expect(view.toolCalls).toContainEqual(expect.objectContaining({ toolCallId: "p1", name: "tsub-payer", approvalId: request.approvalId }));
    expect((await threads.streamUpdates({ threadId })).updates.filter((u) => u.type === "approval-request")).toEqual([
      expect.objectContaining({ approvalId: request.approvalId, calls: request.calls, subAgent: request.subAgent }),
    ]);
    // Nothing ran before the decision: the child is parked on it.
    expect(paid.filter((p) => p.runId === child)).toEqual([]);
    expect((await agents.state({ runId: child })).status).toBe("deferred");

    // Answered as a resume of the child's run is: with the child's next settled state.
    expect(await threads.decide({ threadId, approvalId: request.approvalId, decisions: { "pay-1": { approved: true } }, principal: { id: "sam" } })).toMatchObject({
      status: "resumed",
      outcome: { status: "completed" },
    });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(paid.filter((p) => p.runId === child)).toEqual([{ runId: child, amount: 7 }]);
    expect(await threadToolResults(threadId)).toEqual(["Paid 7."]);
    expect((await threads.streamUpdates({ threadId })).updates.filter((u) => u.type === "approval-decided")).toEqual([expect.objectContaining({ approvalId: request.approvalId, outcome: "resumed" })]);
    // Decided once: a second decision, from the thread or the inbox, changes nothing.
    expect(await threads.decide({ threadId, approvalId: request.approvalId, decisions: { "pay-1": { approved: false, reason: "late" } } })).toMatchObject({ status: "duplicate" });
    expect(paid.filter((p) => p.runId === child)).toHaveLength(1);
    expect(await workflowTaskFailures(agents.client, threadId)).toEqual([]);
  });

  it("is listed in the inbox (its run's row, naming the thread as the waiting parent) and decided there", async () => {
    const threadId = uid("tsub-inbox");
    const { request } = await parkedPayment(threadId, "q1");
    const child = childOf(threadId, "q1");
    const row = await vi.waitFor(
      async () => {
        const found = (await agents.approvals.list({ requires: "payments:approve", limit: 1000 })).approvals.find((a) => a.approvalId === request.approvalId);
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(row).toMatchObject({ kind: "approval", runId: child, agentId: "tsub-payer", calls: [{ toolName: "pay" }] });
    await agents.approvals.decide({ approvalId: request.approvalId, decisions: [{ toolCallId: "pay-1", approved: true }] });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(paid.filter((p) => p.runId === child)).toEqual([{ runId: child, amount: 7 }]);
    await expect(threads.decide({ threadId, approvalId: request.approvalId, decisions: { "pay-1": { approved: true } } })).resolves.toMatchObject({ status: "duplicate" });
  });

  it("refuses threads.decide on a run the thread did not start, even under a sub-agent's id", async () => {
    const threadId = uid("tsub-forged");
    // Someone starts a run of their own under an id that looks like the thread's sub-agent's.
    const forged = childOf(threadId, "x1");
    h.model.script(`${forged} pay`, [{ toolCalls: [{ id: "pay-x", name: "pay", arguments: { amount: 1 } }] }, { text: "paid" }]);
    await threads.createThread({ threadId });
    const ack = await agents.run(payer, { prompt: `${forged} pay`, runId: forged });
    expect(ack.status).toBe("deferred");
    const approvalId = (ack as { deferralId: string }).deferralId;
    await expect(threads.decide({ threadId, approvalId, decisions: { "pay-x": { approved: true } } })).rejects.toMatchObject({ code: "RC5046" });
    expect(paid.filter((p) => p.runId === forged)).toEqual([]);
    await agents.cancel({ runId: forged });
  });

  it("is decided through the front door's thread route (the chat UI's approve), once", async () => {
    const threadId = uid("tsub-http");
    const { request } = await parkedPayment(threadId, "w1");
    const path = `/threads/${encodeURIComponent(threadId)}/approvals/${encodeURIComponent(request.approvalId)}`;
    const res = await http.call("POST", path, { user: "maria", body: { decisions: [{ toolCallId: "pay-1", approved: true }] } });
    expect(res).toMatchObject({ status: 200, body: { status: "resumed", outcome: { status: "completed" } } });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(paid.filter((p) => p.runId === childOf(threadId, "w1"))).toHaveLength(1);
    expect(await http.call("POST", path, { user: "maria", body: { decisions: [{ toolCallId: "pay-1", approved: true }] } })).toMatchObject({ status: 200, body: { status: "duplicate" } });
    expect(paid.filter((p) => p.runId === childOf(threadId, "w1"))).toHaveLength(1);
  });

  it("ignores sub-agent signals that are malformed or come from no child it runs: no request shows, nothing fails", async () => {
    const threadId = uid("tsub-signals");
    const { request } = await parkedPayment(threadId, "h1");
    const handle = agents.client.workflow.getHandle(threadId);
    const calls = [{ toolCallId: "evil", toolName: "pay", arguments: "{}" }];
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    for (const message of [
      null,
      "garbage",
      { agentId: "x", deferralId: 7, status: "deferred", expiresAt },
      { agentId: "x", deferralId: `dfr:9:${threadId}/agent/h1`, status: "deferred", expiresAt, calls: "not a list" },
      { agentId: "x", deferralId: `dfr:9:${threadId}/agent/h1`, status: "deferred", expiresAt, calls: [{ toolCallId: 1 }] },
      // Well formed, but from a run the thread does not run: not its request.
      { agentId: "x", deferralId: "dfr:1:someone-else", status: "deferred", expiresAt, calls },
      { agentId: "x", deferralId: `dfr:1:${threadId}/agent/zz`, status: "deferred", expiresAt, calls },
      // Its calls said decided in a shape no child sends, or calls it does not list: none shows decided.
      { agentId: "x", deferralId: request.approvalId, status: "deferred", expiresAt, calls, decided: "pay-1" },
      { agentId: "x", deferralId: request.approvalId, status: "deferred", expiresAt, calls, decided: [1] },
      { agentId: "x", deferralId: request.approvalId, status: "deferred", expiresAt, calls, decided: ["evil", "pay-2"] },
      // The real request said to be over by someone else's run: it stays.
      { agentId: "x", deferralId: "dfr:1:someone-else", status: "denied", expiresAt },
    ]) {
      await handle.signal(subAgentDeferralSignal, message as never);
    }
    const view = await threads.state({ threadId });
    expect(view.approvals).toEqual([request]);
    expect(await workflowTaskFailures(agents.client, threadId)).toEqual([]);
    await threads.decide({ threadId, approvalId: request.approvalId, decisions: { "pay-1": { approved: true } } });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
  });

  it("with two gated calls in one step is decided a call at a time: the decided call runs at once, the thread waits on the other, then answers once", async () => {
    const threadId = uid("tsub-partial");
    const child = childOf(threadId, "m1");
    const ask = `${threadId} pay invoices 3 and 4`;
    h.model.script(threadId, [
      { toolCalls: [{ id: "m1", name: "tsub-payer", arguments: { prompt: ask } }] },
      { check: (req) => expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: "Paid 4, not 3." }), text: "Invoice 4 is paid, 3 is not." },
    ]);
    h.model.script(ask, [
      { toolCalls: [{ id: "pay-3", name: "pay", arguments: { amount: 3 } }, { id: "pay-4", name: "pay", arguments: { amount: 4 } }] },
      // Both results (a run keeps them as they land), and the sub-agent's model is asked once, after the last decision.
      {
        check: (req) => expect(req.messages.filter((m) => m.role === "tool").map((m) => String(m.content))).toEqual(expect.arrayContaining(["paid 4", expect.stringMatching(/not owed/)])),
        text: "Paid 4, not 3.",
      },
    ]);
    await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const request = await vi.waitFor(
      async () => {
        const state = await threads.state({ threadId });
        expect(state.approvals).toHaveLength(1);
        return state.approvals[0]!;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(request).toMatchObject({ calls: [{ toolCallId: "pay-3" }, { toolCallId: "pay-4" }], subAgent: { runId: child, toolCallId: "m1" } });

    // The second call first: it runs now; the child stays parked on the same request for the other.
    expect(await threads.decide({ threadId, approvalId: request.approvalId, decisions: { "pay-4": { approved: true } }, principal: { id: "sam" } })).toMatchObject({
      status: "resumed",
      outcome: { status: "deferred", deferralId: request.approvalId },
    });
    expect(paid.filter((p) => p.runId === child)).toEqual([{ runId: child, amount: 4 }]);
    expect(await agents.approvals.get({ approvalId: request.approvalId })).toMatchObject({ status: "deferred", decided: ["pay-4"] });
    // The thread shows it decided (the child tells it by signal), and its readers get the request again with the call still waiting.
    const waiting = await vi.waitFor(
      async () => {
        const state = await threads.state({ threadId });
        expect(state.approvals).toEqual([expect.objectContaining({ approvalId: request.approvalId, decided: ["pay-4"] })]);
        return state;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(waiting.status).not.toBe("completed");
    expect((await threads.streamUpdates({ threadId })).updates.filter((u) => u.type === "approval-request").map((u) => (u as { calls: Array<{ toolCallId: string }> }).calls.map((c) => c.toolCallId))).toEqual([["pay-3", "pay-4"], ["pay-3"]]);
    expect(h.model.requests.filter((r) => r.messages.some((m) => m.content === ask))).toHaveLength(1);
    // Deciding it again changes nothing.
    expect(await threads.decide({ threadId, approvalId: request.approvalId, decisions: { "pay-4": { approved: true } } })).toMatchObject({ status: "duplicate" });
    expect(paid.filter((p) => p.runId === child)).toHaveLength(1);

    // The last call: the child's model goes on, and the thread's turn answers.
    expect(await threads.decide({ threadId, approvalId: request.approvalId, decisions: { "pay-3": { approved: false, reason: "not owed" } } })).toMatchObject({
      status: "resumed",
      outcome: { status: "completed" },
    });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(paid.filter((p) => p.runId === child)).toEqual([{ runId: child, amount: 4 }]);
    expect(await threadToolResults(threadId)).toEqual(["Paid 4, not 3."]);
    expect(await workflowTaskFailures(agents.client, threadId)).toEqual([]);
  });

  it("is denied when the thread is deleted while the child waits, and the thread closes", async () => {
    const threadId = uid("tsub-gate-delete");
    const { request } = await parkedPayment(threadId, "r1");
    const child = childOf(threadId, "r1");
    await threads.deleteThread({ threadId });
    await expect(agents.result({ runId: child })).rejects.toMatchObject({ code: "AI1005" });
    expect(await agents.deferrals.get({ deferralId: request.approvalId })).toMatchObject({ status: "denied" });
    await vi.waitFor(async () => expect((await threads.workflowHandle(threadId).describe()).status.name).toBe("COMPLETED"), { timeout: 20_000, interval: 100 });
    await expect(agents.approvals.decide({ approvalId: request.approvalId, decisions: [{ toolCallId: "pay-1", approved: true }] })).rejects.toMatchObject({ code: expect.stringMatching(/^(RC5046|RC5050|AI1020)$/) });
    expect(paid.filter((p) => p.runId === child)).toEqual([]);
  });
});

describe("a thread's stop and delete", () => {
  it("stop cancels the child; resume starts it again under the same id and the turn ends with its answer", async () => {
    const threadId = uid("tsub-stop");
    const hold = h.model.hold();
    h.model.script(threadId, [{ toolCalls: [{ id: "s1", name: "tsub-researcher", arguments: { prompt: `${threadId} slowly` } }] }, { text: "Done." }]);
    // The child started again asks as the first did (a new transcript): the hold is open by then.
    h.model.script(`${threadId} slowly`, [{ text: "Found it.", hold }]);
    await threads.createThread({ threadId, prompt: threadId });
    await hold.reached;
    const child = childOf(threadId, "s1");
    const first = (await agents.workflowHandle(child).describe()).runId;
    await threads.stopThread({ threadId });
    await expect(agents.result({ runId: child })).rejects.toMatchObject({ code: "AI1005" });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "stopped" });
    hold.release();
    await threads.resumeThread({ threadId });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(await threadToolResults(threadId)).toEqual(["Found it."]);
    expect((await agents.workflowHandle(child).describe()).runId).not.toBe(first);
  });

  it("delete cancels the child that runs, and the thread closes", async () => {
    const threadId = uid("tsub-delete");
    const hold = h.model.hold();
    h.model.script(threadId, [{ toolCalls: [{ id: "d1", name: "tsub-researcher", arguments: { prompt: `${threadId} forever` } }] }]);
    h.model.script(`${threadId} forever`, [{ text: "never sent", hold }]);
    await threads.createThread({ threadId, prompt: threadId });
    await hold.reached;
    await threads.deleteThread({ threadId });
    await expect(agents.result({ runId: childOf(threadId, "d1") })).rejects.toMatchObject({ code: "AI1005" });
    await vi.waitFor(async () => expect((await threads.workflowHandle(threadId).describe()).status.name).toBe("COMPLETED"), { timeout: 20_000, interval: 100 });
    hold.release();
  });
});
