import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import proto from "@temporalio/proto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client, type WorkflowClientInterceptor } from "@temporalio/client";
import { ThreadsClient, type StreamSnapshot, type StreamUpdate } from "../src/index.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { chatAgent, modelCallStreamIds, render, threadRig, type ThreadRig } from "./thread-support.js";
import { killAll, spawnWorker } from "./workers/spawn.js";
import * as threadWire from "../src/core/wire/thread.js";

const { EventType } = proto.temporal.api.enums.v1;

let h: Harness;
let rig: ThreadRig;

beforeAll(async () => {
  h = await startHarness();
  // Deltas by signal, named: the worker's default streams on a transport (thread-stream-direct.test.ts).
  rig = await threadRig(h, undefined, { overrides: { threads: { stream: { transport: "workflow" } } } });
});
afterAll(async () => {
  await killAll();
  await h?.close();
});

const STORY =
  "The thread kept its history linear while it streamed: every batch of deltas went to the workflow, " +
  "readers polled a query that costs nothing, and the finished answer replaced the pieces they had seen.";

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (code) => resolve(code))));

/** The batches the reader process wrote so far (a line being written is not one yet). */
function batchesIn(out: string): Array<StreamSnapshot & { pid: number }> {
  if (!existsSync(out)) return [];
  const text = readFileSync(out, "utf8");
  return text.slice(0, text.lastIndexOf("\n") + 1).split("\n").filter(Boolean).map((line) => JSON.parse(line) as StreamSnapshot & { pid: number });
}

const liveDeltaBatches = (batches: StreamSnapshot[]) => batches.filter((b) => b.status === "streaming" && b.updates.some((u) => u.type === "text-delta"));

/** The history's signals: one per batch of deltas. */
async function signalsOf(rig: ThreadRig, threadId: string) {
  const history = await rig.threads.workflowHandle(threadId).fetchHistory();
  return (history.events ?? []).filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
}

