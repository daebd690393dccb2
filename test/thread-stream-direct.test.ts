/**
 * Threads streamed straight from the worker: on a direct stream transport the worker serves
 * its threads' batches from an endpoint it announces by a beacon poll, and readers in other
 * processes find it among the pollers of the queue's beacon and connect. What a reader sees: the answer
 * while it is written, every durable entry once and in order, with no broker, no signal in
 * the thread's history and no billed read during the turn; and from an endpoint that is
 * not the worker's (another key), nothing: the reader tells it nothing and reads the thread.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, type WorkflowClientInterceptor } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AgentClient, aesGcmCodec, directStreamTransport, ThreadsClient, type DirectStreamTransport } from "../src/index.js";
import { encryptedWorker } from "./codec-support.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { announcedEndpoints, readEndpoint, squat, streamKeyFrom } from "./stream-endpoint.js";
import { ascending, assistantMessage, batchesIn, follow, deltaText, durableOf, seqsOf, signalsOf } from "./stream-entries.js";
import { chatAgent, render } from "./thread-support.js";
import { kill, killAll, spawnWorker } from "./workers/spawn.js";

const WAIT = { timeout: 30_000, interval: 20 };
const STREAM_QUERY = "durable-agents.thread.stream";
const STORY =
  "The worker served the answer itself, to every reader that had found it among the queue's pollers, " +
  "while the thread kept only the messages and statuses it must, and nothing went through a broker.";

let h: Harness;
const cleanup: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await killAll();
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
  await h?.close();
});

interface Rig {
  threads: ThreadsClient;
  taskQueue: string;
  transport: DirectStreamTransport;
}

/** A worker on a direct transport of its own (listening on loopback, announcing `advertise` when given). */
async function rig(advertise?: string): Promise<Rig> {
  const transport = directStreamTransport({ host: "127.0.0.1", ...(advertise ? { advertise } : {}) });
  cleanup.push(() => transport.close());
  const { agents, taskQueue } = await h.worker([chatAgent], {
    deferral: { secret: SECRET },
    threads: { stream: { transport } },
    client: { threads: { agent: chatAgent }, stream: { transport } },
  });
  return { threads: agents.threads, taskQueue, transport };
}

/** A client as another process has it: a direct transport of its own (not listening), its stream queries counted. */
function elsewhere(r: Rig, onError?: (err: Error) => void): { threads: ThreadsClient; transport: DirectStreamTransport; streamQueries: () => number; describes: (threadId: string) => number[] } {
  let streamQueries = 0;
  const described: Array<{ workflowId: string; at: number }> = [];
  const counting: WorkflowClientInterceptor = {
    query(input, next) {
      if (input.queryType === STREAM_QUERY) streamQueries++;
      return next(input);
    },
    describe(input, next) {
      described.push({ workflowId: input.workflowExecution.workflowId, at: performance.now() });
      return next(input);
    },
  };
  const transport = directStreamTransport(onError ? { onError } : {});
  cleanup.push(() => transport.close());
  const client = new Client({ connection: h.connection, namespace: h.namespace, interceptors: { workflow: [counting] } });
  const agents = new AgentClient({ client, taskQueue: r.taskQueue, threads: { agent: chatAgent }, stream: { transport } });
  return { threads: agents.threads, transport, streamQueries: () => streamQueries, describes: (threadId) => described.filter((d) => d.workflowId === threadId).map((d) => d.at) };
}

async function idleThread(r: Rig): Promise<string> {
  const threadId = uid("direct");
  await r.threads.createThread({ threadId });
  return threadId;
}

