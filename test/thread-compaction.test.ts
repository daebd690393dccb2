/**
 * Threads that compact their own memory (`defineAgent({ compaction })`): past the point a
 * thread used to be refused with AI1018 it keeps answering, the model reads a summary and
 * the newest turns, and `listMessages` still pages back to the first original message.
 * The summarizer is a real model call (the scripted OpenAI server) in an activity.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ArchivedMessagesGoneError, defineAgent, jsonBytes, THREAD_TRANSCRIPT_BYTES, type StreamUpdate, type ThreadMessage } from "../src/index.js";
import type { ChatRequest } from "../src/testing/index.js";
import { startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";
import { lookup, replayFailures, threadRig, type ThreadRig } from "./thread-support.js";

let h: Harness;
let rig: ThreadRig;

const SUMMARIZER = "You are the test's summarizer.";
const compactor = defineAgent({
  id: "compactor",
  model: "gpt-4.1-mini",
  system: "You chat.",
  tools: [lookup],
  compaction: { keepTurns: 2, atRoom: 0.3, summarizer: { model: "summary-model", system: SUMMARIZER } },
});
// Compacts small transcripts (an estimated 60 tokens), keeping only the turn it answers.
const eager = defineAgent({ id: "eager-compactor", model: "gpt-4.1-mini", system: "You chat.", tools: [lookup], compaction: { keepTurns: 1, maxInputTokens: 60, summarizer: { system: SUMMARIZER } } });

/** What each thread's summarizer answers (by the thread's tag in the text it is sent); a summary of the turns by default. */
const summarizerReplies = new Map<string, (request: ChatRequest) => { text?: string; errors?: Array<400> }>();
const summarizerRequests: ChatRequest[] = [];
const lastUser = (request: ChatRequest) => String([...request.messages].reverse().find((m) => m.role === "user")?.content ?? "");

beforeAll(async () => {
  h = await startHarness();
  rig = await threadRig(h, [compactor, eager]);
  h.model.respondToAny((request) => {
    if (request.messages[0]?.content === SUMMARIZER) {
      summarizerRequests.push(request);
      const text = String(request.messages[1]!.content);
      for (const [tag, reply] of summarizerReplies) if (text.includes(tag)) return reply(request);
      return { text: `summary of ${(text.match(/user: /g) ?? []).length} user messages` };
    }
    const last = [...request.messages].reverse().find((m) => m.role !== "system");
    // A lookup is asked for by a message that starts "look up"; its result is answered.
    if (last?.role === "user" && String(last.content).startsWith("look up")) return { toolCalls: [{ name: "lookup", arguments: { word: "compaction" } }] };
    return { text: `answer to ${lastUser(request).slice(0, 24)}` };
  });
});
afterAll(() => h?.close());

/** Every message listMessages pages through, system messages included. */
async function everyMessage(threadId: string): Promise<{ messages: ThreadMessage[]; total: number }> {
  const messages: ThreadMessage[] = [];
  let total = 0;
  for (let cursor: string | undefined = "0"; cursor !== undefined; ) {
    const page = await rig.threads.listMessages({ threadId, cursor, limit: 7, excludeSystemMessages: false });
    messages.push(...page.messages);
    total = page.total;
    cursor = page.cursor;
  }
  return { messages, total };
}

const compactedEntries = async (threadId: string) =>
  (await rig.threads.streamUpdates({ threadId })).updates.filter((u): u is Extract<StreamUpdate, { type: "compacted" }> => u.type === "compacted");

