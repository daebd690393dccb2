/**
 * Threads streamed out of band: the model activity publishes the answer's deltas on the
 * worker's stream transport, the thread's workflow publishes its durable entries by sink,
 * and readers (followUpdates, the events route) hear them there, reading the thread by query
 * only for what the transport did not bring. What a reader sees: the answer while it is
 * written, in seq order, with nothing lost or repeated, and no signal in the thread's history.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, type WorkflowClientInterceptor } from "@temporalio/client";
import proto from "@temporalio/proto";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  AgentClient,
  inProcessStreamTransport,
  InvalidDefinitionError,
  ThreadsClient,
  type StreamBatch,
  type StreamSubscription,
  type StreamTransport,
  type StreamUpdate,
} from "../src/index.js";
import { redisStreamTransport } from "../src/redis.js";
import { startRedis, type RedisServerHandle } from "../src/testing/index.js";
import { createAgentWorker, openaiModel } from "../src/worker.js";
import { SECRET, startHarness, uid, type Harness, type WorkerOverrides } from "./harness.js";
import { openEvents, startHttp, type HttpServer, type SseEvent } from "./http-support.js";
import { ascending, assistantMessage, batchesIn, completed, follow, deltaText, durableOf, isDelta, seqsOf, signalsOf } from "./stream-entries.js";
import { chatAgent, render } from "./thread-support.js";
import { killAll, spawnWorker } from "./workers/spawn.js";

const POLL_MS = 50;
const WAIT = { timeout: 30_000, interval: 20 };

const STORY =
  "The answer went straight from the model call to every reader, numbered inside a block the thread had set aside, " +
  "while the thread's history held only what it must keep: the messages, the statuses, and nothing of the pieces.";
const DRAFT = "A first draft that the provider cut off part-way, which no reader should be left showing. ".repeat(2);

let h: Harness;
let redis: RedisServerHandle | undefined;
const cleanup: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await killAll();
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
  await redis?.stop();
  await h?.close();
});

// ---------------------------------------------------------------------------------------
// Plumbing

/**
 * The in-process transport as a client sees it through a wrapper of the test's: it counts the
 * subscriptions in place (what a test waits on before a turn starts, so a reader is listening
 * when the first delta goes out) and can drop batches on their way to the readers.
 */
function tapped(drop: (batch: StreamBatch, index: number) => StreamBatch | undefined = (b) => b): StreamTransport & { listening(threadId: string): number } {
  const inner = inProcessStreamTransport();
  const listening = new Map<string, number>();
  let delivered = 0;
  return {
    local: true,
    publish: (threadId, batch) => inner.publish(threadId, batch),
    // The inner subscription is made at once (the in-process one registers in the call), so a
    // reader that joined a poller is listening from then on.
    async subscribe(threadId, listener): Promise<StreamSubscription> {
      const subscription = await inner.subscribe(threadId, (batch) => {
        const kept = drop(batch, delivered++);
        if (kept) listener(kept);
      });
      listening.set(threadId, (listening.get(threadId) ?? 0) + 1);
      let open = true;
      return {
        async unsubscribe() {
          if (open) listening.set(threadId, listening.get(threadId)! - 1);
          open = false;
          await subscription.unsubscribe();
        },
      };
    },
    close: async () => undefined,
    listening: (threadId) => listening.get(threadId) ?? 0,
  };
}

interface Rig {
  agents: AgentClient;
  threads: ThreadsClient;
  taskQueue: string;
}

/** A worker for the chat agent publishing on `transport`, and a client whose readers hear `clientTransport`. */
async function rig(transport: StreamTransport, clientTransport: StreamTransport, overrides: WorkerOverrides = {}): Promise<Rig> {
  const { agents, taskQueue } = await h.worker([chatAgent], {
    deferral: { secret: SECRET },
    ...overrides,
    threads: { ...overrides.threads, stream: { transport } },
    client: { threads: { agent: chatAgent }, stream: { transport: clientTransport }, ...overrides.client },
  });
  return { agents, threads: agents.threads, taskQueue };
}

