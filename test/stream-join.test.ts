/**
 * Readers that join mid-answer in a process that already follows the thread or run: a
 * second `followUpdates({ fromSeq })` and an SSE reconnect with `Last-Event-ID` each get every
 * entry after their seq, once and in order, deltas included, exactly what a reader that
 * stayed got after that seq (docs/threads.md: a joining reader first gets the answer's deltas
 * so far; docs/http.md: a reconnect continues exactly after its id).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client, type WorkflowClientInterceptor } from "@temporalio/client";
import { AgentClient, defineAgent, type StreamSnapshot, type StreamTransport, type StreamUpdate } from "../src/index.js";
import { openEvents, startHttp, type HttpServer, type SseEvent } from "./http-support.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { assistantMessage, deltaText, follow, isDelta } from "./stream-entries.js";

const WAIT = { timeout: 30_000, interval: 20 };
const STORY =
  "Every reader that joined while the answer was being written got what it had missed first, " +
  "and then the rest as it came, each piece once and in order, as if it had been there from its seq on.";

const storyteller = defineAgent({ id: "join-storyteller", model: "gpt-4.1-mini", system: "Tell.", tools: [], maxTurns: 2 });

let h: Harness;
let agents: AgentClient;
let taskQueue: string;
let http: HttpServer;
beforeAll(async () => {
  h = await startHarness();
  ({ agents, taskQueue } = await h.worker([storyteller], { client: { threads: { agent: storyteller } } }));
  http = await startHttp({ agents, threads: agents.threads, events: { pollInterval: 50 } });
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

const after = (updates: StreamUpdate[], seq: number) => updates.filter((u) => u.seq > seq);
const seqs = (updates: StreamUpdate[]) => updates.map((u) => u.seq);

/** Collects a run's followUpdates from `fromSeq` until its answer's message. */
function followRun(runId: string, fromSeq = 0): { updates(): StreamUpdate[]; done: Promise<void> } {
  const batches: StreamSnapshot[] = [];
  const done = (async () => {
    for await (const b of agents.followUpdates({ runId, fromSeq, pollInterval: 50 })) {
      batches.push(b);
      if (b.updates.some((u) => u.type === "status" && u.status === "completed")) return;
    }
  })();
  return { updates: () => batches.flatMap((b) => b.updates), done };
}

describe("a reader joining mid-answer in a process that already follows", () => {
  it("of a thread gets every entry after its fromSeq, the answer's earlier deltas included, once and in order", async () => {
    const threadId = uid("join-thread");
    const [first, second] = [40, 120].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(threadId, [{ text: STORY, holds: [first!, second!] }]);
    await agents.threads.createThread({ threadId });
    const stayed = follow(agents.threads, threadId);
    await agents.threads.sendMessage({ threadId, prompt: threadId });
    await first!.hold.reached;
    await vi.waitFor(() => expect(deltaText(stayed.updates()).length).toBeGreaterThanOrEqual(40), WAIT);
    first!.hold.release();
    await second!.hold.reached;
    await vi.waitFor(() => expect(deltaText(stayed.updates()).length).toBeGreaterThanOrEqual(120), WAIT);
    // Mid-answer, two readers join the poller this process already runs: one from the
    // answer's second delta, one from before the answer began.
    const deltas = stayed.updates().filter(isDelta);
    const fromDelta = deltas[1]!.seq;
    const fromStart = Math.max(...stayed.updates().filter((u) => !isDelta(u) && u.seq < deltas[0]!.seq).map((u) => u.seq));
    const joinedAtDelta = followFrom(threadId, fromDelta);
    const joinedAtStart = followFrom(threadId, fromStart);
    // Both have caught up on what they missed before the answer goes on.
    await vi.waitFor(() => expect(deltaText(joinedAtStart.updates()).length).toBeGreaterThanOrEqual(120), WAIT);
    await vi.waitFor(() => expect(seqs(joinedAtDelta.updates())).toEqual(seqs(after(stayed.updates(), fromDelta))), WAIT);
    second!.hold.release();
    await Promise.all([stayed.done, joinedAtDelta.done, joinedAtStart.done]);

    const all = stayed.updates();
    expect(assistantMessage(all)!.message.content).toBe(STORY);
    expect(seqs(joinedAtDelta.updates())).toEqual(seqs(after(all, fromDelta)));
    expect(seqs(joinedAtStart.updates())).toEqual(seqs(after(all, fromStart)));
    expect(STORY.startsWith(deltaText(joinedAtStart.updates()))).toBe(true);
    expect(deltaText(joinedAtStart.updates()).length).toBeGreaterThanOrEqual(120);
  });

  it("of a run gets every entry after its fromSeq, the answer's earlier deltas included, once and in order", async () => {
    const runId = uid("join-run");
    const [first, second] = [40, 120].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(runId, [{ text: STORY, holds: [first!, second!] }]);
    await agents.start(storyteller, { prompt: runId, runId, stream: true });
    const stayed = followRun(runId);
    await first!.hold.reached;
    await vi.waitFor(() => expect(deltaText(stayed.updates()).length).toBeGreaterThanOrEqual(40), WAIT);
    first!.hold.release();
    await second!.hold.reached;
    await vi.waitFor(() => expect(deltaText(stayed.updates()).length).toBeGreaterThanOrEqual(120), WAIT);
    const fromDelta = stayed.updates().filter(isDelta)[0]!.seq;
    const joined = followRun(runId, fromDelta);
    await vi.waitFor(() => expect(seqs(joined.updates())).toEqual(seqs(after(stayed.updates(), fromDelta))), WAIT);
    second!.hold.release();
    await Promise.all([stayed.done, joined.done]);
    expect(seqs(joined.updates())).toEqual(seqs(after(stayed.updates(), fromDelta)));
    expect(assistantMessage(stayed.updates())!.message.content).toBe(STORY);
  });
});