describe("a thread that compacts its memory", () => {
  it("keeps answering 100 KB turns past its room, the model reads the summary and the kept turns, and listMessages pages back to the first message", async () => {
    const threadId = uid("long-thread");
    const prompt = (i: number) => `turn ${i} of ${threadId} ${"x".repeat(100_000)}`;
    const turns = 16;
    // 1.6 MB of messages: without compaction the thread refuses one with AI1018 before the end.
    expect(turns * 100_000).toBeGreaterThan(THREAD_TRANSCRIPT_BYTES);
    // A small event budget: the thread continues as new between compactions, so originals sit in closed runs' histories.
    await rig.threads.createThread({ threadId, agent: compactor, prompt: prompt(1), maxHistoryEvents: 60 });
    expect(await rig.threads.settled({ threadId })).toMatchObject({ status: "completed" });
    for (let i = 2; i <= turns; i++) {
      await rig.threads.sendMessage({ threadId, prompt: prompt(i) });
      expect(await rig.threads.settled({ threadId })).toMatchObject({ status: "completed" });
    }
    const view = await rig.threads.state({ threadId });
    expect(view.generation).toBeGreaterThan(0);
    expect(view.compactionError).toBeUndefined();

    // The summarizer used its own model and prompt, and was given whole turns, oldest first.
    const mine = summarizerRequests.filter((r) => String(r.messages[1]!.content).includes(threadId));
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(mine.every((r) => r.model === "summary-model")).toBe(true);
    expect(String(mine[0]!.messages[1]!.content)).toContain(`user: turn 1 of ${threadId}`);
    // A later compaction summarises the earlier summary with the turns that followed it.
    expect(String(mine[1]!.messages[1]!.content)).toContain("[summary of what came before]");

    // What the model read for the last turn: its system prompt, the summary, the two kept turns.
    const last = h.model.requests.filter((r) => r.messages[0]?.content === "You chat." && lastUser(r).startsWith(`turn ${turns} of ${threadId}`)).at(-1)!;
    const roles = last.messages.map((m) => m.role);
    expect(roles[0]).toBe("system");
    // The summary speaks as the assistant's notes, never as the operator (a system message).
    expect(roles[1]).toBe("assistant");
    expect(roles.filter((r) => r === "system")).toHaveLength(1);
    expect(String(last.messages[1]!.content)).toMatch(/^Summary of the earlier conversation:\nsummary of \d+ user messages$/);
    const users = last.messages.filter((m) => m.role === "user").map((m) => String(m.content));
    expect(users.at(-1)).toBe(prompt(turns));
    expect(users.length).toBeLessThanOrEqual(3);
    expect(jsonBytes(last.messages)).toBeLessThan(0.3 * THREAD_TRANSCRIPT_BYTES + 110_000);

    // The stream said so, with the bytes it freed.
    const entries = await compactedEntries(threadId);
    expect(entries.length).toBeGreaterThanOrEqual(1);
    for (const e of entries) expect(e.bytesAfter).toBeLessThan(e.bytesBefore);

    // Nothing lost: every original message pages back, in order, then the summary, then the kept turns.
    const { messages, total } = await everyMessage(threadId);
    expect(messages).toHaveLength(total);
    const userTurns = messages.filter((m) => m.role === "user").map((m) => Number(/^turn (\d+) of/.exec(String(m.content))![1]));
    expect(userTurns).toEqual(Array.from({ length: turns }, (_, i) => i + 1));
    const summaries = messages.filter((m) => String(m.content).startsWith("Summary of the earlier conversation:"));
    expect(messages.filter((m) => m.role === "assistant" && !summaries.includes(m))).toHaveLength(turns);
    expect(summaries).toHaveLength(1);
    // The summary opens what the thread holds now (`messageCount`); the archived originals come before it.
    expect(messages.indexOf(summaries[0]!)).toBe(total - view.messageCount);
    // Ids are the ones the messages had: the first page's first message is the thread's first.
    expect(messages[0]!.content).toBe(prompt(1));

    expect(await workflowTaskFailures(rig.threads.client, threadId)).toEqual([]);
    expect(await replayFailures(h, rig.threads, [threadId])).toEqual([]);
  });

  it("never splits a tool call from its result: an old turn that is only a call and its result is compacted whole", async () => {
    const threadId = uid("tool-turn");
    await rig.threads.createThread({ threadId, agent: eager, prompt: `look up for ${threadId}` });
    expect(await rig.threads.settled({ threadId })).toMatchObject({ status: "completed" });
    // A reader following the thread (on the worker's stream transport) sees the compaction as it happens.
    const { lastSeq } = await rig.threads.state({ threadId });
    const followed: StreamUpdate[] = [];
    const reading = (async () => {
      const done = (u: StreamUpdate) => u.type === "status" && u.status === "completed";
      for await (const batch of rig.threads.followUpdates({ threadId, fromSeq: lastSeq, pollInterval: 50, until: (b) => b.updates.some(done) })) followed.push(...batch.updates);
    })();
    await rig.threads.sendMessage({ threadId, prompt: `next ${threadId}` });
    expect(await rig.threads.settled({ threadId })).toMatchObject({ status: "completed" });
    await reading;
    expect(followed.filter((u) => u.type === "compacted")).toMatchObject([{ compactedMessages: 4, keptTurns: 1 }]);
    const sent = summarizerRequests.filter((r) => String(r.messages[1]!.content).includes(`look up for ${threadId}`));
    expect(sent).toHaveLength(1);
    const text = String(sent[0]!.messages[1]!.content);
    // The call and its result went together into the summary; the kept turn starts at its user message.
    expect(text).toContain("[calls lookup");
    expect(text).toContain("[result of call_0_0] compaction means 10 letters");
    const { messages } = await everyMessage(threadId);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "assistant", "user", "assistant"]);
    expect(messages[4]!.content).toMatch(/^Summary of the earlier conversation:\n/);
    expect((await rig.threads.state({ threadId })).messageCount).toBe(3);
  });
});