/** A second client of the same queue (its own readers' poller), hearing `transport`, its queries through `client`. */
function otherClient(r: Rig, transport: StreamTransport, client?: Client): { agents: AgentClient; threads: ThreadsClient } {
  const base = client ? { client } : { connection: h.connection, namespace: h.namespace };
  const agents = new AgentClient({ ...base, taskQueue: r.taskQueue, threads: { agent: chatAgent }, stream: { transport } });
  return { agents, threads: agents.threads };
}

/**
 * A thread whose first message is sent once every reader listens: an idle thread, the readers,
 * then the message (the conversation the model's script is keyed by).
 */
async function idleThread(r: Rig): Promise<string> {
  const threadId = uid("oob");
  await r.threads.createThread({ threadId });
  return threadId;
}

// ---------------------------------------------------------------------------------------

describe("a thread streamed on the in-process transport", () => {
  let r: Rig;
  let tap: ReturnType<typeof tapped>;
  beforeAll(async () => {
    tap = tapped();
    r = await rig(inProcessStreamTransport(), tap);
  });

  it("reaches a followUpdates reader while the answer is written, in seq order, then the whole message; no signal in history", async () => {
    const prompt = uid("tell it out of band");
    const pieces = [24, 72].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(prompt, [{ text: STORY, holds: pieces }]);
    const threadId = await idleThread(r);
    const reader = follow(r.threads, threadId);
    await vi.waitFor(() => expect(tap.listening(threadId)).toBe(1), WAIT);
    await r.threads.sendMessage({ threadId, prompt });
    for (const { hold, afterChars } of pieces) {
      await hold.reached;
      // The model is held mid-answer: what the reader has came while it was being written.
      await vi.waitFor(() => expect(deltaText(reader.updates()).length).toBeGreaterThanOrEqual(afterChars), WAIT);
      expect(assistantMessage(reader.updates())).toBeUndefined();
      hold.release();
    }
    await reader.done;

    const updates = reader.updates();
    expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
    const live = reader.batches.filter((b) => b.updates.some((u) => u.type === "text-delta") && !assistantMessage(b.updates));
    expect(live.length).toBeGreaterThanOrEqual(2);
    const streamed = deltaText(updates);
    expect(STORY.startsWith(streamed)).toBe(true);
    const message = assistantMessage(updates)!;
    const answerId = updates.find((u) => u.type === "text-delta")!.messageId;
    expect(message.message).toMatchObject({ id: answerId, content: STORY });
    // The deltas come after the status that began the answer and before the message that ends it.
    const deltas = updates.filter(isDelta);
    const began = updates.find((u) => u.type === "status" && u.status === "streaming")!;
    expect(deltas.every((d) => d.seq > began.seq && d.seq < message.seq)).toBe(true);
    expect(updates.at(-1)).toMatchObject({ type: "status", status: "completed", previousStatus: "streaming" });
    expect(render(updates).get(answerId)).toBe(STORY);

    // Nothing of it went through Temporal.
    expect(await signalsOf(r.threads, threadId)).toEqual([]);
    // What the reader holds is what the thread holds: every durable entry, at the seq a query shows.
    const logged = await r.threads.streamUpdates({ threadId });
    expect(durableOf(updates)).toEqual(logged.updates);
    expect(logged.updates.find((u) => u.type === "message" && u.message.role === "assistant")?.seq).toBe(message.seq);
    expect(logged.lastSeq).toBe(updates.at(-1)!.seq);
    h.model.assertNoFailures();
  });

  describe("over the events route (SSE)", () => {
    let http: HttpServer;
    let otherDoor: HttpServer;
    beforeAll(async () => {
      http = await startHttp({ agents: r.agents, threads: r.threads, events: { pollInterval: POLL_MS } });
      // Another front door with its own clients: a reconnect that lands on another instance.
      const other = otherClient(r, inProcessStreamTransport());
      otherDoor = await startHttp({ agents: other.agents, threads: other.threads, events: { pollInterval: POLL_MS } });
    });
    afterAll(async () => {
      await http?.close();
      await otherDoor?.close();
    });

    const updatesOf = (events: SseEvent[]) => events.filter((e) => e.event === "message").map((e) => JSON.parse(e.data) as StreamUpdate);

    it("streams the deltas as they are written; a reconnect with a delta's id as Last-Event-ID goes on with nothing repeated or missing", async () => {
      const prompt = uid("sse out of band");
      const pieces = [16, 48, 80].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
      h.model.script(prompt, [{ text: STORY, holds: pieces }]);
      const threadId = await idleThread(r);
      const first = await openEvents(`${http.url}/threads/${threadId}/events`);
      expect(first.status).toBe(200);
      // Opened means joined: the front door's reader listens before its response starts.
      expect(tap.listening(threadId)).toBe(1);
      await r.threads.sendMessage({ threadId, prompt });
      const [one, two, three] = pieces;
      await one!.hold.reached;
      await first.until((_e, all) => deltaText(updatesOf(all)).length >= 16);
      expect(assistantMessage(updatesOf(first.events))).toBeUndefined();
      one!.hold.release();
      await two!.hold.reached;
      await first.until((_e, all) => deltaText(updatesOf(all)).length >= 48);
      first.close();
      await first.ended;
      const before = updatesOf(first.events);
      // Each event's id is its entry's seq; the last one the browser saw is a delta.
      expect(before.map((u) => String(u.seq))).toEqual(first.events.filter((e) => e.event === "message").map((e) => e.id));
      expect(before.at(-1)!.type).toBe("text-delta");
      const lastEventId = String(before.at(-1)!.seq);

      // The browser reconnects, to this front door and to another one.
      const again = await openEvents(`${http.url}/threads/${threadId}/events`, { lastEventId });
      const elsewhere = await openEvents(`${otherDoor.url}/threads/${threadId}/events`, { lastEventId });
      two!.hold.release();
      await three!.hold.reached;
      for (const reader of [again, elsewhere]) await reader.until((_e, all) => deltaText(updatesOf(all)).length > 0);
      three!.hold.release();
      const logged = () => r.threads.streamUpdates({ threadId });
      for (const reader of [again, elsewhere]) {
        await reader.until((e) => e.event === "message" && completed(JSON.parse(e.data)));
        reader.close();
        const after = updatesOf(reader.events);
        const all = [...before, ...after];
        // It went on right after that id: nothing twice, all in order...
        expect(after[0]!.seq).toBeGreaterThan(Number(lastEventId));
        expect(seqsOf(all)).toEqual(ascending(seqsOf(all)));
        // ... no piece of the answer skipped while it was held, and no durable entry missing.
        expect(STORY.startsWith(deltaText(all))).toBe(true);
        expect(durableOf(all)).toEqual((await logged()).updates);
        expect(assistantMessage(after)!.message.content).toBe(STORY);
      }
      expect(await signalsOf(r.threads, threadId)).toEqual([]);
    });
  });
});