describe("streaming a thread's answer", () => {
  it("reaches a reader in another process while the answer is written, in sequence, ending with the whole message", async () => {
    const prompt = uid("tell a story");
    // The model lets the answer out in three pieces, each once the reader has shown the one before.
    const pieces = [24, 96].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(prompt, [{ text: STORY, holds: pieces }]);
    const threadId = uid("streamed");
    const out = join(mkdtempSync(join(tmpdir(), "reader-")), "batches.jsonl");
    const reader = await spawnWorker("thread-reader", {
      TEMPORAL_ADDRESS: h.address,
      NAMESPACE: h.namespace,
      TASK_QUEUE: rig.taskQueue,
      THREAD_ID: threadId,
      FROM_SEQ: "0",
      OUT: out,
    });
    await rig.threads.createThread({ threadId, prompt });
    for (const { hold, afterChars } of pieces) {
      const shown = () => [...render(liveDeltaBatches(batchesIn(out)).flatMap((b) => b.updates)).values()].join("");
      await vi.waitFor(() => expect(shown().length).toBeGreaterThanOrEqual(afterChars), { timeout: 30_000, interval: 20 });
      hold.release();
    }
    expect(await exited(reader)).toBe(0);

    const batches = batchesIn(out);
    expect(batches.every((b) => b.pid === reader.pid)).toBe(true);
    const updates = batches.flatMap((b) => b.updates);
    // Sequence numbers only grow, and the reader never saw one twice.
    const seqs = updates.map((u) => u.seq);
    expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    // Deltas arrived while the thread was still streaming, in several batches.
    const live = liveDeltaBatches(batches);
    expect(live.length).toBeGreaterThanOrEqual(2);
    const answerId = live[0]!.updates.find((u) => u.type === "text-delta")!.messageId;
    const streamed = updates.flatMap((u) => (u.type === "text-delta" && u.messageId === answerId ? [u.text] : [])).join("");
    expect(streamed.length).toBeGreaterThan(0);
    expect(STORY.startsWith(streamed)).toBe(true);
    // Then the whole message, with the id the deltas had, then the status change.
    const message = updates.find((u) => u.type === "message" && u.message.role === "assistant");
    expect(message).toMatchObject({ message: { id: answerId, content: STORY } });
    expect(updates.at(-1)).toMatchObject({ type: "status", status: "completed", previousStatus: "streaming" });
    expect(render(updates).get(answerId)).toBe(STORY);

    // A reader that comes back with the last seq it saw gets only what is newer.
    const mid = seqs[Math.floor(seqs.length / 2)]!;
    const resumed = await rig.threads.streamUpdates({ threadId, fromSeq: mid });
    expect(resumed.updates.every((u) => u.seq > mid)).toBe(true);
    expect(resumed.lastSeq).toBe(seqs.at(-1));
    expect(resumed.truncated).toBe(false);
    // Once the message is complete its deltas are folded into it.
    const folded = await rig.threads.streamUpdates({ threadId });
    expect(folded.updates.some((u) => u.type === "text-delta")).toBe(false);
    expect(render(folded.updates).get(answerId)).toBe(STORY);
    h.model.assertNoFailures();
  });

  it("streams tool-call arguments as they are written", async () => {
    const prompt = uid("look up a long word");
    const word = "pneumonoultramicroscopicsilicovolcanoconiosis".repeat(2);
    const json = JSON.stringify({ word });
    // The arguments come out in pieces, each once the follower has seen the one before.
    const pieces = [16, 48].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(prompt, [{ toolCalls: [{ name: "lookup", arguments: { word } }], holds: pieces }, { text: "it is long" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    const seen: StreamUpdate[] = [];
    const following = (async () => {
      for await (const batch of rig.threads.followUpdates({ threadId, pollInterval: 30, until: (b) => b.updates.some((u) => u.type === "status" && u.status === "completed") })) {
        seen.push(...batch.updates);
      }
    })();
    const argumentDeltas = () => seen.filter((u) => u.type === "tool-input-delta");
    const args = () => argumentDeltas().map((u) => (u.type === "tool-input-delta" ? u.argumentsDelta : "")).join("");
    for (const { hold, afterChars } of pieces) {
      // Part of the arguments, while the model is still writing them.
      await vi.waitFor(() => expect(args().length).toBeGreaterThanOrEqual(afterChars), { timeout: 30_000, interval: 20 });
      expect(args().length).toBeLessThan(json.length);
      hold.release();
    }
    await following;
    expect(argumentDeltas().length).toBeGreaterThanOrEqual(2);
    expect(argumentDeltas()[0]).toMatchObject({ toolName: "lookup", toolCallId: expect.any(String) });
    expect(json.startsWith(args())).toBe(true);
  });
});

describe("following deltas by signal", () => {
  it("costs a follower no query per batch: it reads the numbered batches from the history's signals", async () => {
    // The follower's own client counts the log's queries (what Temporal bills) its poller makes.
    let streamQueries = 0;
    const counting: WorkflowClientInterceptor = {
      async query(input, next) {
        if (input.queryType === "durable-agents.thread.stream") streamQueries++;
        return next(input);
      },
    };
    const follower = new ThreadsClient({ client: new Client({ connection: h.connection, namespace: h.namespace, interceptors: { workflow: [counting] } }), taskQueue: rig.taskQueue, agent: chatAgent });
    const prompt = uid("followed by signal");
    const answer = STORY.repeat(2);
    // The answer pauses six times: a batch goes out at each pause, and the reader must have it before it goes on.
    const holds = Array.from({ length: 6 }, (_, i) => ({ hold: h.model.hold(), afterChars: 30 * (i + 1) }));
    h.model.script(prompt, [{ text: "ready" }, { text: answer, holds }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    await rig.threads.settled({ threadId });

    const stop = new AbortController();
    const seen: StreamUpdate[] = [];
    let joined!: () => void;
    const caughtUp = new Promise<void>((resolve) => (joined = resolve));
    const following = (async () => {
      for await (const batch of follower.followUpdates({ threadId, signal: stop.signal })) {
        seen.push(...batch.updates);
        joined();
        if (seen.some((u) => u.type === "message" && u.message.content === answer) && batch.status === "completed") return;
      }
    })();
    await caughtUp;
    const before = streamQueries;
    const deltas = () => seen.filter((u): u is Extract<StreamUpdate, { type: "text-delta" }> => u.type === "text-delta");
    await rig.threads.sendMessage({ threadId, prompt: "go" });
    for (const { hold, afterChars } of holds) {
      await hold.reached;
      await vi.waitFor(() => expect(deltas().map((d) => d.text).join("").length).toBeGreaterThanOrEqual(afterChars), { timeout: 30_000, interval: 20 });
      hold.release();
    }
    await following;
    stop.abort();
    expect(answer.startsWith(deltas().map((d) => d.text).join(""))).toBe(true);
    // Each pause let at least one batch out, and each reached the reader before the answer went on.
    expect(deltas().length).toBeGreaterThanOrEqual(holds.length);
    const seqs = seen.map((u) => u.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    // The turn's durable entries (its start, its answer) are read by query; the batches are not.
    expect(streamQueries - before).toBeLessThanOrEqual(3);
  });
});

describe("what streaming costs in history", () => {
  it("is bounded: one signal per batch, at most maxBatches per answer however long it streams", async () => {
    const capped = await threadRig(h, undefined, { overrides: { threads: { stream: { transport: "workflow", batchInterval: "50ms", maxBatches: 3 } } } });
    const prompt = uid("a very long answer");
    const long = STORY.repeat(4);
    // The answer pauses five times; at each of the first three a batch goes out, one signal each.
    const holds = Array.from({ length: 5 }, (_, i) => ({ hold: h.model.hold(), afterChars: 40 * (i + 1) }));
    h.model.script(prompt, [{ text: long, holds }]);
    const { threadId } = await capped.threads.createThread({ prompt });
    for (const [i, { hold }] of holds.entries()) {
      await hold.reached;
      if (i < 3) await vi.waitFor(async () => expect(await signalsOf(capped, threadId)).toHaveLength(i + 1), { timeout: 30_000, interval: 20 });
      hold.release();
    }
    const done = await capped.threads.settled({ threadId });
    expect(done.status).toBe("completed");
    expect((await capped.threads.listMessages({ threadId })).messages.at(-1)?.content).toBe(long);
    // The cap itself (no fourth batch however long the answer goes on) is the flusher's: test/unit/thread-stream-flusher.test.ts.
    expect(await signalsOf(capped, threadId)).toHaveLength(3);
  });

  it("is nothing for a thread created with stream: false", async () => {
    const prompt = uid("no streaming");
    // A streaming answer's first delta goes out at once and the call waits for it, so any
    // signal would be in the history by the time the thread settles; the pause makes sure
    // the answer has begun before it ends.
    const hold = h.model.hold();
    h.model.script(prompt, [{ text: STORY, holds: [{ hold, afterChars: 40 }] }]);
    const { threadId } = await rig.threads.createThread({ prompt, stream: false });
    await hold.reached;
    hold.release();
    await rig.threads.settled({ threadId });
    expect(await signalsOf(rig, threadId)).toEqual([]);
    expect(await modelCallStreamIds(rig.threads, threadId)).toEqual([undefined]);
    const stream = await rig.threads.streamUpdates({ threadId });
    expect(stream.updates.map((u) => u.type)).toEqual(["status", "message", "status"]);
  });

  it("is nothing for a message sent with stream: false, and the next message streams again", async () => {
    const prompt = uid("quiet turn");
    // Each answer pauses after 40 characters: a streamed one has sent its first batch by then.
    const [quietHold, loudHold] = [h.model.hold(), h.model.hold()];
    h.model.script(prompt, [{ text: "ready" }, { text: STORY, holds: [{ hold: quietHold, afterChars: 40 }] }, { text: STORY, holds: [{ hold: loudHold, afterChars: 40 }] }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    await rig.threads.settled({ threadId });
    const before = (await signalsOf(rig, threadId)).length;
    const fromSeq = (await rig.threads.streamUpdates({ threadId })).lastSeq;

    await rig.threads.sendMessage({ threadId, prompt: "tell it whole", stream: false });
    await quietHold.reached;
    quietHold.release();
    await rig.threads.settled({ threadId });
    expect(await signalsOf(rig, threadId)).toHaveLength(before);
    // The turn's model call was told not to stream (it got no stream id), so no delta could go out.
    expect(await modelCallStreamIds(rig.threads, threadId)).toEqual([expect.any(String), undefined]);
    const quiet = await rig.threads.streamUpdates({ threadId, fromSeq });
    expect(quiet.updates.filter((u) => u.type === "text-delta")).toEqual([]);
    expect(quiet.updates.some((u) => u.type === "message" && u.message.role === "assistant" && u.message.content === STORY)).toBe(true);

    await rig.threads.sendMessage({ threadId, prompt: "now stream it" });
    await loudHold.reached;
    await vi.waitFor(async () => expect((await signalsOf(rig, threadId)).length).toBeGreaterThan(before), { timeout: 30_000, interval: 20 });
    loudHold.release();
    await rig.threads.settled({ threadId });
    expect(await modelCallStreamIds(rig.threads, threadId)).toEqual([expect.any(String), undefined, expect.any(String)]);
  });

  it("refuses a stream setting that is not a boolean, and an update whose stream is not false on a message, changing nothing", async () => {
    const prompt = uid("stream refusals");
    h.model.script(prompt, [{ text: "ready" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    await rig.threads.settled({ threadId });
    const count = async () => (await rig.threads.listMessages({ threadId })).messages.length;
    const messages = await count();
    const code = async (call: () => Promise<unknown>) => {
      try {
        await call();
        return "accepted";
      } catch (err) {
        const cause = (err as { cause?: { type?: string } }).cause;
        return (err as { code?: string }).code ?? cause?.type ?? String(err);
      }
    };
    expect(await code(() => rig.threads.sendMessage({ threadId, prompt: "x", stream: "no" as never }))).toBe("AI1027");
    const handle = rig.threads.workflowHandle(threadId);
    const raw = (request: Record<string, unknown>) => code(() => handle.executeUpdate(threadWire.threadSendUpdate, { args: [{ id: uid("raw"), kind: "message", message: { role: "user", content: "x" }, ...request } as never] }));
    expect(await raw({ stream: true })).toBe("AI1027");
    expect(await raw({ stream: "false" })).toBe("AI1027");
    expect(await raw({ stream: false, kind: "add" })).toBe("AI1027");
    expect(await count()).toBe(messages);
    expect((await rig.threads.state({ threadId })).queued).toEqual([]);
  });
});
