import proto from "@temporalio/proto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ChatMessage, ThreadsClient } from "../src/index.js";
import { type ScriptStep } from "../src/testing/index.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { answerTokenOf, replayFailures, runsOf, seen, threadRig, type ThreadRig } from "./thread-support.js";
import { kill, killAll, spawnWorker } from "./workers/spawn.js";

const { EventType } = proto.temporal.api.enums.v1;

let h: Harness;
let rig: ThreadRig;

beforeAll(async () => {
  h = await startHarness();
  rig = await threadRig(h);
});
afterAll(async () => {
  await killAll();
  await h?.close();
});

describe("long threads", () => {
  it("continue as new under load without losing a message, a queued message or a pending tool result", async () => {
    const first = uid("busy thread");
    const lastUser = (req: { messages: ChatMessage[] }) => [...req.messages].reverse().find((m) => m.role === "user")!.content as string;
    h.model.respond(first, (req): ScriptStep => {
      const last = req.messages.at(-1)!;
      const asked = lastUser(req);
      if (last.role === "user" && asked === "message 6") return { toolCalls: [{ name: "askHuman", arguments: { question: "wait for me" } }] };
      if (last.role === "user" && /[05]$/.test(asked)) return { toolCalls: [{ name: "lookup", arguments: { word: asked } }] };
      return { text: `answer to ${asked}` };
    });
    const { threadId } = await rig.threads.createThread({ prompt: first, maxHistoryEvents: 60 });
    const sent = Array.from({ length: 24 }, (_, i) => `message ${i + 1}`);
    // Sent while turns run and the thread rolls over: some land in the inbox of one run and are carried to the next.
    for (const prompt of sent) await rig.threads.sendMessage({ threadId, prompt });

    await vi.waitFor(async () => expect((await rig.threads.state({ threadId })).toolCalls).toMatchObject([{ name: "askHuman", state: "waiting" }]), {
      timeout: 60_000,
      interval: 100,
    });
    const toolCallId = seen.find((s) => s.threadId === threadId && s.tool === "askHuman")!.toolCallId;
    // Messages keep arriving while the call waits; the history they add makes the thread
    // roll over mid-turn, carrying the pending call and the queue.
    const before = (await rig.threads.state({ threadId })).generation;
    for (let i = 1; (await rig.threads.state({ threadId })).generation === before; i++) {
      expect(i).toBeLessThan(60);
      const prompt = `late ${i}`;
      await rig.threads.sendMessage({ threadId, prompt });
      sent.push(prompt);
    }
    expect(await rig.threads.state({ threadId })).toMatchObject({ status: "awaiting_tool_results", toolCalls: [{ toolCallId, state: "waiting" }] });
    expect(await rig.threads.addToolResult({ threadId, toolCallId, result: "done waiting", answerToken: answerTokenOf(threadId, toolCallId) })).toMatchObject({ status: "accepted" });

    const done = await rig.threads.settled({ threadId });
    expect(done).toMatchObject({ status: "completed", queued: [] });
    expect(done.generation).toBeGreaterThanOrEqual(3);
    const { messages } = await rig.threads.listMessages({ threadId, limit: 1000 });
    const users = messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(users).toEqual([first, ...sent]);
    // Every message got its own answer, in order.
    const answers = messages.filter((m) => m.role === "assistant" && m.content !== null).map((m) => m.content);
    expect(answers).toEqual([first, ...sent].map((p) => `answer to ${p}`));
    expect(messages.find((m) => m.role === "tool" && m.tool_call_id === toolCallId)?.content).toBe("done waiting");
    expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
    // The stream continued across the runs: one growing sequence, from the first run's entries on.
    const stream = await rig.threads.streamUpdates({ threadId });
    const seqs = stream.updates.map((u) => u.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(stream.updates.some((u) => u.type === "message" && u.message.content === `answer to ${first}`)).toBe(true);
    expect(stream.truncated).toBe(false);

    // Every run replays against the current workflow code.
    expect(await runsOf(rig.threads, threadId)).toHaveLength(done.generation + 1);
    expect(await replayFailures(h, rig.threads, [threadId])).toEqual([]);
    h.model.assertNoFailures();
  });

  it("do not roll over on a refused update that lands at the edge of their event budget, and replay", async () => {
    // A refused update leaves nothing in history, yet the task that carried it counts two
    // events while it runs. A thread that read its history length in a wait rolled over
    // there, at a point replay never reaches (TMPRL1100 on the next query of that run).
    const idleLength = async (threadId: string) => {
      await rig.threads.settled({ threadId });
      let last = -1;
      // Settled before the status hook's local activity is recorded: wait for a still history.
      await vi.waitFor(
        async () => {
          const { historyLength, raw } = await rig.threads.workflowHandle(threadId).describe();
          const still = historyLength === last && !raw.pendingWorkflowTask;
          last = historyLength;
          expect(still).toBe(true);
        },
        { timeout: 20_000, interval: 200 },
      );
      return last;
    };
    const oneTurn = async (maxHistoryEvents: number) => {
      const prompt = uid("edge");
      // A tool call, so one turn passes the 20 events a run makes before it may roll over.
      h.model.respond(prompt, (req) => (req.messages.at(-1)?.role === "user" ? { toolCalls: [{ name: "lookup", arguments: { word: "edge" } }] } : { text: "short answer" }));
      const { threadId } = await rig.threads.createThread({ prompt, maxHistoryEvents });
      return { threadId, length: await idleLength(threadId) };
    };
    // The same turn under a budget one event past where it goes idle (the same history, or try
    // again: a local activity finishing after its task adds one, on either side).
    let probe = await oneTurn(1_000);
    let edge = await oneTurn(probe.length + 1);
    for (let i = 0; edge.length !== probe.length && i < 5; i++) {
      if (i % 2 === 1) probe = await oneTurn(1_000);
      edge = await oneTurn(probe.length + 1);
    }
    expect(probe.length).toBeGreaterThanOrEqual(20);
    expect(edge.length).toBe(probe.length);

    const raw = rig.threads.workflowHandle(edge.threadId);
    const { runId } = await raw.describe();
    await expect(raw.executeUpdate("durable-agents.thread.send", { args: [null] })).rejects.toMatchObject({ cause: { type: "AI1012" } });
    // Nothing changed: the same run goes on (the old code continued as new here), and it answers a query.
    expect(await raw.describe()).toMatchObject({ runId, status: { name: "RUNNING" } });
    expect(await rig.threads.state({ threadId: edge.threadId })).toMatchObject({ generation: 0, status: "completed" });
    // The next message finds the budget spent: the thread rolls over before its turn, carrying it
    // (and may again within the turn: the new run has the same small budget).
    await rig.threads.sendMessage({ threadId: edge.threadId, prompt: "and then?" });
    const settled = await rig.threads.settled({ threadId: edge.threadId });
    expect(settled.status).toBe("completed");
    expect(settled.generation).toBeGreaterThanOrEqual(1);
    const { messages } = await rig.threads.listMessages({ threadId: edge.threadId });
    expect(messages.filter((m) => m.role !== "tool" && m.content !== null).map((m) => m.content)).toEqual([
      expect.stringContaining("edge"),
      "short answer",
      "and then?",
      "short answer",
    ]);
    expect(await replayFailures(h, rig.threads, [edge.threadId, probe.threadId])).toEqual([]);
  });

  it("work at 1,000 messages, and model calls never carry the transcript", async () => {
    const first = uid("thousand");
    const transcript: ChatMessage[] = [];
    for (let i = 0; i < 499; i++) {
      transcript.push({ role: "user", content: i === 0 ? first : `question ${i} ${"x".repeat(100)}` });
      transcript.push({ role: "assistant", content: `answer ${i} ${"y".repeat(100)}` });
    }
    h.model.script(first, [
      ...Array.from({ length: 499 }, () => ({ text: "unused" })),
      { check: (req) => expect(req.messages).toHaveLength(1 + 999), text: "the 1000th message" },
      { check: (req) => expect(req.messages).toHaveLength(1 + 1001), text: "still going" },
    ]);
    const { threadId } = await rig.threads.createThread({ messages: transcript, prompt: "question 499", maxHistoryEvents: 30 });
    expect((await rig.threads.settled({ threadId })).messageCount).toBe(1000);
    await rig.threads.sendMessage({ threadId, prompt: "one more" });
    const done = await rig.threads.settled({ threadId });
    expect(done).toMatchObject({ status: "completed", messageCount: 1002 });

    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await rig.threads.listMessages({ threadId, limit: 300, ...(cursor ? { cursor } : {}) });
      pages.push(page.messages.map((m) => m.content ?? ""));
      cursor = page.cursor;
    } while (cursor);
    expect(pages.map((p) => p.length)).toEqual([300, 300, 300, 102]);
    expect(pages.flat().slice(-4)).toEqual(["question 499", "the 1000th message", "one more", "still going"]);

    // The transcript is ~100 KB; each model call's recorded input holds only what was new.
    for (const { history } of await runsOf(rig.threads, threadId)) {
      for (const event of history.events ?? []) {
        const scheduled = event.activityTaskScheduledEventAttributes;
        if (event.eventType !== EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED || scheduled?.activityType?.name !== "callAgentModel") continue;
        const inputBytes = (scheduled.input?.payloads ?? []).reduce((n, p) => n + (p.data?.length ?? 0), 0);
        expect(inputBytes).toBeLessThan(2_000);
      }
    }
    h.model.assertNoFailures();
  });

  it("survive their worker being killed mid-turn: a new worker process answers, once", async () => {
    const taskQueue = uid("thread-crash");
    const env = { TEMPORAL_ADDRESS: h.address, NAMESPACE: h.namespace, TASK_QUEUE: taskQueue, MODEL_URL: h.model.url };
    const story = "A worker died while this answer was streaming, and another one told it again from the start. ".repeat(2);
    const prompt = uid("crash story");
    // The first attempt stops writing part-way and stays there until its worker is killed.
    const hold = h.model.hold();
    h.model.respond(prompt, (req) => (req.attempt === 0 ? { text: story, hold, holdAfterChars: 24 } : { text: story }));
    const firstWorker = await spawnWorker("thread-worker", env);
    const threads = new ThreadsClient({ connection: h.connection, namespace: h.namespace, taskQueue, agent: "storyteller" });
    const { threadId } = await threads.createThread({ prompt });
    // Mid-answer: the model has written part of it and waits.
    await hold.reached;
    await kill(firstWorker, "SIGKILL");
    await spawnWorker("thread-worker", env);

    const done = await threads.settled({ threadId });
    expect(done).toMatchObject({ status: "completed", messageCount: 2, modelCalls: 1 });
    const { messages } = await threads.listMessages({ threadId });
    expect(messages.map((m) => m.content)).toEqual([prompt, story]);
    expect(h.model.requests.filter((r) => r.conversation === prompt).map((r) => r.attempt)).toEqual([0, 1]);
    h.model.assertNoFailures();
  });

  it("end a turn stopped, not failed, when the stop reaches a call whose worker was killed: the call's timeout is the stop's, and the turn resumes", async () => {
    // Found by `bench chaos`: a stop racing a SIGKILL left the turn failed with AI1003 ("the
    // model call failed … check the model name"), since the call ended in its heartbeat
    // timeout, which Temporal reports instead of the cancellation it never heard.
    const taskQueue = uid("thread-stop-dead");
    const env = { TEMPORAL_ADDRESS: h.address, NAMESPACE: h.namespace, TASK_QUEUE: taskQueue, MODEL_URL: h.model.url };
    const story = "Stopped while its worker lay dead, then told again. ";
    const prompt = uid("stop a dead call");
    const hold = h.model.hold();
    h.model.respond(prompt, (req) => (req.attempt === 0 ? { text: story, hold, holdAfterChars: 8 } : { text: story }));
    const firstWorker = await spawnWorker("thread-worker", env);
    const threads = new ThreadsClient({ connection: h.connection, namespace: h.namespace, taskQueue, agent: "patient-storyteller" });
    const { threadId } = await threads.createThread({ prompt });
    await hold.reached;
    await spawnWorker("thread-worker", env);
    // The stop must be recorded before the call's heartbeat timeout (15 s from its last beat),
    // or it meets a retried call instead of a dead one. The call beats first at 80% of that:
    // killed just after the beat, its worker leaves the stop the most time, however slowly
    // this machine starts a process or runs a task.
    const pending = async () => (await threads.client.workflow.getHandle(threadId).describe()).raw.pendingActivities ?? [];
    await vi.waitFor(async () => expect((await pending())[0]?.lastHeartbeatTime).toBeTruthy(), { timeout: 30_000, interval: 50 });
    await kill(firstWorker, "SIGKILL");
    // The stop is taken by the next worker while the call, cancel-requested, waits out its heartbeat timeout.
    await threads.stopThread({ threadId });
    // The stop answers at once; the turn ends when the call does: once its timeout is in history and handled.
    await vi.waitFor(
      async () => {
        // By name, so that a failure shows the history as it went.
        const types = ((await threads.client.workflow.getHandle(threadId).fetchHistory()).events ?? []).map((e) => EventType[e.eventType ?? 0]);
        const history = types.join(" ");
        expect(types, history).toContain("EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT");
        expect(types.slice(types.indexOf("EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT")), history).toContain("EVENT_TYPE_WORKFLOW_TASK_COMPLETED");
      },
      { timeout: 40_000, interval: 200 },
    );
    const stopped = await threads.state({ threadId });
    expect(stopped.status).toBe("stopped");
    expect(stopped.lastError).toBeUndefined();

    await threads.resumeThread({ threadId });
    const done = await threads.settled({ threadId });
    expect(done.status).toBe("completed");
    const { messages } = await threads.listMessages({ threadId });
    expect(messages.map((m) => m.content)).toEqual([prompt, story]);
    h.model.assertNoFailures();
  });
});