describe("an answer the model call gives up on", () => {
  let r: Rig;
  let tap: ReturnType<typeof tapped>;
  beforeAll(async () => {
    tap = tapped();
    r = await rig(inProcessStreamTransport(), tap);
  });

  it("retried after it streamed part: readers get a reset (retry), then the new attempt's deltas at higher seqs, then the message; the shown text is the final answer", async () => {
    const prompt = uid("cut off");
    const cut = h.model.hold();
    const retried = h.model.hold();
    // The first attempt writes part of a draft and the connection drops; the retry writes the answer.
    h.model.respond(prompt, (req) =>
      req.attempt === 0 ? { text: DRAFT, holds: [{ hold: cut, afterChars: 24 }], dropAfterChars: 32 } : { text: STORY, holds: [{ hold: retried, afterChars: 24 }] },
    );
    const threadId = await idleThread(r);
    const reader = follow(r.threads, threadId);
    await vi.waitFor(() => expect(tap.listening(threadId)).toBe(1), WAIT);
    await r.threads.sendMessage({ threadId, prompt });
    await cut.reached;
    await vi.waitFor(() => expect(deltaText(reader.updates()).length).toBeGreaterThanOrEqual(24), WAIT);
    const answerId = reader.updates().find((u) => u.type === "text-delta")!.messageId;
    expect(DRAFT.startsWith(render(reader.updates()).get(answerId)!)).toBe(true);
    cut.release();

    // The retry announces itself before its first piece, so a reader drops the draft it shows.
    await retried.reached;
    const reset = () => reader.updates().find((u) => u.type === "reset");
    await vi.waitFor(() => expect(reset()).toBeDefined(), WAIT);
    expect(reset()).toMatchObject({ type: "reset", messageId: answerId, reason: "retry" });
    await vi.waitFor(() => expect(render(reader.updates()).get(answerId)?.length ?? 0).toBeGreaterThanOrEqual(24), WAIT);
    expect(STORY.startsWith(render(reader.updates()).get(answerId)!)).toBe(true);
    expect(assistantMessage(reader.updates())).toBeUndefined();
    retried.release();
    await reader.done;

    const updates = reader.updates();
    expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
    const resetAt = updates.indexOf(reset()!);
    const draft = updates.slice(0, resetAt).filter(isDelta);
    const answer = updates.slice(resetAt + 1).filter(isDelta);
    expect(DRAFT.startsWith(deltaText(draft))).toBe(true);
    expect(STORY.startsWith(deltaText(answer))).toBe(true);
    expect(answer.length).toBeGreaterThan(0);
    expect(answer.every((d) => d.seq > reset()!.seq && (d as { messageId: string }).messageId === answerId)).toBe(true);
    const message = assistantMessage(updates)!;
    expect(message.seq).toBeGreaterThan(answer.at(-1)!.seq);
    expect(render(updates)).toEqual(new Map([[answerId, STORY]]));
    expect(updates.at(-1)).toMatchObject({ type: "status", status: "completed" });
    // Two attempts of one model call, and still no signal.
    expect(h.model.requests.filter((q) => q.conversation === prompt).map((q) => q.attempt)).toEqual([0, 1]);
    expect(await signalsOf(r.threads, threadId)).toEqual([]);
    // The reset came from the retried call itself: the thread's log never saw the draft, and holds the rest.
    const logged = await r.threads.streamUpdates({ threadId });
    expect(durableOf(updates).filter((u) => u.type !== "reset")).toEqual(logged.updates);
  });

  it("stopped mid-stream: readers get a reset (stopped) although the thread never saw the deltas, then the stopped status", async () => {
    const prompt = uid("stopped out of band");
    const hold = h.model.hold();
    h.model.script(prompt, [{ text: STORY, hold, holdAfterChars: 24 }]);
    const threadId = await idleThread(r);
    const reader = follow(r.threads, threadId, (u) => u.type === "status" && u.status === "stopped");
    await vi.waitFor(() => expect(tap.listening(threadId)).toBe(1), WAIT);
    await r.threads.sendMessage({ threadId, prompt });
    await hold.reached;
    await vi.waitFor(() => expect(deltaText(reader.updates()).length).toBeGreaterThanOrEqual(24), WAIT);
    const answerId = reader.updates().find((u) => u.type === "text-delta")!.messageId;
    // The thread's own log has no delta: they went by transport only.
    expect((await r.threads.streamUpdates({ threadId })).updates.some(isDelta)).toBe(false);

    await r.threads.stopThread({ threadId });
    await reader.done;
    hold.release();
    const updates = reader.updates();
    expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
    const reset = updates.find((u) => u.type === "reset");
    expect(reset).toMatchObject({ messageId: answerId, reason: "stopped" });
    expect(reset!.seq).toBeGreaterThan(Math.max(...seqsOf(updates.filter(isDelta))));
    expect(updates.at(-1)).toMatchObject({ type: "status", status: "stopped", previousStatus: "streaming" });
    expect(render(updates).has(answerId)).toBe(false);
    expect(assistantMessage(updates)).toBeUndefined();
    expect(await signalsOf(r.threads, threadId)).toEqual([]);
    expect(durableOf(updates)).toEqual((await r.threads.streamUpdates({ threadId })).updates);
  });
});

