/**
 * What a chat turn costs on Temporal, as its history shows it (reading history is free; the
 * action counts themselves are `npm run bench -- cost`, chat section): a later turn of a
 * thread is the message's update and the model call, with no preparation before it, and
 * still answers with the agent as the worker has it now.
 */
import { Client, Connection } from "@temporalio/client";
import proto from "@temporalio/proto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, ThreadsClient } from "../src/index.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { lookup, seen } from "./thread-support.js";

const { EventType } = proto.temporal.api.enums.v1;
const CLOSE_EVENT = proto.temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT;

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** The thread's history as event type names, oldest first. */
async function eventTypes(agents: { threads: { workflowHandle(id: string): { fetchHistory(): Promise<proto.temporal.api.history.v1.IHistory> } } }, threadId: string): Promise<string[]> {
  const history = await agents.threads.workflowHandle(threadId).fetchHistory();
  return (history.events ?? []).map((e) => EventType[e.eventType ?? 0]!.replace(/^EVENT_TYPE_/, ""));
}

describe("a later turn", () => {
  it("is the message's update and one model call: no preparation, no marker (a marker batch is a billed action)", async () => {
    const agent = defineAgent({ id: "cost-later", model: "gpt-4.1-mini", system: "You answer briefly." });
    const { agents } = await h.worker([agent]);
    const threadId = uid("later turn");
    h.model.respond(threadId, (request) => ({ text: `answer to ${String(request.messages.at(-1)?.content)}` }));
    await agents.threads.createThread({ threadId, prompt: threadId, agent });
    await agents.threads.settled({ threadId });
    const firstTurn = (await eventTypes(agents, threadId)).length;

    await agents.threads.sendMessage({ threadId, prompt: "and then?" });
    const done = await agents.threads.settled({ threadId });
    expect(done.status).toBe("completed");
    expect((await agents.threads.listMessages({ threadId })).messages.at(-1)).toMatchObject({ role: "assistant", content: "answer to and then?" });
    const later = (await eventTypes(agents, threadId)).slice(firstTurn);
    expect(later.filter((t) => t === "MARKER_RECORDED")).toEqual([]);
    expect(later.filter((t) => t === "ACTIVITY_TASK_SCHEDULED")).toHaveLength(1);
    expect(later.filter((t) => t === "WORKFLOW_EXECUTION_UPDATE_ACCEPTED")).toHaveLength(1);
  });

  it("answers with the agent as the worker has it now: a maxTurns lowered by a redeploy between turns holds for the next turn", async () => {
    const id = `cost-evolving-${uid("agent")}`;
    const before = defineAgent({ id, model: "gpt-4.1-mini", system: "You look words up.", tools: [lookup], maxTurns: 4 });
    const after = defineAgent({ id, model: "gpt-4.1-mini", system: "You look words up.", tools: [lookup], maxTurns: 1 });
    const threadId = uid("redeployed");
    h.model.respond(threadId, (request) => {
      const last = request.messages.at(-1)!;
      if (last.role === "tool") return { text: `the tool said ${String(last.content)}` };
      return last.content === "look it up" ? { toolCalls: [{ name: "lookup", arguments: { word: "hello" } }] } : { text: "hello" };
    });
    const first = await h.worker([before]);
    await first.agents.threads.createThread({ threadId, prompt: threadId, agent: before });
    await first.agents.threads.settled({ threadId });
    first.worker.shutdown();
    await first.running;

    // The same task queue, the agent redeployed with one model call a turn: the thread's next turn is served here, and stops after its first step.
    const second = await h.worker([after], { taskQueue: first.taskQueue });
    await second.agents.threads.sendMessage({ threadId, prompt: "look it up" });
    const done = await second.agents.threads.settled({ threadId });
    expect(done).toMatchObject({ status: "failed", lastError: { code: "AI1004" } });
    expect(seen.filter((s) => s.tool === "lookup" && s.threadId === threadId).map((s) => s.event)).toEqual(["ran"]);
  });
});

