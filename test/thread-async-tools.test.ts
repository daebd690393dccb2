import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  AsyncToolOutsideThreadError,
  DeferralSecretError,
  ResumeTokenError,
  ThreadMessageInvalidError,
  ToolCallNotFoundError,
  defineAgent,
  defineAsyncTool,
  type ThreadMessage,
} from "../src/index.js";
import type { ThreadToolResultRequest } from "../src/core/thread-contracts.js";
import { threadToolResultUpdate } from "../src/core/wire/thread.js";
import { proofOf } from "../src/core/proof.js";
import { createToolWorker } from "../src/worker.js";
import { mintAnswerToken, mintResumeToken } from "../src/deferral/token.js";
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
  await vi.waitFor(async () => expect((await rig.threads.state({ threadId })).toolCalls).toMatchObject([{ state: "waiting" }]), {
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
    const waiting = await rig.threads.state({ threadId });
    expect(waiting).toMatchObject({ status: "awaiting_tool_results", toolCalls: [{ toolCallId, name: "askHuman", kind: "async", state: "waiting" }] });

    expect(await rig.threads.addToolResult({ threadId, toolCallId, result: { approved: true, by: "maria" }, answerToken })).toEqual({ status: "accepted", toolCallId });
    const done = await rig.threads.settled({ threadId });
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
    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
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
      async () => expect((await rig.threads.state({ threadId })).toolCalls).toMatchObject([{ name: "slowTask", state: "running" }, { name: "askHuman", state: "waiting" }]),
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
    expect((await rig.threads.state({ threadId })).toolCalls).toMatchObject([{ state: "running" }, { state: "answered" }]);
    expect(await rig.threads.addToolResult({ threadId, toolCallId: asyncCall!.id, result: "twice", answerToken })).toMatchObject({ status: "duplicate" });
    release(threadId);
    await rig.threads.settled({ threadId });
    const after = await rig.threads.listMessages({ threadId });
    expect(await rig.threads.addToolResult({ threadId, toolCallId: asyncCall!.id, result: "again", answerToken })).toEqual({ status: "duplicate", toolCallId: asyncCall!.id });
    expect(await rig.threads.addToolError({ threadId, toolCallId: asyncCall!.id, error: "late", answerToken })).toMatchObject({ status: "duplicate" });
    // A sync call's id stays AI1022 once it has its result: it never took one from a client.
    const answeredSync = await rig.threads.addToolResult({ threadId, toolCallId: syncCall!.id, result: "late", answerToken: undefined }).catch((e: unknown) => e);
    expect(ToolCallNotFoundError.isInstance(answeredSync)).toBe(true);
    expect((answeredSync as Error).message).toMatch(/sync tool "slowTask"/);
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
    expect((await rig.threads.state({ threadId })).status).toBe("stopped");
    await rig.threads.resumeThread({ threadId });
    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
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

/** Releases the callbacks of slowAsk waiting in a thread. */
const callbackGate = new Map<string, () => void>();
const slowAsk = defineAsyncTool({
  name: "slowAsk",
  description: "Asks a human; notifying takes a while",
  input: z.object({ question: z.string() }),
  callback: async (_input, ctx) => {
    seen.push({ tool: "slowAsk", threadId: ctx.threadId, toolCallId: ctx.toolCallId, event: "notifying", attempt: ctx.attempt, token: ctx.answerToken });
    await new Promise<void>((resolve) => callbackGate.set(ctx.threadId, resolve));
  },
});

describe("answer tokens of async calls", () => {
  /** Everything an answer could change or write: refused ones must leave all of it as it was. */
  const stateOf = async (threadId: string) => ({
    messages: await rig.threads.listMessages({ threadId }),
    view: await rig.threads.state({ threadId }),
    events: (await rig.threads.workflowHandle(threadId).fetchHistory()).events?.length,
  });
  const refusal = (err: unknown) => {
    expect(ResumeTokenError.isInstance(err), String(err)).toBe(true);
    return (err as ResumeTokenError).fields;
  };
  /** The update as any client could send it, without ThreadsClient's own checks. */
  const rawAnswer = (threadId: string, request: Record<string, unknown>) =>
    rig.threads.workflowHandle(threadId).executeUpdate(threadToolResultUpdate, { args: [request as unknown as ThreadToolResultRequest] });

  it("are refused (RC5041) when wrong, a resume token, another call's, or malformed, and the thread is unchanged", async () => {
    const { threadId, toolCallId, answerToken } = await waitingThread(uid("tokens"), { text: "answered" });
    const other = await waitingThread(uid("another call"), { text: "answered too" });
    const before = await stateOf(threadId);

    const [version, kid, claims] = answerToken.split(".");
    const forged = `${version}.${kid}.${claims}.${Buffer.alloc(32, 7).toString("base64url")}`;
    const binding = { namespace: h.namespace, workflowId: threadId, firstRunId: (await rig.threads.workflowHandle(threadId).describe()).runId };
    const resumeToken = mintResumeToken(SECRET, "deferral-1", toolCallId, { binding });
    const selfMinted = mintAnswerToken("another-secret-0123456789-abcdefghijkl", toolCallId, binding);

    // Well-shaped tokens the thread did not hand out for this call: the validator refuses their proofs.
    for (const token of [forged, selfMinted, other.answerToken]) {
      expect(refusal(await rig.threads.addToolResult({ threadId, toolCallId, result: "x", answerToken: token }).catch((e: unknown) => e)).reason).toMatch(/does not match/);
      expect(refusal(await rig.threads.addToolError({ threadId, toolCallId, error: "x", answerToken: token }).catch((e: unknown) => e)).reason).toMatch(/does not match/);
    }
    // A resume token and malformed values never leave the client...
    for (const token of [resumeToken, null, 42, "x".repeat(100_000), "", {}]) {
      const err = await rig.threads.addToolResult({ threadId, toolCallId, result: "x", answerToken: token as never }).catch((e: unknown) => e);
      expect(refusal(err)).toMatchObject({ token: "answer" });
    }
    // ...and the workflow refuses them too, from a client that skips those checks.
    for (const proof of [undefined, null, 42, "x".repeat(100_000), proofOf(resumeToken), proofOf(other.answerToken), answerToken]) {
      await expect(rawAnswer(threadId, { toolCallId, result: "x", proof })).rejects.toMatchObject({ cause: { type: "RC5041" } });
    }
    expect(await stateOf(threadId)).toEqual(before);

    // The right token still works afterwards: refusals spent nothing.
    expect(await rig.threads.addToolResult({ threadId, toolCallId, result: "yes", answerToken })).toEqual({ status: "accepted", toolCallId });
    expect((await rig.threads.settled({ threadId })).status).toBe("completed");
    await rig.threads.addToolResult({ threadId: other.threadId, toolCallId: other.toolCallId, result: "ok", answerToken: other.answerToken });
  });

  it("are one call's alone: a later call the model gives the same id gets its own token and key, and the earlier token cannot answer it", async () => {
    const prompt = uid("reused id");
    const ask = { toolCalls: [{ name: "askHuman", id: "call_1", arguments: { question: "approve?" } }] };
    h.model.script(prompt, [ask, { text: "first settled" }, ask, { text: "second settled" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    const waitingFor = (n: number) =>
      vi.waitFor(
        async () => {
          expect(seen.filter((s) => s.threadId === threadId && s.tool === "askHuman")).toHaveLength(n);
          expect((await rig.threads.state({ threadId })).toolCalls).toMatchObject([{ toolCallId: "call_1", state: "waiting" }]);
        },
        { timeout: 20_000, interval: 50 },
      );
    await waitingFor(1);
    const first = seen.filter((s) => s.threadId === threadId && s.tool === "askHuman")[0]!;
    await rig.threads.addToolResult({ threadId, toolCallId: "call_1", result: "yes, customer", answerToken: first.token! });
    await rig.threads.settled({ threadId });
    await rig.threads.sendMessage({ threadId, prompt: "now ask the manager" });
    await waitingFor(2);
    const second = seen.filter((s) => s.threadId === threadId && s.tool === "askHuman")[1]!;
    expect(second.token).not.toBe(first.token);
    expect(second.key).toBe(`${threadId}/call_1#2`);
    expect(first.key).toBe(`${threadId}/call_1`);
    // The customer's old link does not answer the manager's call.
    const before = await stateOf(threadId);
    expect(refusal(await rig.threads.addToolResult({ threadId, toolCallId: "call_1", result: "yes, customer again", answerToken: first.token! }).catch((e: unknown) => e)).reason).toMatch(/does not match/);
    expect(await stateOf(threadId)).toEqual(before);
    expect(await rig.threads.addToolResult({ threadId, toolCallId: "call_1", result: "yes, manager", answerToken: second.token! })).toEqual({ status: "accepted", toolCallId: "call_1" });
    expect(await rig.threads.settled({ threadId })).toMatchObject({ status: "completed" });
  });

  it("refuse an answer that comes before the callback finished with retryLater; the same answer is accepted once it has", async () => {
    const slow = await threadRig(h, [defineAgent({ id: "slowAsker", model: "m", system: "s", tools: [slowAsk] })]);
    const prompt = uid("early answer");
    h.model.script(prompt, [{ toolCalls: [{ name: "slowAsk", arguments: { question: "quick?" } }] }, { text: "got the early one" }]);
    const { threadId } = await slow.threads.createThread({ prompt });
    await vi.waitFor(() => expect(seen.some((s) => s.threadId === threadId && s.tool === "slowAsk")).toBe(true), { timeout: 20_000, interval: 50 });
    const { toolCallId, token } = seen.find((s) => s.threadId === threadId && s.tool === "slowAsk")!;
    const answer = () => slow.threads.addToolResult({ threadId, toolCallId, result: "yes", answerToken: token });

    const before = await slow.threads.listMessages({ threadId });
    expect(refusal(await answer().catch((e: unknown) => e))).toMatchObject({ token: "answer", retryLater: true });
    expect(await slow.threads.listMessages({ threadId })).toEqual(before);

    callbackGate.get(threadId)!();
    await vi.waitFor(async () => expect(await answer()).toEqual({ status: "accepted", toolCallId }), { timeout: 20_000, interval: 100 });
    expect((await slow.threads.settled({ threadId })).status).toBe("completed");
  });

  it("need the deferral secret: a worker whose agents have async tools is refused at creation without one (RC5040)", async () => {
    const err = await h.worker([chatAgent]).catch((e: unknown) => e);
    expect(DeferralSecretError.isInstance(err), String(err)).toBe(true);
    expect((err as Error).message).toMatch(/async tool "askHuman"/);
    // A tool worker needs it only for the async tools on its own queue.
    const queued = defineAsyncTool({ name: "queuedAsk", description: "d", input: z.object({}), queue: "approvals", callback: () => undefined });
    const agent = defineAgent({ id: "queuedAsker", model: "m", system: "s", tools: [queued] });
    const toolWorker = await createToolWorker({ connection: h.native, namespace: h.namespace, taskQueue: "approvals", agents: [agent], concurrency: 1 }).catch((e: unknown) => e);
    expect(DeferralSecretError.isInstance(toolWorker), String(toolWorker)).toBe(true);
  });
});