describe("a reader that joins mid-turn", () => {
  it("gets the durable entries and the answer's deltas so far in one catch-up, with no query (the transport's replay), then the rest of the answer live", async () => {
    const tap = tapped();
    const r = await rig(inProcessStreamTransport(), tap);
    // The late reader's client counts the thread's stream queries it makes (billed actions).
    let streamQueries = 0;
    const counting: WorkflowClientInterceptor = {
      query(input, next) {
        if (input.queryType === "durable-agents.thread.stream") streamQueries++;
        return next(input);
      },
    };
    const lateTap = tapped();
    const late = otherClient(r, lateTap, new Client({ connection: h.connection, namespace: h.namespace, interceptors: { workflow: [counting] } }));

    const prompt = uid("join late");
    const pieces = [24, 72].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(prompt, [{ toolCalls: [{ name: "lookup", arguments: { word: "durable" } }] }, { text: STORY, holds: pieces }]);
    const threadId = await idleThread(r);
    const early = follow(r.threads, threadId);
    await vi.waitFor(() => expect(tap.listening(threadId)).toBe(1), WAIT);
    await r.threads.sendMessage({ threadId, prompt });
    const [first, second] = pieces;
    await first!.hold.reached;
    await vi.waitFor(() => expect(deltaText(early.updates()).length).toBeGreaterThanOrEqual(24), WAIT);

    // Some of the answer went out already (a tool call and its result before it).
    const shownBefore = deltaText(early.updates()).length;
    const joined = follow(late.threads, threadId);
    await vi.waitFor(() => expect(joined.batches.length).toBeGreaterThan(0), WAIT);
    const soFar = (await r.threads.streamUpdates({ threadId })).updates;
    expect(soFar.some((u) => u.type === "message" && u.message.role === "tool")).toBe(true);
    // The transport kept what was published of the thread: its entries so far and the answer being written, in one batch.
    expect(durableOf(joined.batches[0]!.updates)).toEqual(soFar);
    expect(deltaText(joined.batches[0]!.updates).length).toBeGreaterThanOrEqual(24);
    expect(streamQueries).toBe(0);
    await vi.waitFor(() => expect(lateTap.listening(threadId)).toBe(1), WAIT);
    first!.hold.release();
    await second!.hold.reached;
    // The rest of the answer reaches it as it is written, after what was written before it joined.
    await vi.waitFor(() => expect(deltaText(joined.updates()).length).toBeGreaterThan(shownBefore), WAIT);
    expect(assistantMessage(joined.updates().filter((u) => u.seq > soFar.at(-1)!.seq))).toBeUndefined();
    second!.hold.release();
    await Promise.all([early.done, joined.done]);

    const updates = joined.updates();
    expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
    // Its deltas are the answer from its start: what was written before it joined came first
    // (the worker keeps an answer's deltas while it is written), no piece twice, none skipped.
    const streamed = deltaText(updates);
    expect(streamed.length).toBeGreaterThan(shownBefore);
    expect(streamed).toBe(STORY.slice(0, streamed.length));
    expect(assistantMessage(updates)!.message.content).toBe(STORY);
    expect(durableOf(updates)).toEqual((await r.threads.streamUpdates({ threadId })).updates);
    // Nothing needed a query, the catch-up included: the transport brought it all.
    expect(streamQueries).toBe(0);
  });
});