describe("an SSE reader that reconnects mid-answer with Last-Event-ID", () => {
  it("continues exactly after its last id, every delta once, while another tab of the same front door kept following", async () => {
    const threadId = uid("join-sse");
    const [first, second] = [40, 120].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(threadId, [{ text: STORY, holds: [first!, second!] }]);
    await agents.threads.createThread({ threadId });
    const url = `${http.url}/threads/${threadId}/events`;
    const updatesOf = (events: SseEvent[]) => events.filter((e) => e.event === "message").map((e) => JSON.parse(e.data) as StreamUpdate);
    const otherTab = await openEvents(url);
    const tab = await openEvents(url);
    await agents.threads.sendMessage({ threadId, prompt: threadId });
    await first!.hold.reached;
    await tab.until((_e, all) => deltaText(updatesOf(all)).length >= 40);
    tab.close();
    const before = updatesOf(tab.events);
    const lastId = tab.events.filter((e) => e.id).at(-1)!.id!;
    // The answer goes on while the tab is away.
    first!.hold.release();
    await second!.hold.reached;
    await otherTab.until((_e, all) => deltaText(updatesOf(all)).length >= 120);
    const again = await openEvents(url, { lastEventId: lastId });
    await again.until((_e, all) => deltaText([...before, ...updatesOf(all)]).length >= 120);
    second!.hold.release();
    const done = (e: SseEvent) => e.event === "message" && JSON.parse(e.data).type === "status" && JSON.parse(e.data).status === "completed";
    await Promise.all([again.until(done), otherTab.until(done)]);
    again.close();
    otherTab.close();

    const whole = [...before, ...updatesOf(again.events)];
    expect(seqs(whole)).toEqual(seqs(updatesOf(otherTab.events)));
    expect(deltaText(whole)).toBe(deltaText(updatesOf(otherTab.events)));
    expect(assistantMessage(whole)!.message.content).toBe(STORY);
  });
});

describe("a reader that joins while the poller looks at a thread not created yet", () => {
  it("is not told the thread does not exist by the look that began before it joined; it follows the thread", async () => {
    const threadId = uid("join-created");
    // The poller's first describe finds no thread, and its answer is held until the second reader joined.
    const release = { now: () => undefined as void };
    const held = new Promise<void>((resolve) => (release.now = resolve));
    let looked: () => void = () => undefined;
    const firstLook = new Promise<void>((resolve) => (looked = resolve));
    let holding = true;
    const slowFirstLook: WorkflowClientInterceptor = {
      async describe(input, next) {
        try {
          return await next(input);
        } catch (err) {
          if (input.workflowExecution.workflowId === threadId && holding) {
            holding = false;
            looked();
            await held;
          }
          throw err;
        }
      },
    };
    const client = new Client({ connection: h.connection, namespace: h.namespace, interceptors: { workflow: [slowFirstLook] } });
    // A transport that reaches no worker and tails nothing: the poller's looks are the only
    // describes of the thread (the entries come by query).
    const silent: StreamTransport = { local: false, publish: async () => undefined, subscribe: async () => ({ unsubscribe: async () => undefined }), close: async () => undefined };
    const threads = new AgentClient({ client, taskQueue, threads: { agent: storyteller }, stream: { transport: silent } }).threads;
    const early = (async () => {
      for await (const _ of threads.followUpdates({ threadId, pollInterval: 50 })) break;
    })();
    early.catch(() => undefined); // asserted below
    await firstLook;
    h.model.script(threadId, [{ text: STORY }]);
    await agents.threads.createThread({ threadId });
    const late = follow(threads, threadId);
    release.now();
    // The reader that was there when the thread was not is told so; the one that joined after follows it.
    await expect(early).rejects.toMatchObject({ code: "AI1020" });
    await agents.threads.sendMessage({ threadId, prompt: threadId });
    await late.done;
    expect(assistantMessage(late.updates())!.message.content).toBe(STORY);
  });
});

/** A second follower of the same thread in this process (the same client, so the same poller), from `fromSeq`. */
function followFrom(threadId: string, fromSeq: number): { updates(): StreamUpdate[]; done: Promise<void> } {
  const batches: StreamSnapshot[] = [];
  const done = (async () => {
    for await (const b of agents.threads.followUpdates({ threadId, fromSeq, pollInterval: 50, until: (s) => s.updates.some((u) => u.type === "status" && u.status === "completed") })) batches.push(b);
  })();
  return { updates: () => batches.flatMap((b) => b.updates), done };
}