describe("a thread streamed on a direct transport", () => {
  it("reaches two reader processes with no broker while the answer is written; no signal in history", async () => {
    const r = await rig();
    const prompt = uid("straight from the worker");
    const pieces = [24, 72].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(prompt, [{ text: STORY, holds: pieces }]);
    const threadId = await idleThread(r);
    const dir = mkdtempSync(join(tmpdir(), "direct-readers-"));
    const outs = [join(dir, "a.jsonl"), join(dir, "b.jsonl")];
    const readers = await Promise.all(
      outs.map((out) => spawnWorker("thread-reader", { TEMPORAL_ADDRESS: h.address, NAMESPACE: h.namespace, TASK_QUEUE: r.taskQueue, THREAD_ID: threadId, FROM_SEQ: "0", OUT: out, DIRECT: "1" })),
    );
    // Both processes found the worker among the queue's pollers and hold a connection to it.
    await vi.waitFor(() => expect(r.transport.connections).toBe(2), WAIT);
    await r.threads.sendMessage({ threadId, prompt });
    for (const { hold, afterChars } of pieces) {
      await hold.reached;
      for (const out of outs) {
        await vi.waitFor(() => expect(deltaText(batchesIn(out).flatMap((b) => b.updates)).length).toBeGreaterThanOrEqual(afterChars), WAIT);
        expect(assistantMessage(batchesIn(out).flatMap((b) => b.updates))).toBeUndefined();
      }
      hold.release();
    }
    const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", resolve)));
    expect(await Promise.all(readers.map(exited))).toEqual([0, 0]);

    const logged = await r.threads.streamUpdates({ threadId });
    for (const out of outs) {
      const updates = batchesIn(out).flatMap((b) => b.updates);
      expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
      const answerId = updates.find((u) => u.type === "text-delta")!.messageId;
      expect(assistantMessage(updates)!.message).toMatchObject({ id: answerId, content: STORY });
      expect(render(updates).get(answerId)).toBe(STORY);
      expect(durableOf(updates)).toEqual(logged.updates);
    }
    expect(await signalsOf(r.threads, threadId)).toEqual([]);
  });

  it("costs a reader elsewhere no query during the turn: the answer and every durable entry come from the worker", async () => {
    const r = await rig();
    const other = elsewhere(r);
    const prompt = uid("no billed read");
    const pieces = [24, 72].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(prompt, [{ toolCalls: [{ name: "lookup", arguments: { word: "direct" } }] }, { text: STORY, holds: pieces }]);
    const threadId = await idleThread(r);
    const reader = follow(other.threads, threadId);
    await vi.waitFor(() => expect(r.transport.connections).toBe(1), WAIT);
    await r.threads.sendMessage({ threadId, prompt });
    for (const { hold, afterChars } of pieces) {
      await hold.reached;
      await vi.waitFor(() => expect(deltaText(reader.updates()).length).toBeGreaterThanOrEqual(afterChars), WAIT);
      hold.release();
    }
    await reader.done;
    const updates = reader.updates();
    expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
    expect(durableOf(updates)).toEqual((await r.threads.streamUpdates({ threadId })).updates);
    expect(assistantMessage(updates)!.message.content).toBe(STORY);
    // At most the joining catch-up read the thread (an idle thread's status line usually
    // spares even that); the turn's entries, a tool call's among them, all came from the worker.
    expect(other.streamQueries()).toBeLessThanOrEqual(1);
    expect(await signalsOf(r.threads, threadId)).toEqual([]);
  });
});

describe("a reader elsewhere while the thread's history stands still", () => {
  it("reads nothing of the server but a look every 2 s: its poller waits for the history to move, its connections describe the thread every 10 s", async () => {
    const r = await rig();
    const other = elsewhere(r);
    const prompt = uid("still");
    const pieces = [{ hold: h.model.hold(), afterChars: 24 }];
    h.model.script(prompt, [{ text: STORY, holds: pieces }]);
    const threadId = await idleThread(r);
    const reader = follow(other.threads, threadId);
    await vi.waitFor(() => expect(r.transport.connections).toBe(1), WAIT);
    await r.threads.sendMessage({ threadId, prompt });
    await pieces[0]!.hold.reached;
    await vi.waitFor(() => expect(deltaText(reader.updates()).length).toBeGreaterThanOrEqual(24), WAIT);

    // The model call is held and the answer comes from the worker: the history stands still.
    // Looking by the clock, the next describes would be the reader's 50 ms interval apart
    // (and the connections' once a second between); waiting for the history, the poller's 2 s
    // backstop, with at most one of the connections' every 10 s between. A slower machine
    // only widens the gaps.
    const still = other.describes(threadId).length;
    const looks = () => other.describes(threadId).slice(still);
    await vi.waitFor(() => expect(looks().length).toBeGreaterThanOrEqual(5), WAIT);
    const gaps = looks().slice(1, 5).flatMap((at, i, rest) => (i === 0 ? [] : [at - rest[i - 1]!]));
    expect(gaps.filter((gap) => gap >= 1_000).length).toBeGreaterThanOrEqual(2);

    pieces[0]!.hold.release();
    await reader.done;
    expect(assistantMessage(reader.updates())!.message.content).toBe(STORY);
    expect(other.streamQueries()).toBeLessThanOrEqual(1);
  });
});