describe("a reader's poller while the thread's history stands still", () => {
  it("does not describe the thread: it waits for the history to move (a free long-poll), not for the interval, and still sees the answer", async () => {
    const r = await rig(inProcessStreamTransport(), tapped());
    // The reader's client counts its describes of the thread (a read of the server each).
    const described: Array<{ workflowId: string; at: number }> = [];
    const counting: WorkflowClientInterceptor = {
      describe(input, next) {
        described.push({ workflowId: input.workflowExecution.workflowId, at: performance.now() });
        return next(input);
      },
    };
    const watcherTap = tapped();
    const watcher = otherClient(r, watcherTap, new Client({ connection: h.connection, namespace: h.namespace, interceptors: { workflow: [counting] } }));
    const prompt = uid("held still");
    const pieces = [{ hold: h.model.hold(), afterChars: 24 }];
    h.model.script(prompt, [{ text: STORY, holds: pieces }]);
    const threadId = await idleThread(r);
    const reader = follow(watcher.threads, threadId);
    await vi.waitFor(() => expect(watcherTap.listening(threadId)).toBe(1), WAIT);
    await r.threads.sendMessage({ threadId, prompt });
    await pieces[0]!.hold.reached;
    await vi.waitFor(() => expect(deltaText(reader.updates()).length).toBeGreaterThanOrEqual(24), WAIT);

    // The model call is held: the history stands still while the answer comes by transport.
    // The next three looks come from the poller's backstop (the first may still be the
    // history's last move): looking by the clock they would be the reader's 50 ms interval
    // apart; waiting for the history, the backstop's 2 s. A slower machine only widens them.
    const still = described.filter((d) => d.workflowId === threadId).length;
    const looks = () => described.filter((d) => d.workflowId === threadId).slice(still);
    await vi.waitFor(() => expect(looks().length).toBeGreaterThanOrEqual(3), WAIT);
    const [, second, third] = looks();
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(1_000);

    pieces[0]!.hold.release();
    await reader.done;
    expect(assistantMessage(reader.updates())!.message.content).toBe(STORY);
    expect(reader.updates().at(-1)).toMatchObject({ type: "status", status: "completed" });
  });
});

