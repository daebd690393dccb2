import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DeferInThreadError, MaxTurnsError, ThreadAlreadyExistsError, ThreadNotFoundError, ThreadNotResumableError } from "../src/index.js";
import { MOVED_ON } from "../workflows/threads/state.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { replayFailures, seen, threadRig, type ThreadRig } from "./thread-support.js";

let h: Harness;
let rig: ThreadRig;

beforeAll(async () => {
  h = await startHarness();
  rig = await threadRig(h);
});
afterAll(() => h?.close());

// The whole transcript, system messages included (listMessages leaves them out by default).
const roles = async (threadId: string) => (await rig.threads.listMessages({ threadId, excludeSystemMessages: false })).messages.map((m) => m.role);
const texts = async (threadId: string) => (await rig.threads.listMessages({ threadId, excludeSystemMessages: false })).messages.map((m) => m.content);

describe("the thread status machine", () => {
  it("starts idle, takes added messages without a turn, and runs idle → streaming → completed on a message", async () => {
    const { threads } = rig;
    const first = uid("hello");
    h.model.script(first, [{ text: "hi there" }]);
    const { threadId } = await threads.createThread();
    expect((await threads.state({ threadId })).status).toBe("idle");

    await threads.addMessage({ threadId, message: { role: "system", content: "Be brief." }, trustTranscript: true });
    expect(await threads.state({ threadId })).toMatchObject({ status: "idle", messageCount: 1 });

    const sent = await threads.sendMessage({ threadId, prompt: first });
    expect(sent).toMatchObject({ queued: false, duplicate: false });
    const settled = await threads.settled({ threadId });
    expect(settled).toMatchObject({ status: "completed", messageCount: 3, modelCalls: 1 });
    expect(await texts(threadId)).toEqual(["Be brief.", first, "hi there"]);
    // By default a page leaves the system message out (and still counts it in `total`).
    expect(await rig.threads.listMessages({ threadId })).toMatchObject({ total: 3, messages: [{ content: first }, { content: "hi there" }] });
    expect(rig.transitions(threadId)).toEqual(["idle→streaming", "streaming→completed"]);

    // The same message id again is recognised, not sent twice.
    expect(await threads.sendMessage({ threadId, prompt: first, messageId: sent.messageId })).toMatchObject({ duplicate: true });
    expect((await threads.state({ threadId })).messageCount).toBe(3);
    h.model.assertNoFailures();
  });

  it("goes streaming → awaiting_tool_results → streaming → completed through a tool call", async () => {
    const prompt = uid("define two words");
    h.model.script(prompt, [
      { toolCalls: [{ name: "lookup", arguments: { word: "cat" } }, { name: "lookup", arguments: { word: "horse" } }] },
      {
        check: (req) => expect(req.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["cat means 3 letters", "horse means 5 letters"]),
        text: "cat is 3, horse is 5",
      },
    ]);
    const { threadId } = await rig.threads.createThread({ prompt, principal: { id: "ana" } });
    const settled = await rig.threads.settled({ threadId });
    expect(settled.status).toBe("completed");
    expect(await roles(threadId)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
    expect(rig.transitions(threadId)).toEqual([
      "idle→streaming",
      "streaming→awaiting_tool_results",
      "awaiting_tool_results→streaming",
      "streaming→completed",
    ]);
    expect(seen.filter((s) => s.threadId === threadId).map((s) => s.principal)).toEqual(["ana", "ana"]);
    h.model.assertNoFailures();
  });

  it("queues messages sent while a turn runs and answers each in its own turn, in order", async () => {
    const first = uid("slow question");
    // The first answer waits until both messages were sent and seen queued.
    const hold = h.model.hold();
    h.model.script(first, [{ hold, text: "answer one" }, { text: "answer two" }, { text: "answer three" }]);
    const { threadId } = await rig.threads.createThread({ prompt: first });
    const second = await rig.threads.sendMessage({ threadId, prompt: "second" });
    const third = await rig.threads.sendMessage({ threadId, prompt: "third" });
    expect([second.queued, third.queued]).toEqual([true, true]);
    const during = await rig.threads.state({ threadId });
    expect(during.status).toBe("streaming");
    expect(during.queued.map((q) => q.id)).toEqual([second.messageId, third.messageId]);
    hold.release();

    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
    expect(await texts(threadId)).toEqual([first, "answer one", "second", "answer two", "third", "answer three"]);
    expect(rig.transitions(threadId)).toEqual([
      "idle→streaming",
      "streaming→completed",
      "completed→streaming",
      "streaming→completed",
      "completed→streaming",
      "streaming→completed",
    ]);
    h.model.assertNoFailures();
  });

  it("stops mid-stream: the model request is aborted at the server, the partial answer is dropped, and resume answers", async () => {
    const prompt = uid("long story");
    const story = "Once upon a time there was a durable thread that streamed its answer, and was stopped halfway.";
    // The first attempt stops writing part-way and is never let go: only the stop ends it.
    const hold = h.model.hold();
    h.model.respond(prompt, (req) => (req.attempt === 0 ? { text: story, hold, holdAfterChars: 24 } : { text: story }));
    const { threadId } = await rig.threads.createThread({ prompt });
    // Mid-answer: the model has written part of it and waits.
    await hold.reached;
    const stop = await rig.threads.stopThread({ threadId });
    expect(stop).toEqual({ status: "stopped", previousStatus: "streaming" });
    await vi.waitFor(() => expect(h.model.aborted.filter((a) => a.conversation === prompt)).toHaveLength(1), { timeout: 10_000, interval: 50 });

    const stopped = await rig.threads.state({ threadId });
    expect(stopped.status).toBe("stopped");
    expect(await roles(threadId)).toEqual(["user"]);
    const stream = await rig.threads.streamUpdates({ threadId });
    expect(stream.updates.some((u) => u.type === "reset" && u.reason === "stopped")).toBe(true);
    expect(stream.updates.some((u) => u.type === "text-delta")).toBe(false);

    expect(await rig.threads.resumeThread({ threadId })).toEqual({ status: "streaming", previousStatus: "stopped" });
    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
    expect(await texts(threadId)).toEqual([prompt, story]);
    expect(rig.transitions(threadId)).toEqual(["idle→streaming", "streaming→stopped", "stopped→streaming", "streaming→completed"]);
    h.model.assertNoFailures();
  });

  it("stops running tools at once (their signal fires) and resume runs them again", async () => {
    const prompt = uid("run a slow job");
    h.model.script(prompt, [{ toolCalls: [{ name: "slowTask", arguments: { job: "report" } }] }, { text: "the report is done" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    const events = () => seen.filter((s) => s.threadId === threadId).map((s) => s.event);
    await vi.waitFor(() => expect(events()).toEqual(["started"]), { timeout: 20_000, interval: 50 });
    expect(await rig.threads.stopThread({ threadId })).toEqual({ status: "stopped", previousStatus: "awaiting_tool_results" });
    await vi.waitFor(() => expect(events()).toEqual(["started", "aborted"]), { timeout: 10_000, interval: 50 });
    expect((await rig.threads.state({ threadId })).toolCalls).toMatchObject([{ name: "slowTask", kind: "sync", state: "pending" }]);

    await rig.threads.resumeThread({ threadId });
    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
    expect(await texts(threadId)).toEqual([prompt, null, "report done", "the report is done"]);
    expect(rig.transitions(threadId)).toEqual([
      "idle→streaming",
      "streaming→awaiting_tool_results",
      "awaiting_tool_results→stopped",
      "stopped→awaiting_tool_results",
      "awaiting_tool_results→streaming",
      "streaming→completed",
    ]);
    h.model.assertNoFailures();
  });

  it("a new message after a stop moves on: the interrupted call gets a result and a new turn runs", async () => {
    const prompt = uid("another slow job");
    h.model.script(prompt, [
      { toolCalls: [{ name: "slowTask", arguments: { job: "audit" } }] },
      { check: (req) => expect(req.messages.slice(-2).map((m) => m.content)).toEqual([MOVED_ON, "never mind"]), text: "ok, dropped it" },
    ]);
    const { threadId } = await rig.threads.createThread({ prompt });
    await vi.waitFor(() => expect(seen.some((s) => s.threadId === threadId && s.event === "started")).toBe(true), { timeout: 20_000, interval: 50 });
    await rig.threads.stopThread({ threadId });
    await rig.threads.sendMessage({ threadId, prompt: "never mind" });
    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
    expect(await roles(threadId)).toEqual(["user", "assistant", "tool", "user", "assistant"]);
    expect(rig.transitions(threadId).slice(-3)).toEqual(["awaiting_tool_results→stopped", "stopped→streaming", "streaming→completed"]);
    h.model.assertNoFailures();
  });

  it("fails a turn the model refuses for good (streaming → failed) and resumes it after the fix", async () => {
    const prompt = uid("bad key");
    h.model.script(prompt, [{ errors: [401], text: "works now" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    const failed = await rig.threads.settled({ threadId });
    expect(failed.status).toBe("failed");
    expect(failed.lastError).toMatchObject({ code: "AI1003", message: expect.stringMatching(/HTTP 401/) });
    expect(h.model.requests.filter((r) => r.conversation === prompt)).toHaveLength(1);

    expect(await rig.threads.resumeThread({ threadId })).toEqual({ status: "streaming", previousStatus: "failed" });
    const done = await rig.threads.settled({ threadId });
    expect(done.status).toBe("completed");
    expect(done.lastError).toBeUndefined();
    expect(await texts(threadId)).toEqual([prompt, "works now"]);
    expect(rig.transitions(threadId)).toEqual(["idle→streaming", "streaming→failed", "failed→streaming", "streaming→completed"]);
  });

  it("resume has nothing to continue on a completed thread (AI1024) unless given a prompt", async () => {
    const prompt = uid("one and done");
    h.model.script(prompt, [{ text: "done" }, { text: "again" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    await rig.threads.settled({ threadId });
    const err = await rig.threads.resumeThread({ threadId }).catch((e: unknown) => e);
    expect(ThreadNotResumableError.isInstance(err)).toBe(true);
    expect(await rig.threads.resumeThread({ threadId, prompt: "once more" })).toEqual({ status: "streaming", previousStatus: "completed" });
    await rig.threads.settled({ threadId });
    expect(await texts(threadId)).toEqual([prompt, "done", "once more", "again"]);
  });

  it("an idle thread created without autoStart waits for resumeThread", async () => {
    const prompt = uid("not yet");
    h.model.script(prompt, [{ text: "now" }]);
    const { threadId } = await rig.threads.createThread({ prompt, autoStart: false });
    expect(await rig.threads.state({ threadId })).toMatchObject({ status: "idle", messageCount: 1 });
    expect(await rig.threads.resumeThread({ threadId })).toEqual({ status: "streaming", previousStatus: "idle" });
    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
  });

  it("refuses ctx.defer() inside a thread turn (awaiting_tool_results → failed, AI1023); resume runs the call again (failed → awaiting_tool_results)", async () => {
    const prompt = uid("try to defer");
    h.model.script(prompt, [
      { toolCalls: [{ name: "deferrer", arguments: {} }] },
      { check: (req) => expect(req.messages.at(-1)?.content).toBe("answered without deferring"), text: "fine without it" },
    ]);
    const { threadId } = await rig.threads.createThread({ prompt });
    const failed = await rig.threads.settled({ threadId });
    expect(failed.status).toBe("failed");
    expect(failed.lastError?.code).toBe(DeferInThreadError.code);
    expect(failed.lastError?.message).toMatch(/AgentClient\.run\(\).*defineAsyncTool\(\)/);
    expect(failed.toolCalls).toMatchObject([{ name: "deferrer", state: "pending" }]);

    expect(await rig.threads.resumeThread({ threadId })).toEqual({ status: "awaiting_tool_results", previousStatus: "failed" });
    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
    expect(rig.transitions(threadId)).toEqual([
      "idle→streaming",
      "streaming→awaiting_tool_results",
      "awaiting_tool_results→failed",
      "failed→awaiting_tool_results",
      "awaiting_tool_results→streaming",
      "streaming→completed",
    ]);
    h.model.assertNoFailures();
  });

  it("starts from a transcript that ends in tool calls: idle → awaiting_tool_results runs them first", async () => {
    const prompt = uid("carry on");
    h.model.script(prompt, [
      // The scripted server counts turns by assistant messages: the given transcript already has one.
      { text: "never asked" },
      { check: (req) => expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: "owl means 3 letters" }), text: "an owl has 3 letters" },
    ]);
    const { threadId } = await rig.threads.createThread({
      messages: [
        { role: "user", content: prompt },
        { role: "assistant", content: null, tool_calls: [{ id: "call_given", type: "function", function: { name: "lookup", arguments: '{"word":"owl"}' } }] },
      ],
      // Built here, not taken from a user: the open call it ends with is ours to run.
      trustTranscript: true,
    });
    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
    expect(await roles(threadId)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(rig.transitions(threadId)).toEqual(["idle→awaiting_tool_results", "awaiting_tool_results→streaming", "streaming→completed"]);
    h.model.assertNoFailures();
  });

  it("fails a turn that uses all of the agent's maxTurns with AI1004; the next message gets a fresh budget", async () => {
    const prompt = uid("loop");
    const step = { toolCalls: [{ name: "lookup", arguments: { word: "x" } }] };
    h.model.script(prompt, [step, step, step, step, { text: "fresh budget" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    const failed = await rig.threads.settled({ threadId });
    expect(failed).toMatchObject({ status: "failed", modelCalls: 4, lastError: { code: MaxTurnsError.code } });
    await rig.threads.sendMessage({ threadId, prompt: "just answer" });
    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
  });

  it("refuses a taken thread id (AI1025), lists threads and pages messages, and deletes for good (AI1020)", async () => {
    const prompt = uid("to be deleted");
    h.model.script(prompt, [{ text: "bye" }]);
    const threadId = uid("named-thread");
    await rig.threads.createThread({ threadId, prompt });
    expect(ThreadAlreadyExistsError.isInstance(await rig.threads.createThread({ threadId }).catch((e: unknown) => e))).toBe(true);
    await rig.threads.settled({ threadId });

    const first = await rig.threads.listMessages({ threadId, limit: 1 });
    expect(first).toMatchObject({ total: 2, cursor: "1", messages: [{ role: "user", content: prompt }] });
    const second = await rig.threads.listMessages({ threadId, cursor: first.cursor!, limit: 1 });
    expect(second.cursor).toBeUndefined();
    expect(second.messages).toMatchObject([{ role: "assistant", content: "bye" }]);

    await vi.waitFor(async () => expect((await rig.threads.listThreads({ limit: 100 })).threads.map((t) => t.threadId)).toContain(threadId), {
      timeout: 10_000,
    });
    expect(await rig.threads.deleteThread({ threadId })).toEqual({ deleted: true });
    const err = await rig.threads.state({ threadId }).catch((e: unknown) => e);
    expect(ThreadNotFoundError.isInstance(err)).toBe(true);
    await vi.waitFor(async () => expect((await rig.threads.listThreads({ limit: 100 })).threads.map((t) => t.threadId)).not.toContain(threadId), {
      timeout: 10_000,
    });
    expect(ThreadNotFoundError.isInstance(await rig.threads.sendMessage({ threadId, prompt: "hello?" }).catch((e: unknown) => e))).toBe(true);
  });

  it("every thread above replays against the current workflow code (stops, failures and resumes included)", async () => {
    const { threads } = await rig.threads.listThreads({ limit: 100 });
    expect(threads.length).toBeGreaterThan(5);
    expect(await replayFailures(h, rig.threads, threads.map((t) => t.threadId))).toEqual([]);
  });
});
