import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AsyncToolOutsideThreadError, ThreadMessageInvalidError, ToolCallNotFoundError, defineAgent, type ThreadMessage } from "../src/index.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { answerTokenOf, askHuman, chatAgent, lookup, release, seen, threadRig, type ThreadRig } from "./thread-support.js";

let h: Harness;
let rig: ThreadRig;

beforeAll(async () => {
  h = await startHarness();
  rig = await threadRig(h);
});
afterAll(() => h?.close());

/** Creates a thread whose model calls askHuman first; resolves once the callback ran and the thread waits. */
async function waitingThread(prompt: string, second: Parameters<Harness["model"]["script"]>[1][number]) {
  h.model.script(prompt, [{ toolCalls: [{ name: "askHuman", arguments: { question: "ship it?" } }] }, second]);
  const { threadId } = await rig.threads.createThread({ prompt });
  await vi.waitFor(async () => expect((await rig.threads.getThread({ threadId })).toolCalls).toMatchObject([{ state: "waiting" }]), {
    timeout: 20_000,
    interval: 50,
  });
  const asked = seen.filter((s) => s.threadId === threadId && s.tool === "askHuman");
  expect(asked).toHaveLength(1);
  return { threadId, toolCallId: asked[0]!.toolCallId, asked: asked[0]!, answerToken: asked[0]!.token! };
}