describe("a reader that joins", () => {
  it("costs no query, even mid-answer on a new thread: the worker's replay brings the thread's entries so far and the answer from its start, then the rest comes live", async () => {
    const r = await rig();
    const other = elsewhere(r);
    const threadId = uid("joins free");
    const hold = h.model.hold();
    h.model.script(threadId, [{ text: STORY, hold, holdAfterChars: 24 }]);
    await r.threads.createThread({ threadId, prompt: threadId });
    await hold.reached;
    // The answer is being written: the reader arrives after its first pieces went out.
    const reader = follow(other.threads, threadId);
    await vi.waitFor(() => expect(deltaText(reader.updates()).length).toBeGreaterThanOrEqual(24), WAIT);
    expect(deltaText(reader.updates())).toBe(STORY.slice(0, deltaText(reader.updates()).length));
    hold.release();
    await reader.done;
    const updates = reader.updates();
    expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
    expect(durableOf(updates)).toEqual((await r.threads.streamUpdates({ threadId })).updates);
    const answer = assistantMessage(updates)!.message;
    expect(answer.content).toBe(STORY);
    expect(render(updates).get(answer.id)).toBe(STORY);
    expect(other.streamQueries()).toBe(0);
  });
});

describe("the defaults", () => {
  it("a worker with no stream setting serves its deltas from its own endpoint, encoded with its payload codec, closed when the worker stops; a client with none hears them", async () => {
    const codec = aesGcmCodec({ keys: { k1: randomBytes(32) }, current: "k1" });
    const { agents, taskQueue, worker, running } = await encryptedWorker(h, [chatAgent], codec, { client: { threads: { agent: chatAgent } } });
    // The endpoint as readers elsewhere find it: among the pollers of the queue's beacon, once the worker runs.
    const [endpoint] = await vi.waitFor(async () => {
      const found = await announcedEndpoints(agents.client, taskQueue);
      expect(found).toHaveLength(1);
      return found;
    }, WAIT);
    expect(endpoint!.url).toMatch(/^https:\/\//);

    const threadId = uid("defaults");
    await agents.threads.createThread({ threadId });
    // What goes over the network, read as a reader does (its key from the thread's memo, which the codec decodes).
    const { key, runId } = await streamKeyFrom(agents.client, threadId);
    expect(key).toBeDefined();
    const raw = await readEndpoint(endpoint!, { thread: threadId, run: runId, key: key! });
    expect(raw.status).toBe(200);
    const wire = raw.lines;

    const prompt = uid("encrypted on the wire");
    const pieces = [24, 72].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(prompt, [{ text: STORY, holds: pieces }]);
    const reader = follow(agents.threads, threadId);
    await agents.threads.sendMessage({ threadId, prompt });
    for (const { hold, afterChars } of pieces) {
      await hold.reached;
      await vi.waitFor(() => expect(deltaText(reader.updates()).length).toBeGreaterThanOrEqual(afterChars), WAIT);
      // The deltas went out to the network reader too, before the answer goes on.
      await vi.waitFor(() => expect(wire.length).toBeGreaterThan(0), WAIT);
      hold.release();
    }
    await reader.done;
    expect(assistantMessage(reader.updates())!.message.content).toBe(STORY);
    expect(await signalsOf(agents.threads, threadId)).toEqual([]);
    expect(wire.every((line) => "payload" in (JSON.parse(line) as object))).toBe(true);
    expect(wire.join("")).not.toContain(STORY.slice(0, 12));

    // A worker that stopped has closed its endpoint: nobody connects to it any more.
    worker.shutdown();
    await running;
    await raw.body;
    await expect(readEndpoint(endpoint!, { thread: threadId, run: runId, key: key! })).rejects.toThrow();
  });
});

describe("a worker killed mid-answer", () => {
  it("its reader finds the worker that takes over among the pollers and gets the retried answer as it is written, after a reset", async () => {
    const taskQueue = uid("direct-crash");
    const env = { TEMPORAL_ADDRESS: h.address, NAMESPACE: h.namespace, TASK_QUEUE: taskQueue, MODEL_URL: h.model.url, DIRECT: "1" };
    const prompt = uid("crash mid-answer");
    const cut = h.model.hold();
    const retried = h.model.hold();
    const midway = h.model.hold();
    // The first attempt stops part-way until its worker dies; the retry waits before its first character, then midway.
    h.model.respond(prompt, (req) =>
      req.attempt === 0 ? { text: STORY, hold: cut, holdAfterChars: 24 } : { text: STORY, holds: [{ hold: retried, afterChars: 0 }, { hold: midway, afterChars: 48 }] },
    );
    const first = await spawnWorker("thread-worker", env);
    const transport = directStreamTransport();
    cleanup.push(() => transport.close());
    const threads = new ThreadsClient({ connection: h.connection, namespace: h.namespace, taskQueue, agent: "storyteller", stream: { transport } });
    const threadId = uid("direct-crash");
    await threads.createThread({ threadId });
    const reader = follow(threads, threadId);
    await vi.waitFor(() => expect(transport.workerConnections).toBe(1), WAIT);
    await threads.sendMessage({ threadId, prompt });
    await cut.reached;
    await vi.waitFor(() => expect(deltaText(reader.updates()).length).toBeGreaterThanOrEqual(24), WAIT);
    const answerId = reader.updates().find((u) => u.type === "text-delta")!.messageId;

    await kill(first, "SIGKILL");
    await spawnWorker("thread-worker", env);
    // The call is retried on the new worker (after its heartbeat timeout); the reader has found that worker by then.
    await retried.reached;
    await vi.waitFor(() => expect(transport.workerConnections).toBe(1), WAIT);
    retried.release();
    await midway.reached;
    await vi.waitFor(() => expect(render(reader.updates()).get(answerId)?.length ?? 0).toBeGreaterThanOrEqual(48), WAIT);
    expect(reader.updates().some((u) => u.type === "reset" && u.reason === "retry")).toBe(true);
    expect(STORY.startsWith(render(reader.updates()).get(answerId)!)).toBe(true);
    expect(assistantMessage(reader.updates())).toBeUndefined();
    midway.release();
    await reader.done;
    cut.release();

    const updates = reader.updates();
    expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
    expect(render(updates)).toEqual(new Map([[answerId, STORY]]));
    expect(durableOf(updates).filter((u) => u.type !== "reset")).toEqual((await threads.streamUpdates({ threadId })).updates);
    expect(h.model.requests.filter((q) => q.conversation === prompt).map((q) => q.attempt)).toEqual([0, 1]);
    expect(await signalsOf(threads, threadId)).toEqual([]);
  });
});

describe("an endpoint that is not the worker's", () => {
  it("is told nothing and believed in nothing: the reader shows only what the thread holds, read from the thread", async () => {
    // A process that answers on the address the worker announces, with a key of its own.
    const liar = await squat(0);
    const r = await rig(`https://127.0.0.1:${liar.port}`);
    const other = elsewhere(r);
    const prompt = uid("garbage");
    h.model.script(prompt, [{ text: STORY }]);
    const threadId = await idleThread(r);
    const reader = follow(other.threads, threadId);
    await vi.waitFor(() => expect(liar.connections()).toBeGreaterThan(0), WAIT);
    await r.threads.sendMessage({ threadId, prompt });
    await reader.done;
    const updates = reader.updates();
    expect(seqsOf(updates)).toEqual(ascending(seqsOf(updates)));
    expect(durableOf(updates)).toEqual((await r.threads.streamUpdates({ threadId })).updates);
    expect(assistantMessage(updates)!.message.content).toBe(STORY);
    expect(JSON.stringify(updates)).not.toContain("FORGED");
    expect(liar.told()).not.toContain(threadId);
    expect(other.transport.workerConnections).toBe(0);
    await liar.close();
  });
});