describe("a thread streamed on Redis to readers in other processes", () => {
  const exited = (child: ChildProcess) =>
    new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (code) => resolve(code))));

  it("reaches two reader processes, each with its own client on the same Redis, while the answer is written; no signal in history", async () => {
    redis ??= await startRedis();
    const { url } = redis;
    const transport = redisStreamTransport({ url });
    cleanup.push(() => transport.close());
    // Readers here hear nothing the worker publishes: it publishes on Redis only.
    const r = await rig(transport, inProcessStreamTransport());
    const watcher = createClient({ url });
    watcher.on("error", () => undefined);
    await watcher.connect();
    cleanup.push(() => watcher.close());

    const prompt = uid("across processes");
    const pieces = [24, 72].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(prompt, [{ text: STORY, holds: pieces }]);
    const threadId = await idleThread(r);
    const dir = mkdtempSync(join(tmpdir(), "redis-readers-"));
    const outs = [join(dir, "a.jsonl"), join(dir, "b.jsonl")];
    const readers = await Promise.all(
      outs.map((out) =>
        spawnWorker("thread-reader", { TEMPORAL_ADDRESS: h.address, NAMESPACE: h.namespace, TASK_QUEUE: r.taskQueue, THREAD_ID: threadId, FROM_SEQ: "0", OUT: out, REDIS_URL: url }),
      ),
    );
    // Both processes listen on the thread's channel before its answer starts.
    const channel = `durable-agents:stream:${threadId}`;
    await vi.waitFor(async () => expect(await watcher.sendCommand(["PUBSUB", "NUMSUB", channel])).toEqual([channel, 2]), WAIT);
    await r.threads.sendMessage({ threadId, prompt });
    for (const { hold, afterChars } of pieces) {
      await hold.reached;
      for (const out of outs) {
        await vi.waitFor(() => expect(deltaText(batchesIn(out).flatMap((b) => b.updates)).length).toBeGreaterThanOrEqual(afterChars), WAIT);
        expect(assistantMessage(batchesIn(out).flatMap((b) => b.updates))).toBeUndefined();
      }
      hold.release();
    }
    expect(await Promise.all(readers.map(exited))).toEqual([0, 0]);

    const logged = await r.threads.streamUpdates({ threadId });
    for (const out of outs) {
      const batches = batchesIn(out);
      const updates = batches.flatMap((b) => b.updates);
      expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
      expect(batches.filter((b) => b.status === "streaming" && b.updates.some((u) => u.type === "text-delta")).length).toBeGreaterThanOrEqual(2);
      expect(STORY.startsWith(deltaText(updates))).toBe(true);
      const answerId = updates.find((u) => u.type === "text-delta")!.messageId;
      expect(assistantMessage(updates)!.message).toMatchObject({ id: answerId, content: STORY });
      expect(render(updates).get(answerId)).toBe(STORY);
      expect(durableOf(updates)).toEqual(logged.updates);
    }
    expect(await signalsOf(r.threads, threadId)).toEqual([]);
  });
});