describe("waiting for a turn", () => {
  it("asks the worker twice, however many steps the turn takes: once to see it at rest, once for its state", async () => {
    // Each query is an activation of the thread on a worker, as busy as the turn it waits on.
    // Between a call's end and the next call's start the thread has a workflow task under
    // way, whose completion moves the history: settled() waits for that move, not the worker.
    const agent = defineAgent({ id: "cost-settled", model: "gpt-4.1-mini", system: "You look words up.", tools: [lookup], maxTurns: 10 });
    const { taskQueue } = await h.worker([agent]);
    const threadId = uid("settled queries");
    const LOOKUPS = 8;
    h.model.respond(threadId, (request) => {
      const lastUser = request.messages.map((m) => m.role).lastIndexOf("user");
      const done = Math.floor((request.messages.length - 1 - lastUser) / 2);
      return done < LOOKUPS ? { toolCalls: [{ name: "lookup", arguments: { word: `word${done}` } }] } : { text: `looked up ${LOOKUPS} words` };
    });
    const queries: string[] = [];
    const client = new Client({
      connection: h.connection,
      namespace: h.namespace,
      interceptors: { workflow: [{ query: (input, next) => (queries.push(input.queryType), next(input)) }] },
    });
    const threads = new ThreadsClient({ client, taskQueue, agent });
    await threads.createThread({ threadId, prompt: threadId });
    await threads.settled({ threadId });

    await threads.sendMessage({ threadId, prompt: "look them up" });
    queries.length = 0;
    const done = await threads.settled({ threadId });
    const asked = [...queries];
    expect(done.lastError).toBeUndefined();
    expect(done.status).toBe("completed");
    expect((await threads.listMessages({ threadId })).messages.at(-1)).toMatchObject({ role: "assistant", content: `looked up ${LOOKUPS} words` });
    // One look at rest: the wait follows the history between, and counts what is under way
    // from its events, so the count does not depend on how busy the worker is. It was one
    // per step before: 7 or 8 for these 17 calls.
    expect(asked.filter((q) => q === "__temporal_workflow_metadata")).toHaveLength(1);
    expect(asked.filter((q) => q !== "__temporal_workflow_metadata")).toEqual(["durable-agents.thread.snapshot"]);
  });
});

describe("a wait when the namespace's long-polls are all taken", () => {
  it("goes on by describes: the server's RESOURCE_EXHAUSTED for the history's long-poll is no failure of settled()", async () => {
    // Temporal bounds the long-polls a namespace holds at once (frontend.namespaceCount,
    // workers' polls included): past it the server refuses one, as this connection does here.
    const agent = defineAgent({ id: "cost-settled-exhausted", model: "gpt-4.1-mini", system: "You look words up.", tools: [lookup], maxTurns: 5 });
    const { taskQueue } = await h.worker([agent]);
    const threadId = uid("exhausted");
    h.model.respond(threadId, (request) => (request.messages.some((m) => m.role === "tool") ? { text: "looked it up" } : { toolCalls: [{ name: "lookup", arguments: { word: "poll" } }] }));
    const connection = await Connection.connect({ address: inject("temporalAddress") });
    const service = connection.workflowService;
    const read = service.getWorkflowExecutionHistory.bind(service);
    let refused = 0;
    service.getWorkflowExecutionHistory = ((request: proto.temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryRequest) => {
      if (request.waitNewEvent && request.historyEventFilterType !== CLOSE_EVENT) {
        refused++;
        return Promise.reject(Object.assign(new Error("8 RESOURCE_EXHAUSTED: namespace concurrent poller limit exceeded"), { code: 8, details: "namespace concurrent poller limit exceeded", metadata: {} }));
      }
      return read(request);
    }) as typeof service.getWorkflowExecutionHistory;
    try {
      const threads = new ThreadsClient({ client: new Client({ connection, namespace: h.namespace }), taskQueue, agent });
      await threads.createThread({ threadId, prompt: threadId });
      const done = await threads.settled({ threadId });
      expect(done.status).toBe("completed");
      expect((await threads.listMessages({ threadId })).messages.at(-1)).toMatchObject({ role: "assistant", content: "looked it up" });
      expect(refused).toBeGreaterThan(0);
    } finally {
      await connection.close();
    }
  });
});