describe("a summarizer that misbehaves changes nothing", () => {
  const cases: Array<[string, (request: ChatRequest) => { text?: string; errors?: Array<400> }, string]> = [
    ["fails", () => ({ errors: [400] }), "AI1003"],
    ["answers nothing", () => ({ text: "   " }), "AI1031"],
    ["answers more than it replaces", (request) => ({ text: "y".repeat(String(request.messages[1]!.content).length * 2) }), "AI1031"],
  ];
  for (const [what, reply, code] of cases) {
    it(`keeps the whole transcript and answers when the summarizer ${what} (${code})`, async () => {
      const threadId = uid("bad-summary");
      summarizerReplies.set(threadId, reply);
      await rig.threads.createThread({ threadId, agent: eager, prompt: `first ${threadId}` });
      await rig.threads.settled({ threadId });
      await rig.threads.sendMessage({ threadId, prompt: `second ${threadId}` });
      const view = await rig.threads.settled({ threadId });
      // The turn answered with everything it had: nothing was compacted.
      expect(view).toMatchObject({ status: "completed", messageCount: 4, compactionError: { code } });
      expect((await everyMessage(threadId)).messages.map((m) => m.content)).toEqual([`first ${threadId}`, `answer to first ${threadId}`.slice(0, 34), `second ${threadId}`, `answer to second ${threadId}`.slice(0, 34)]);
      expect(await compactedEntries(threadId)).toEqual([]);
      const asked = summarizerRequests.filter((r) => String(r.messages[1]!.content).includes(threadId));
      // Tried once in the turn (a failing summarizer is not asked again at every step).
      expect(asked).toHaveLength(1);
      expect(await workflowTaskFailures(rig.threads.client, threadId)).toEqual([]);
    });
  }
});

describe("compacted originals whose run's history is gone", () => {
  it("reads AI1030 with what to do when listMessages pages into them, later pages still read, and the thread keeps answering", async () => {
    const threadId = uid("gone-originals");
    const { client } = rig.threads;
    const { namespace } = client.options;
    const describe = async () => (await client.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId: threadId } })).workflowExecutionInfo!;
    // Compacts from its second turn on; a small event budget makes it continue as new after that.
    await rig.threads.createThread({ threadId, agent: eager, prompt: `turn 1 of ${threadId}`, maxHistoryEvents: 60 });
    await rig.threads.settled({ threadId });
    let turn = 1;
    for (let info = await describe(); info.firstRunId === info.execution!.runId; info = await describe()) {
      if (++turn > 20) throw new Error("the thread never continued as new");
      await rig.threads.sendMessage({ threadId, prompt: `turn ${turn} of ${threadId}` });
      await rig.threads.settled({ threadId });
    }
    expect((await compactedEntries(threadId)).length + (await rig.threads.state({ threadId })).generation).toBeGreaterThan(0);

    // What retention does to a closed run: every execution before the current one is deleted.
    const current = (await describe()).execution!.runId!;
    const closed: string[] = [];
    for (let runId = (await describe()).firstRunId!; runId !== current; ) {
      closed.push(runId);
      const page = await client.workflowService.getWorkflowExecutionHistory({ namespace, execution: { workflowId: threadId, runId }, historyEventFilterType: 2 /* close event */ });
      runId = page.history!.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes!.newExecutionRunId!;
    }
    expect(closed.length).toBeGreaterThan(0);
    for (const runId of closed) await client.workflowService.deleteWorkflowExecution({ namespace, workflowExecution: { workflowId: threadId, runId } });
    // Deleting is a task the server runs later: the dev server took 20 to 35 s here.
    await vi.waitFor(async () => {
      await expect(client.workflowService.getWorkflowExecutionHistory({ namespace, execution: { workflowId: threadId, runId: closed[0]! } })).rejects.toMatchObject({ code: 5 });
    }, { timeout: 90_000, interval: 100 });

    // The first page reaches originals archived in a deleted run: AI1030, saying which run and what to do.
    const gone = await rig.threads.listMessages({ threadId, cursor: "0", limit: 5 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(gone).toBeInstanceOf(ArchivedMessagesGoneError);
    expect(gone).toMatchObject({ code: "AI1030", fields: { threadId, offset: 0 } });
    expect(closed).toContain((gone as ArchivedMessagesGoneError).fields.runId);
    expect((gone as Error).message).toMatch(/no longer retains.*read the later pages, or raise the namespace's retention period/);
    // What the thread holds now (the summary and the kept turns) still reads, from where it starts.
    const view = await rig.threads.state({ threadId });
    const { total } = await rig.threads.listMessages({ threadId, cursor: "999999999", limit: 1 });
    const held = await rig.threads.listMessages({ threadId, cursor: String(total - view.messageCount), limit: 50, excludeSystemMessages: false });
    expect(held.messages[0]!.content).toMatch(/^Summary of the earlier conversation:\n/);
    expect(held.messages.at(-1)!.content).toBe(`answer to turn ${turn} of ${threadId}`.slice(0, 34));

    // The thread keeps answering.
    await rig.threads.sendMessage({ threadId, prompt: `after ${threadId}` });
    expect(await rig.threads.settled({ threadId })).toMatchObject({ status: "completed" });
    const after = await rig.threads.listMessages({ threadId, cursor: String(total), limit: 50 });
    expect(after.messages.at(-1)?.content).toBe(`answer to after ${threadId}`.slice(0, 34));
    expect(await workflowTaskFailures(client, threadId)).toEqual([]);
  });
});