describe("a transport that loses or fails", () => {
  it("drops every other batch, or every durable entry, on its way to the readers: each reader still gets every durable entry once, in order", async () => {
    const r = await rig(inProcessStreamTransport(), tapped());
    const everyOther = tapped((batch, i) => (i % 2 === 0 ? batch : undefined));
    const deltasOnly = tapped((batch) => {
      const entries = batch.entries.filter(isDelta);
      return entries.length > 0 ? { ...batch, entries } : undefined;
    });
    const lossy = [everyOther, deltasOnly].map((transport) => ({ transport, threads: otherClient(r, transport).threads }));

    const prompt = uid("lossy");
    const pieces = [24, 72].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(prompt, [{ toolCalls: [{ name: "lookup", arguments: { word: "lossy" } }] }, { text: STORY, holds: pieces }]);
    const threadId = await idleThread(r);
    // Two readers on each lossy client: they share its poller, and each must get everything.
    const readers = lossy.flatMap(({ threads }) => [follow(threads, threadId), follow(threads, threadId)]);
    for (const { transport } of lossy) await vi.waitFor(() => expect(transport.listening(threadId)).toBe(1), WAIT);
    await r.threads.sendMessage({ threadId, prompt });
    for (const { hold } of pieces) {
      await hold.reached;
      hold.release();
    }
    await Promise.all(readers.map((reader) => reader.done));

    const logged = (await r.threads.streamUpdates({ threadId })).updates;
    expect(logged.map((u) => u.type)).toEqual(expect.arrayContaining(["message", "status"]));
    for (const reader of readers) {
      const updates = reader.updates();
      expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
      expect(durableOf(updates)).toEqual(logged);
      expect(assistantMessage(updates)!.message.content).toBe(STORY);
    }
  });

  it.each([
    ["rejects", () => Promise.reject(new Error("cannot subscribe"))],
    ["never answers", () => new Promise<never>(() => undefined)],
  ])("a client transport whose subscribe %s: readers still follow every durable entry, by query", async (_name, subscribe) => {
    const r = await rig(inProcessStreamTransport(), tapped());
    const broken: StreamTransport = { local: true, publish: async () => undefined, subscribe, close: async () => undefined };
    const { threads } = otherClient(r, broken);
    const prompt = uid("no subscription");
    h.model.script(prompt, [{ text: STORY }]);
    const threadId = await idleThread(r);
    const reader = follow(threads, threadId);
    await r.threads.sendMessage({ threadId, prompt });
    await reader.done;
    const updates = reader.updates();
    expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
    expect(durableOf(updates)).toEqual((await r.threads.streamUpdates({ threadId })).updates);
    expect(assistantMessage(updates)!.message.content).toBe(STORY);
  });

  it("a batch of deltas that lands after its answer's message changes nothing readers show: the answer stays whole and is not being written", async () => {
    // The worker's transport keeps the answer's first batch of deltas until the test lets it go.
    const inner = inProcessStreamTransport();
    const late: Array<() => Promise<void>> = [];
    const slow: StreamTransport = {
      local: true,
      publish(threadId, batch) {
        if (late.length > 0 || !batch.entries.some(isDelta)) return inner.publish(threadId, batch);
        return new Promise<void>((resolve) => late.push(() => inner.publish(threadId, batch).then(resolve)));
      },
      subscribe: (threadId, listener) => inner.subscribe(threadId, listener),
      close: async () => undefined,
    };
    const tap = tapped();
    const r = await rig(slow, tap);
    const prompt = uid("late batch");
    const hold = h.model.hold();
    const next = h.model.hold();
    h.model.script(prompt, [{ text: STORY, hold, holdAfterChars: 24 }, { text: "again", hold: next }]);
    const threadId = await idleThread(r);
    const again = (u: StreamUpdate) => u.type === "message" && u.message.role === "user" && u.message.content === "once more";
    const reader = follow(r.threads, threadId, again);
    await vi.waitFor(() => expect(tap.listening(threadId)).toBe(1), WAIT);
    await r.threads.sendMessage({ threadId, prompt });
    await hold.reached;
    await vi.waitFor(() => expect(late).toHaveLength(1), WAIT);
    hold.release();
    // The model call does not wait on the batch for ever: the turn completes without it.
    await vi.waitFor(() => expect(reader.updates().some(completed)).toBe(true), WAIT);
    const answerId = assistantMessage(reader.updates())!.message.id;
    await late[0]!();
    // The next turn, as a reader sees it begin: nothing is being written yet.
    await r.threads.sendMessage({ threadId, prompt: "once more" });
    await reader.done;
    next.release();
    const updates = reader.updates();
    expect(updates.some(isDelta)).toBe(false);
    expect(render(updates).get(answerId)).toBe(STORY);
    const begun = reader.batches.at(-1)!;
    expect(begun.updates.some(again)).toBe(true);
    expect(begun.streamingMessageId).toBeUndefined();
    expect(h.model.requests.filter((q) => q.conversation === prompt && q.turn === 0)).toHaveLength(1);
  });

  /** A worker transport whose publish misbehaves as `publish` does; it counts the calls. */
  const failing = (publish: () => Promise<void>) => {
    const transport = {
      local: false,
      /** Batches of deltas it was asked to publish: the model call's. */
      deltaBatches: 0,
      publish(_threadId: string, batch: StreamBatch) {
        if (batch.entries.some(isDelta)) transport.deltaBatches++;
        return publish();
      },
      subscribe: async () => ({ unsubscribe: async () => undefined }),
      close: async () => undefined,
    };
    return transport;
  };

  it.each([
    ["throws", () => failing(() => { throw new Error("the transport is broken"); })],
    ["rejects", () => failing(() => Promise.reject(new Error("the transport is down")))],
    ["never answers", () => failing(() => new Promise<void>(() => undefined))],
  ])("publishing on the worker %s: the turn completes and the message is whole", async (_name, make) => {
    const transport = make();
    const r = await rig(transport, tapped());
    const prompt = uid("failing publish");
    const hold = h.model.hold();
    h.model.script(prompt, [{ text: STORY, hold, holdAfterChars: 24 }]);
    const threadId = await idleThread(r);
    const reader = follow(r.threads, threadId);
    await r.threads.sendMessage({ threadId, prompt });
    await hold.reached;
    // The answer's first piece went to the transport (and failed there) while the model wrote.
    await vi.waitFor(() => expect(transport.deltaBatches).toBeGreaterThan(0), WAIT);
    hold.release();
    const view = await r.threads.settled({ threadId });
    expect(view.status).toBe("completed");
    expect((await r.threads.listMessages({ threadId })).messages.at(-1)).toMatchObject({ role: "assistant", content: STORY });
    // Once: a publish still pending held neither the answer back nor the call to a retry.
    expect(h.model.requests.filter((q) => q.conversation === prompt)).toHaveLength(1);
    // Readers, which the transport never reached, follow the thread's durable entries by query.
    await reader.done;
    expect(durableOf(reader.updates())).toEqual((await r.threads.streamUpdates({ threadId })).updates);
    expect(await signalsOf(r.threads, threadId)).toEqual([]);
  });
});