describe("giving up a wait", () => {
  it("settled({ signal }) rejects with the signal's reason while the turn goes on, and a later wait still sees it end", async () => {
    const agent = defineAgent({ id: "cost-settled-abort", model: "gpt-4.1-mini", system: "You answer briefly." });
    const { agents } = await h.worker([agent]);
    const threadId = uid("given up");
    const hold = h.model.hold();
    h.model.script(threadId, [{ text: "at last", hold }]);
    await agents.threads.createThread({ threadId, prompt: threadId, agent });
    await hold.reached;
    const controller = new AbortController();
    const waiting = agents.threads.settled({ threadId, signal: controller.signal });
    const reason = new Error("the caller left");
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    // An aborted signal refuses a wait at once.
    await expect(agents.threads.settled({ threadId, signal: controller.signal })).rejects.toBe(reason);
    hold.release();
    expect((await agents.threads.settled({ threadId })).status).toBe("completed");
    expect((await agents.threads.listMessages({ threadId })).messages.at(-1)).toMatchObject({ role: "assistant", content: "at last" });
  });
});

describe("waiting for a turn of a long thread", () => {
  it("waits by describes once the history outgrew what a wait reads whole: it still settles, reading none of it", async () => {
    // Following by long-poll reads the history from its first event once per wait; a run of a
    // thread grows to about 4 MB before it continues as new, too much to read for every turn.
    const page = defineTool({ name: "page", description: "Reads a 300 KB page", input: z.object({ n: z.number() }), handler: ({ n }) => `${n}:${"p".repeat(300_000)}` });
    const agent = defineAgent({ id: "cost-settled-long", model: "gpt-4.1-mini", system: "You read pages.", tools: [page], maxTurns: 5 });
    const { taskQueue } = await h.worker([agent]);
    const threadId = uid("settled long");
    h.model.respond(threadId, (request) => {
      const read = request.messages.filter((m) => m.role === "tool").length;
      const asked = String(request.messages.at(-1)?.content ?? "");
      return read < 2 ? { toolCalls: [{ name: "page", arguments: { n: read } }] } : { text: `read ${read} pages; ${asked.slice(0, 20)}` };
    });
    const connection = await Connection.connect({ address: inject("temporalAddress") });
    const historyReads: string[] = [];
    const service = connection.workflowService;
    const read = service.getWorkflowExecutionHistory.bind(service);
    // Reads of every event (a watch for the thread's close would ask for the close event alone).
    service.getWorkflowExecutionHistory = ((request: proto.temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryRequest) => {
      if (request.historyEventFilterType !== CLOSE_EVENT) historyReads.push(request.execution?.workflowId ?? "");
      return read(request);
    }) as typeof service.getWorkflowExecutionHistory;
    try {
      const threads = new ThreadsClient({ client: new Client({ connection, namespace: h.namespace }), taskQueue, agent });
      await threads.createThread({ threadId, prompt: threadId });
      await threads.settled({ threadId });
      const size = (await threads.workflowHandle(threadId).describe()).historySize ?? 0;
      expect(size).toBeGreaterThan(600_000);

      await threads.sendMessage({ threadId, prompt: "and again" });
      historyReads.length = 0;
      const done = await threads.settled({ threadId });
      expect(done.status).toBe("completed");
      expect((await threads.listMessages({ threadId })).messages.at(-1)).toMatchObject({ role: "assistant", content: "read 2 pages; and again" });
      expect(historyReads.filter((id) => id === threadId)).toEqual([]);
    } finally {
      await connection.close();
    }
  });
});

