/**
 * A thread's state and the logic behind its handlers, without a server: transcript and
 * result ordering, the inbox, stop / resume / tool results, queries, what continue-as-new
 * carries, and the status hook's announcements. The thread-* integration tests cover the
 * same through Temporal.
 */
import { ActivityFailure, ApplicationFailure, RetryState } from "@temporalio/common";
import { describe, expect, it } from "vitest";
import { type ThreadInput } from "../../src/workflow.js";
import { type ThreadStatusChange } from "../../src/index.js";
import { type ThreadPrepared } from "../../src/core/thread-contracts.js";
import { nextRunInput } from "../../workflows/threads/carry.js";
import { ThreadControls } from "../../workflows/threads/controls.js";
import { failureOf } from "../../workflows/threads/failure.js";
import { ThreadInbox } from "../../workflows/threads/inbox.js";
import { ThreadQueries } from "../../workflows/threads/queries.js";
import type { ThreadRuntime } from "../../workflows/threads/runtime.js";
import { MOVED_ON, ThreadState } from "../../workflows/threads/state.js";
import { codeOf } from "./code-of.js";
import { proofOf, resumeDigest } from "../../src/core/proof.js";

class FakeThreadRuntime implements ThreadRuntime {
  readonly threadId = "thread-1";
  readonly firstRunId = "run-0";
  readonly announced: ThreadStatusChange[] = [];
  historyLength = 5;
  suggested = false;
  #ids = 0;
  #tick = 0;
  now = () => new Date(Date.UTC(2026, 0, 1, 0, 0, this.#tick++)).toISOString();
  uuid = () => `id-${++this.#ids}`;
  history = () => ({ length: this.historyLength, continueAsNewSuggested: this.suggested });
  statusChanged = async (change: ThreadStatusChange) => void this.announced.push(change);
}

const prepared = (over: Partial<ThreadPrepared> = {}): ThreadPrepared => ({
  hash: "h",
  maxTurns: 4,
  timeouts: { startToCloseMs: 1000, heartbeatMs: 100 },
  tools: { lookup: { async: false, maxAttempts: 1 }, askHuman: { async: true, maxAttempts: 1 } },
  modelMaxAttempts: 3,
  statusHook: true,
  ...over,
});
const call = (id: string, name = "lookup") => ({ id, type: "function" as const, function: { name, arguments: "{}" } });

function threadOf(input: Partial<ThreadInput> = {}) {
  const runtime = new FakeThreadRuntime();
  const thread = new ThreadState({ version: 1, agentId: "chat", ...input }, runtime);
  return { runtime, thread, inbox: new ThreadInbox(thread), controls: new ThreadControls(thread), queries: new ThreadQueries(thread) };
}

/** A thread whose turn asked for tool calls `ids`, none answered yet. */
function awaitingTools(ids: string[], names: string[] = ids.map(() => "lookup")) {
  const t = threadOf({ prompt: { id: "p1", content: "hi" } });
  t.thread.append({ role: "assistant", content: null, tool_calls: ids.map((id, i) => call(id, names[i])) });
  t.thread.setStatus("awaiting_tool_results");
  return t;
}

describe("a thread's state", () => {
  it("starts its first turn at once when the prompt asks for an answer, and holds status changes until the worker says it has a hook", async () => {
    const { thread, runtime } = threadOf({ prompt: { id: "p1", content: "hi" } });
    expect(thread.status).toBe("streaming");
    expect(thread.messages).toMatchObject([{ id: "p1", role: "user", content: "hi" }]);
    thread.setStatus("completed");
    expect(runtime.announced).toEqual([]);
    thread.prepare(prepared());
    await thread.localChain;
    expect(runtime.announced.map((c) => `${c.previousStatus}→${c.status}`)).toEqual(["idle→streaming", "streaming→completed"]);
  });

  it("drops status changes when the worker has no hook, and stays idle without autoStart", async () => {
    const { thread, runtime } = threadOf({ prompt: { id: "p1", content: "hi" }, autoStart: false });
    expect(thread.status).toBe("idle");
    thread.setStatus("streaming");
    thread.prepare(prepared({ statusHook: false }));
    thread.prepare({ unchanged: true } as never);
    await thread.localChain;
    expect(runtime.announced).toEqual([]);
    expect(thread.prepared?.statusHook).toBe(false);
  });

  it("lands results in the model's call order, whatever order they finish in", () => {
    const { thread } = awaitingTools(["a", "b", "c"]);
    expect(thread.answer("c", "C")).toBe(true);
    expect(thread.answer("b", "B")).toBe(true);
    expect(thread.messages.filter((m) => m.role === "tool")).toEqual([]);
    expect(thread.answered("c")).toBe(true);
    expect(thread.answer("a", "A")).toBe(true);
    expect(thread.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["A", "B", "C"]);
    expect(thread.answer("a", "again")).toBe(false);
    expect(thread.answer("unknown", "x")).toBe(false);
  });

  it("closes open calls with their own result when it came in, else with the one given", () => {
    const { thread } = awaitingTools(["a", "b"]);
    thread.answer("b", "B");
    thread.closeOpenCalls(MOVED_ON);
    expect(thread.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([MOVED_ON, "B"]);
    expect(thread.held.size).toBe(0);
  });

  it("rolls over when Temporal suggests it or the event budget is spent, never in a fresh run", () => {
    const { thread, runtime } = threadOf({ maxHistoryEvents: 30 });
    runtime.suggested = true;
    expect(thread.rollover.due()).toBe(false);
    runtime.historyLength = 25;
    expect(thread.rollover.due()).toBe(true);
    runtime.suggested = false;
    expect(thread.rollover.due()).toBe(false);
    runtime.historyLength = 30;
    expect(thread.rollover.due()).toBe(true);
  });

  it("carries everything to its next run, which starts one generation later with the same view", () => {
    const { thread, queries } = awaitingTools(["a", "b"], ["lookup", "askHuman"]);
    thread.asyncCalls.set("b", { toolCallId: "b", name: "askHuman", callbackDone: true });
    thread.answer("b", "B");
    thread.inbox.push({ id: "m2", kind: "message", message: { role: "user", content: "next" }, at: "t" });
    const next = new ThreadState(nextRunInput(thread), new FakeThreadRuntime());
    const { generation, ...rest } = new ThreadQueries(next).snapshot();
    expect(generation).toBe(1);
    expect({ ...queries.snapshot(), generation: undefined }).toEqual({ ...rest, generation: undefined });
    expect(next.sentLength).toBe(thread.messages.length);
  });
});

describe("the inbox", () => {
  it("adds to an idle thread at once, queues while a turn runs, and sends an id once", () => {
    const { thread, inbox } = threadOf();
    expect(inbox.send({ id: "a1", kind: "add", message: { role: "user", content: "context" } })).toEqual({ messageId: "a1", queued: false, duplicate: false });
    expect(inbox.send({ id: "m1", kind: "message", message: { role: "user", content: "go" } })).toMatchObject({ queued: false });
    expect(inbox.send({ id: "m1", kind: "message", message: { role: "user", content: "go" } })).toEqual({ messageId: "m1", queued: true, duplicate: true });
    expect(inbox.canTakeNext()).toBe(true);
    inbox.takeNext();
    expect(thread.status).toBe("streaming");
    expect(inbox.send({ id: "m2", kind: "message", message: { role: "user", content: "more" } })).toMatchObject({ queued: true });
    expect(inbox.canTakeNext()).toBe(false);
    expect(thread.messages.map((m) => m.id)).toEqual(["a1", "m1"]);
  });

  it("a message to a halted thread moves on: open calls get a result", () => {
    const { thread, inbox, controls } = awaitingTools(["a"]);
    controls.stop();
    inbox.send({ id: "m2", kind: "message", message: { role: "user", content: "never mind" } });
    expect(thread.halted).toBe(false);
    expect(thread.messages.at(-1)).toMatchObject({ role: "tool", content: MOVED_ON });
  });

  it("refuses a message without an id, a non-user sendMessage and a deleted thread", async () => {
    const { inbox, controls } = threadOf();
    expect(await codeOf(() => inbox.validate({ id: "", kind: "message", message: { role: "user", content: "x" } }))).toBe("AI1027");
    expect(await codeOf(() => inbox.validate({ id: "m", kind: "message", message: { role: "assistant", content: "x" } }))).toBe("AI1027");
    expect(await codeOf(() => inbox.validate({ id: "m", kind: "message", message: { role: "user", content: "x" } }))).toBe("no error");
    controls.delete();
    expect(await codeOf(() => inbox.validate({ id: "m", kind: "message", message: { role: "user", content: "x" } }))).toBe("AI1020");
  });
});

describe("stop, resume and tool results", () => {
  it("stop halts a running turn and cancels its scope; resume runs the open calls again", () => {
    const { thread, controls } = awaitingTools(["a"]);
    let cancelled = 0;
    thread.turnStarted({ cancel: () => void cancelled++ } as never);
    expect(controls.stop()).toEqual({ status: "stopped", previousStatus: "awaiting_tool_results" });
    expect(cancelled).toBe(1);
    expect(controls.stop()).toEqual({ status: "stopped", previousStatus: "stopped" });
    expect(controls.resume({})).toEqual({ status: "awaiting_tool_results", previousStatus: "stopped" });
  });

  it("resume refuses a thread with nothing to continue unless given a prompt, which waits behind open calls", async () => {
    const done = threadOf();
    expect(await codeOf(() => done.controls.validateResume({}))).toBe("AI1024");
    expect(done.controls.resume({ prompt: { id: "p2", content: "again" } })).toEqual({ status: "streaming", previousStatus: "idle" });

    const { thread, controls } = awaitingTools(["a"]);
    thread.fail({ message: "boom" });
    expect(controls.resume({ prompt: { id: "p3", content: "and then" } })).toMatchObject({ status: "awaiting_tool_results" });
    expect(thread.inbox.map((i) => i.id)).toEqual(["p3"]);
  });

  it("accepts one result per async call and refuses unknown, sync, duplicate and malformed ones", async () => {
    const { thread, controls } = awaitingTools(["s", "a"], ["lookup", "askHuman"]);
    const token = "a1.kid.claims.signature";
    thread.asyncCalls.set("a", { toolCallId: "a", name: "askHuman", callbackDone: true, digest: resumeDigest(token) });
    const validate = (request: object) => codeOf(() => controls.validateToolResult({ proof: proofOf(token), ...request } as never));
    expect(await validate({ toolCallId: "a", result: 1, error: "x" })).toBe("AI1027");
    expect(await validate({ toolCallId: "a", result: { at: new Date() } })).toBe("AI1027");
    expect(await validate({ toolCallId: "zz", result: 1 })).toBe("AI1022");
    expect(await validate({ toolCallId: "s", result: 1 })).toBe("AI1022");
    expect(await validate({ toolCallId: "a", error: "on holiday" })).toBe("no error");
    expect(controls.toolResult({ toolCallId: "a", error: "on holiday" })).toEqual({ status: "accepted" });
    expect(await validate({ toolCallId: "a", result: 1 })).toBe("AI1028");
    thread.answer("s", "S");
    expect(thread.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["S", "Error: on holiday"]);
  });

  it("checks an answer's proof against the call's digest; a call waits for its digest before it takes any answer", async () => {
    const { thread, controls } = awaitingTools(["early", "new"], ["askHuman", "askHuman"]);
    const token = "a1.kid.claims.signature";
    thread.asyncCalls.set("early", { toolCallId: "early", name: "askHuman", callbackDone: false });
    thread.asyncCalls.set("new", { toolCallId: "new", name: "askHuman", callbackDone: true, digest: resumeDigest(token) });
    const validate = (request: object) => codeOf(() => controls.validateToolResult(request as never));
    expect(await validate({ toolCallId: "early", result: 1 })).toBe("RC5041");
    expect(await validate({ toolCallId: "early", result: 1, proof: proofOf(token) })).toBe("RC5041");
    expect(await validate({ toolCallId: "new", result: 1 })).toBe("RC5041");
    expect(await validate({ toolCallId: "new", result: 1, proof: proofOf("a1.kid.claims.other") })).toBe("RC5041");
    expect(await validate({ toolCallId: "new", result: 1, proof: "x".repeat(100_000) })).toBe("RC5041");
    expect(await validate({ toolCallId: "new", result: 1, proof: proofOf(token) })).toBe("no error");
    // The digest crosses continue-as-new with the call.
    const next = threadOf(nextRunInput(thread));
    expect(await codeOf(() => next.controls.validateToolResult({ toolCallId: "new", result: 1 }))).toBe("RC5041");
    expect(await codeOf(() => next.controls.validateToolResult({ toolCallId: "early", result: 1 }))).toBe("RC5041");
    expect(await codeOf(() => next.controls.validateToolResult({ toolCallId: "new", result: 1, proof: proofOf(token) }))).toBe("no error");
  });
});

describe("queries", () => {
  it("show each open call's kind and state, and page the transcript within bounds", () => {
    const { thread, queries } = awaitingTools(["s", "a", "h"], ["lookup", "askHuman", "lookup"]);
    thread.prepare(prepared());
    thread.running.set("s", { activityId: "tool-s", kind: "sync", maxAttempts: 2 });
    thread.asyncCalls.set("a", { toolCallId: "a", name: "askHuman", callbackDone: true });
    thread.answer("h", "H");
    expect(queries.snapshot().toolCalls).toEqual([
      { toolCallId: "s", name: "lookup", kind: "sync", state: "running", activityId: "tool-s", maxAttempts: 2 },
      { toolCallId: "a", name: "askHuman", kind: "async", state: "waiting", maxAttempts: 1 },
      { toolCallId: "h", name: "lookup", kind: "sync", state: "answered", maxAttempts: 1 },
    ]);
    expect(queries.messages({ offset: -5, limit: 1 })).toMatchObject({ messages: [{ id: "p1" }], total: 2 });
    expect(queries.transcript(1)).toEqual([{ role: "user", content: "hi" }]);
  });
});

describe("a failed turn's error", () => {
  it("keeps a typed code, the activity's own when an activity failed", () => {
    expect(failureOf(ApplicationFailure.create({ type: "AI1004", message: "max turns" }))).toEqual({ code: "AI1004", message: "max turns" });
    const modelDown = new ActivityFailure("failed", "callAgentModel", "model-1", RetryState.NON_RETRYABLE_FAILURE, undefined, ApplicationFailure.create({ type: "AI1003", message: "model down" }));
    expect(failureOf(modelDown)).toEqual({ code: "AI1003", message: "model down" });
    expect(failureOf(new Error("odd"))).toEqual({ message: "odd" });
  });
});