describe("stream options that are not a transport", () => {
  const notTransports: Array<[string, unknown]> = [
    ["an empty object as transport", { transport: {} }],
    ["an object without subscribe as transport", { transport: { publish: async () => undefined } }],
    ["a name as transport", { transport: "redis" }],
    ["null as transport", { transport: null }],
    ["a name as the stream option", "redis"],
  ];

  it.each(notTransports)("createAgentWorker refuses %s with AI1001, and no worker polls", async (_name, stream) => {
    const taskQueue = uid("refused-worker");
    const created = createAgentWorker({
      connection: h.native,
      namespace: h.namespace,
      taskQueue,
      agents: [chatAgent],
      model: openaiModel({ baseURL: h.model.url, apiKey: "scripted" }),
      workflowBundle: h.bundle,
      deferral: { secret: SECRET },
      threads: { stream: stream as { transport: StreamTransport } },
    });
    const refusal = await created.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(InvalidDefinitionError.isInstance(refusal)).toBe(true);
    expect(refusal).toMatchObject({ code: "AI1001" });
    expect(String((refusal as Error).message)).toMatch(/stream/);
    const described = await h.connection.workflowService.describeTaskQueue({ namespace: h.namespace, taskQueue: { name: taskQueue }, taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW });
    expect(described.pollers ?? []).toEqual([]);
  });

  it.each(notTransports)("a client refuses %s with AI1001 when it is made", (_name, stream) => {
    const options = { connection: h.connection, namespace: h.namespace, taskQueue: uid("refused-client"), stream: stream as { transport: StreamTransport } };
    for (const make of [() => new ThreadsClient(options), () => new AgentClient(options)]) {
      let refusal: unknown;
      try {
        make();
      } catch (err) {
        refusal = err;
      }
      expect(InvalidDefinitionError.isInstance(refusal)).toBe(true);
      expect(refusal).toMatchObject({ code: "AI1001" });
    }
  });
});
