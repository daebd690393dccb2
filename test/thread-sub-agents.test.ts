/**
 * Sub-agents in chat threads: a thread's agent lists others in `agents`, as a run's does; its
 * model calls one as a tool and the thread starts that agent as a Temporal child workflow
 * (`<threadId>/agent/<toolCallId>`), whose final answer is the call's result in the turn. The
 * child's turns and tokens count in the turn's; what goes wrong in it is a tool error the
 * thread's model reads (with its code); a huge answer is cut to the call's share of the
 * thread's room; a stop or a delete of the thread reaches the child.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { UIMessageChunk } from "ai";
import { AgentClient, defineAgent, defineTool, ThreadsClient, type ChatMessage, type StreamSnapshot, type StreamUpdate, type SubAgentProgress } from "../src/index.js";
import { ThreadChatTransport } from "../src/react.js";
import { SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";
import { openEvents, startHttp, type HttpServer } from "./http-support.js";

const lookup = defineTool({ name: "lookup", description: "Looks a fact up", input: z.object({ topic: z.string() }), handler: ({ topic }) => `${topic}: 42` });
const researcher = defineAgent({ id: "tsub-researcher", description: "Finds facts", model: "gpt-4.1-mini", system: "You research.", tools: [lookup], maxTurns: 4 });
/** Allowed one turn: any tool call it makes ends it in AI1004. */
const hasty = defineAgent({ id: "tsub-hasty", model: "gpt-4.1-mini", system: "You hurry.", tools: [lookup], maxTurns: 1 });
const lead = defineAgent({ id: "tsub-lead", model: "gpt-4.1-mini", system: "You chat and delegate.", agents: [researcher, hasty], maxTurns: 8 });

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;
let http: HttpServer;

beforeAll(async () => {
  h = await startHarness();
  // Only the lead is listed: its sub-agents are registered with it, as for runs.
  ({ agents } = await h.worker([lead], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, threads: { agent: lead } } }));
  threads = agents.threads;
  http = await startHttp({ agents, events: { pollInterval: 50 } });
});
afterAll(async () => {
  await http?.close();
  await h?.close();
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
    expect(offered.map((t) => t.function.name)).toEqual(["tsub-researcher", "tsub-hasty"]);
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

function follow(threadId: string) {
  const batches: StreamSnapshot[] = [];
  const ended = (u: StreamUpdate) => u.type === "status" && ["completed", "failed", "stopped"].includes(u.status);
  const done = (async () => {
    for await (const batch of threads.followUpdates({ threadId, pollInterval: 50, until: (b) => b.updates.some(ended) })) batches.push(batch);
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