describe("async tools in a thread", () => {
  it("run their callback durably, wait in awaiting_tool_results, and continue when the result is added", async () => {
    const prompt = uid("ask a human");
    const { threadId, toolCallId, asked, answerToken } = await waitingThread(prompt, {
      check: (req) => expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: JSON.stringify({ approved: true, by: "maria" }) }),
      text: "approved by maria, shipping",
    });
    expect(asked).toMatchObject({ event: "asked: ship it?", key: `${threadId}/${toolCallId}` });
    const waiting = await rig.threads.getThread({ threadId });
    expect(waiting).toMatchObject({ status: "awaiting_tool_results", toolCalls: [{ toolCallId, name: "askHuman", kind: "async", state: "waiting" }] });

    expect(await rig.threads.addToolResult({ threadId, toolCallId, result: { approved: true, by: "maria" }, answerToken })).toEqual({ status: "accepted", toolCallId });
    const done = await rig.threads.waitUntilSettled({ threadId });
    expect(done.status).toBe("completed");
    expect(done.toolCalls).toEqual([]);
    expect(rig.transitions(threadId)).toEqual([
      "idle→streaming",
      "streaming→awaiting_tool_results",
      "awaiting_tool_results→streaming",
      "streaming→completed",
    ]);
    h.model.assertNoFailures();
  });

  it("hand an added error to the model as a tool error", async () => {
    const prompt = uid("ask and be refused");
    const { threadId, toolCallId, answerToken } = await waitingThread(prompt, {
      check: (req) => expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: "Error: maria is on holiday" }),
      text: "nobody could approve",
    });
    expect(await rig.threads.addToolError({ threadId, toolCallId, error: "maria is on holiday", answerToken })).toEqual({ status: "accepted", toolCallId });
    expect((await rig.threads.waitUntilSettled({ threadId })).status).toBe("completed");
    h.model.assertNoFailures();
  });

  it("answer a duplicate result with `duplicate` and an unknown or sync call id with AI1022, changing nothing", async () => {
    const prompt = uid("duplicates");
    h.model.script(prompt, [
      { toolCalls: [{ name: "slowTask", arguments: { job: "count" } }, { name: "askHuman", arguments: { question: "and?" } }] },
      { text: "done" },
    ]);
    const { threadId } = await rig.threads.createThread({ prompt });
    await vi.waitFor(
      async () => expect((await rig.threads.getThread({ threadId })).toolCalls).toMatchObject([{ name: "slowTask", state: "running" }, { name: "askHuman", state: "waiting" }]),
      { timeout: 20_000, interval: 50 },
    );
    const assistant = (await rig.threads.listMessages({ threadId })).messages[1] as Extract<ThreadMessage, { role: "assistant" }>;
    const [syncCall, asyncCall] = assistant.tool_calls!;
    const answerToken = answerTokenOf(threadId, asyncCall!.id);
    const before = await rig.threads.listMessages({ threadId });

    const unknown = await rig.threads.addToolResult({ threadId, toolCallId: "call_nope", result: "x", answerToken }).catch((e: unknown) => e);
    expect(ToolCallNotFoundError.isInstance(unknown)).toBe(true);
    expect((unknown as ToolCallNotFoundError).fields).toMatchObject({ toolCallId: "call_nope", reason: "no call with this id" });
    const sync = await rig.threads.addToolError({ threadId, toolCallId: syncCall!.id, error: "x", answerToken }).catch((e: unknown) => e);
    expect(ToolCallNotFoundError.isInstance(sync)).toBe(true);
    expect((sync as Error).message).toMatch(/sync tool "slowTask"/);
    const notJson = await rig.threads.addToolResult({ threadId, toolCallId: asyncCall!.id, result: new Date() as never, answerToken }).catch((e: unknown) => e);
    expect(ThreadMessageInvalidError.isInstance(notJson)).toBe(true);
    expect(await rig.threads.listMessages({ threadId })).toEqual(before);

    expect(await rig.threads.addToolResult({ threadId, toolCallId: asyncCall!.id, result: "yes", answerToken })).toMatchObject({ status: "accepted" });
    expect((await rig.threads.getThread({ threadId })).toolCalls).toMatchObject([{ state: "running" }, { state: "answered" }]);
    expect(await rig.threads.addToolResult({ threadId, toolCallId: asyncCall!.id, result: "twice", answerToken })).toMatchObject({ status: "duplicate" });
    release(threadId);
    await rig.threads.waitUntilSettled({ threadId });
    const after = await rig.threads.listMessages({ threadId });
    expect(await rig.threads.addToolResult({ threadId, toolCallId: asyncCall!.id, result: "again", answerToken })).toEqual({ status: "duplicate", toolCallId: asyncCall!.id });
    expect(await rig.threads.addToolError({ threadId, toolCallId: asyncCall!.id, error: "late", answerToken })).toMatchObject({ status: "duplicate" });
    expect(await rig.threads.listMessages({ threadId })).toEqual(after);
    // Results join the transcript in the model's call order, whatever order they came in.
    expect(after.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["count done slowly", "yes"]);
    h.model.assertNoFailures();
  });

  it("keep a result added while the thread is stopped; resume continues with it", async () => {
    const prompt = uid("stopped while waiting");
    const { threadId, toolCallId, answerToken } = await waitingThread(prompt, { text: "got it after the stop" });
    expect(await rig.threads.stopThread({ threadId })).toEqual({ status: "stopped", previousStatus: "awaiting_tool_results" });
    expect(await rig.threads.addToolResult({ threadId, toolCallId, result: "late yes", answerToken })).toMatchObject({ status: "accepted" });
    expect((await rig.threads.getThread({ threadId })).status).toBe("stopped");
    await rig.threads.resumeThread({ threadId });
    expect((await rig.threads.waitUntilSettled({ threadId })).status).toBe("completed");
    // The callback ran once: a resume does not notify the human again.
    expect(seen.filter((s) => s.threadId === threadId && s.tool === "askHuman")).toHaveLength(1);
    h.model.assertNoFailures();
  });

  it("fail an agent run that calls them with AI1026", async () => {
    const runAgent = defineAgent({ id: "asyncInRun", model: "m", system: "s", tools: [askHuman, lookup] });
    const { agents } = await h.worker([runAgent, chatAgent], { deferral: { secret: SECRET } });
    const prompt = uid("async in a run");
    h.model.script(prompt, [{ toolCalls: [{ name: "askHuman", arguments: { question: "?" } }] }]);
    const err = await agents.run(runAgent, { prompt }).catch((e: unknown) => e);
    expect(AsyncToolOutsideThreadError.isInstance(err)).toBe(true);
  });
});
