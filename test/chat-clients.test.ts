/**
 * The browser clients of `durable-agents/react` without a browser: the thread store behind
 * the hooks and the useChat transport, against the real front door (a connection cut
 * mid-answer) and against a hostile one (unreadable events, error answers).
 */
import type { UIMessageChunk } from "ai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApprovalsStore, ThreadChatTransport, ThreadStore, type ThreadStoreState } from "../src/react.js";
import type { AgentClient } from "../src/index.js";
import { effects, supportAgent } from "../examples/chat/agent.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";

const at = "2026-01-01T00:00:00.000Z";
const thread = (status = "streaming") => ({ threadId: "t", agentId: "support", status, createdAt: at, updatedAt: at, messageCount: 1, queued: [], toolCalls: [], usage: {}, modelCalls: 0, generation: 0, lastSeq: 0, stream: true });
const userMessage = { id: "u", role: "user", content: "hi", createdAt: at };
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const sse = (text: string) => new Response(text, { headers: { "content-type": "text/event-stream" } });
const entry = (e: Record<string, unknown>) => `id: ${e.seq}\ndata: ${JSON.stringify(e)}\n\n`;

/** A front door played by the test: each route answers from its queue (the last answer repeats). */
function fakeFrontDoor(routes: Record<string, Array<() => Response>>) {
  const requests: Array<{ route: string; lastEventId: string | null }> = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), "http://front.door");
    const route = `${init?.method ?? "GET"} ${url.pathname}`;
    requests.push({ route, lastEventId: new Headers(init?.headers).get("last-event-id") });
    const queue = routes[route];
    if (!queue) return json({ error: { code: "AI1042", message: `no route ${route}` } }, 404);
    return (queue.length > 1 ? queue.shift()! : queue[0]!)();
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

/** Follows the store until `test` holds for its state. */
async function until(store: ThreadStore, test: (s: ThreadStoreState) => boolean): Promise<ThreadStoreState> {
  const states: ThreadStoreState[] = [];
  const unsubscribe = store.subscribe(() => states.push(store.getSnapshot()));
  try {
    await vi.waitFor(() => expect(test(store.getSnapshot())).toBe(true), { timeout: 20_000, interval: 10 });
    return store.getSnapshot();
  } finally {
    unsubscribe();
  }
}

describe("the thread store given hostile answers", () => {
  it.each([
    ["not JSON", "id: 2\ndata: {nope\n\n"],
    ["not a stream entry", entry({ seq: 2, type: "text-delta", messageId: "m" })],
    ["an unknown status", entry({ seq: 2, type: "status", status: "hacked", previousStatus: "idle", at })],
    ["an id that is not its seq", `id: 7\ndata: ${JSON.stringify({ seq: 2, type: "text-delta", messageId: "m", text: "x" })}\n\n`],
  ])("an event that is %s becomes AI1060, keeps what was shown, and the next connection continues after the last good entry", async (_what, bad) => {
    const door = fakeFrontDoor({
      "GET /threads/t": [() => json(thread())],
      "GET /threads/t/messages": [() => json({ messages: [userMessage], total: 1 })],
      "GET /threads/t/events": [
        () => sse(entry({ seq: 1, type: "text-delta", messageId: "m", text: "Hel" }) + bad),
        () =>
          sse(
            entry({ seq: 2, type: "text-delta", messageId: "m", text: "lo" }) +
              entry({ seq: 3, type: "message", message: { id: "m", role: "assistant", content: "Hello", createdAt: at } }) +
              entry({ seq: 4, type: "status", status: "completed", previousStatus: "streaming", at }),
          ),
        // Afterwards the stream stays open with nothing new.
        () => new Response(new ReadableStream(), { headers: { "content-type": "text/event-stream" } }),
      ],
    });
    const store = new ThreadStore({ threadId: "t", fetch: door.fetch });
    const stopped = store.subscribe(() => undefined);
    const failed = await until(store, (s) => s.error?.code === "AI1060");
    expect(failed.messages.map((m) => [m.role, m.metadata.status, m.parts.flatMap((p) => (p.type === "text" ? [p.text] : []))])).toEqual([
      ["user", "success", ["hi"]],
      ["assistant", "streaming", ["Hel"]],
    ]);
    const done = await until(store, (s) => s.status === "completed");
    stopped();
    expect(done.error).toBeUndefined();
    expect(done.messages.at(-1)).toMatchObject({ id: "m", metadata: { status: "success" }, parts: [{ type: "step-start" }, { type: "text", text: "Hello" }] });
    const events = door.requests.filter((r) => r.route === "GET /threads/t/events");
    // The first connection asks for the window (no Last-Event-ID); the next one continues after seq 1, the last entry applied.
    expect(events.slice(0, 2).map((r) => r.lastEventId)).toEqual([null, "1"]);
  });

  it("turns error answers into typed error states: an unreadable 500 is AI1060 and retried, a refusal is its own code and final", async () => {
    const flaky = fakeFrontDoor({
      "GET /threads/t": [() => new Response("<html>proxy error</html>", { status: 502 }), () => json(thread("completed"))],
      "GET /threads/t/messages": [() => json({ messages: [userMessage], total: 1 })],
      "GET /threads/t/events": [() => new Response(new ReadableStream(), { headers: { "content-type": "text/event-stream" } })],
    });
    const store = new ThreadStore({ threadId: "t", fetch: flaky.fetch });
    const leave = store.subscribe(() => undefined);
    const failed = await until(store, (s) => s.error !== undefined);
    expect(failed.error).toMatchObject({ code: "AI1060", status: 502 });
    const loaded = await until(store, (s) => !s.isLoading && s.error === undefined);
    expect(loaded.messages).toHaveLength(1);
    leave();

    const refused = fakeFrontDoor({ "GET /threads/t": [() => json({ error: { code: "AI1021", message: "not yours" } }, 403)] });
    const denied = new ThreadStore({ threadId: "t", fetch: refused.fetch });
    const gone = denied.subscribe(() => undefined);
    expect((await until(denied, (s) => s.error !== undefined)).error).toMatchObject({ code: "AI1021", status: 403, message: "not yours" });
    gone();

    // The stream's own `event: error` (the thread was deleted meanwhile) ends following with that code.
    const deleted = fakeFrontDoor({
      "GET /threads/t": [() => json(thread())],
      "GET /threads/t/messages": [() => json({ messages: [], total: 0 })],
      "GET /threads/t/events": [() => sse(`event: error\ndata: ${JSON.stringify({ code: "AI1020", message: "no such thread" })}\n\n`)],
    });
    const orphan = new ThreadStore({ threadId: "t", fetch: deleted.fetch });
    const bye = orphan.subscribe(() => undefined);
    expect((await until(orphan, (s) => s.error !== undefined)).error).toMatchObject({ code: "AI1020" });
    bye();
  });

  it("reconnects when a connection goes silent (a tab that slept), from the last seq", async () => {
    const door = fakeFrontDoor({
      "GET /threads/t": [() => json(thread())],
      "GET /threads/t/messages": [() => json({ messages: [userMessage], total: 1 })],
      "GET /threads/t/events": [
        // Half-open: one entry, then nothing at all, not even a keep-alive.
        () => new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(entry({ seq: 1, type: "text-delta", messageId: "m", text: "Hi" }))) }), { headers: { "content-type": "text/event-stream" } }),
        () => sse(entry({ seq: 2, type: "message", message: { id: "m", role: "assistant", content: "Hi there", createdAt: at } }) + entry({ seq: 3, type: "status", status: "completed", previousStatus: "streaming", at })),
        () => new Response(new ReadableStream(), { headers: { "content-type": "text/event-stream" } }),
      ],
    });
    const store = new ThreadStore({ threadId: "t", fetch: door.fetch, staleAfter: "200ms" });
    const leave = store.subscribe(() => undefined);
    const done = await until(store, (s) => s.status === "completed");
    leave();
    expect(done.messages.at(-1)!.parts).toEqual([{ type: "step-start" }, { type: "text", text: "Hi there", state: "done" }]);
    expect(door.requests.filter((r) => r.route === "GET /threads/t/events").slice(0, 2).map((r) => r.lastEventId)).toEqual([null, "1"]);
  });
});

describe("the useChat transport given hostile answers", () => {
  const read = async (stream: ReadableStream<UIMessageChunk>) => {
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
    return chunks;
  };
  const send = (transport: ThreadChatTransport) =>
    transport.sendMessages({ chatId: "t", trigger: "submit-message", messageId: undefined, abortSignal: undefined, messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "hi" }] }] });

  it("ends the stream with an error chunk (AI1060) on an unreadable event, after what it could read", async () => {
    const door = fakeFrontDoor({
      "GET /threads/t": [() => json(thread("completed"))],
      "POST /threads/t/messages": [() => json({ messageId: "u", queued: false, duplicate: false }, 202)],
      "GET /threads/t/events": [() => sse(entry({ seq: 1, type: "message", message: userMessage }) + entry({ seq: 2, type: "text-delta", messageId: "m", text: "Hel" }) + "id: 3\ndata: [1,2\n\n")],
    });
    const chunks = await read(await send(new ThreadChatTransport({ fetch: door.fetch })));
    expect(chunks.slice(0, 4)).toEqual([{ type: "start", messageId: "m" }, { type: "start-step" }, { type: "text-start", id: "m:2" }, { type: "text-delta", id: "m:2", delta: "Hel" }]);
    expect(chunks.at(-1)).toMatchObject({ type: "error", errorText: expect.stringContaining("AI1060") });
  });

  it("rejects with the typed error when the front door refuses the message or answers garbage", async () => {
    const refused = fakeFrontDoor({
      "GET /threads/t": [() => json(thread("completed"))],
      "POST /threads/t/messages": [() => json({ error: { code: "AI1021", message: "not yours" } }, 403)],
    });
    await expect(send(new ThreadChatTransport({ fetch: refused.fetch }))).rejects.toMatchObject({ code: "AI1021", status: 403 });
    const garbage = fakeFrontDoor({
      "GET /threads/t": [() => json(thread("completed"))],
      "POST /threads/t/messages": [() => json({ hello: "world" }, 202)],
    });
    await expect(send(new ThreadChatTransport({ fetch: garbage.fetch }))).rejects.toMatchObject({ code: "AI1060" });
  });
});

describe("the thread store on the real front door", () => {
  let h: Harness;
  let http: HttpServer;
  let agents: AgentClient;
  beforeAll(async () => {
    h = await startHarness();
    ({ agents } = await h.worker([supportAgent], {
      deferral: { secret: SECRET },
      client: { deferral: { secret: SECRET }, threads: { agent: supportAgent, authorize: (request) => request.principal !== undefined } },
    }));
    http = await startHttp({ agents });
  });
  afterAll(async () => {
    await http?.close();
    await h?.close();
  });

  it("continues from the last seq when the connection drops mid-answer: every state shows a prefix of the answer, the last exactly the answer", async () => {
    const prompt = uid("cut");
    const answer = "A connection cut in the middle of this answer loses nothing and repeats nothing, because the reader continues after its last seq.";
    // The model stops mid-answer until the reader was cut in a delta and came back: a reader
    // that first looked after the answer landed would see no delta to be cut in.
    const hold = h.model.hold();
    h.model.script(prompt, [{ text: answer, hold, holdAfterChars: answer.indexOf(" loses") }]);
    const created = await http.call("POST", "/threads", { user: "alice", body: {} });
    const threadId = created.body.threadId as string;

    // The first event stream is cut right after it delivered part of the answer, as a dropped network would.
    const eventRequests: Array<string | null> = [];
    let cut = false;
    const cutting = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const response = await fetch(input, init);
      if (!String(input).endsWith("/events")) return response;
      eventRequests.push(new Headers(init?.headers).get("last-event-id"));
      if (cut) return response;
      cut = true;
      const reader = response.body!.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          if (new TextDecoder().decode(value).includes('"type":"text-delta"')) {
            void reader.cancel();
            controller.error(new TypeError("network connection lost"));
          }
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    }) as typeof fetch;

    const store = new ThreadStore({ threadId, baseUrl: http.url, fetch: cutting, headers: { "x-user": "alice" } });
    const texts: string[] = [];
    const leave = store.subscribe(() => {
      const last = store.getSnapshot().messages.at(-1);
      if (last?.role === "assistant") texts.push(last.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join(""));
    });
    await until(store, (s) => !s.isLoading);
    await store.sendMessage({ prompt });
    await vi.waitFor(() => expect(eventRequests.length).toBeGreaterThanOrEqual(2), { timeout: 30_000, interval: 10 });
    hold.release();
    const done = await until(store, (s) => s.status === "completed");
    leave();
    expect(done.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(texts.at(-1)).toBe(answer);
    for (const text of texts) expect(answer.startsWith(text)).toBe(true);
    expect(eventRequests.length).toBeGreaterThanOrEqual(2);
    expect(Number(eventRequests[1])).toBeGreaterThan(0);
    h.model.assertNoFailures();
  });

  const textOf = (chunks: UIMessageChunk[]) => chunks.flatMap((c) => (c.type === "text-delta" ? [c.delta] : [])).join("");

  it("useChat's transport creates the thread a new chat id names, streams the turn, and finishes; reconnectToStream continues a running turn", async () => {
    const transport = new ThreadChatTransport({ baseUrl: http.url, headers: { "x-user": "alice" } });
    const threadId = uid("chat");
    const prompt = uid("transport");
    const answer = "Streamed through the transport, then finished.";
    h.model.script(prompt, [{ text: answer }]);
    const stream = await transport.sendMessages({
      chatId: threadId,
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
      messages: [{ id: uid("ui"), role: "user", parts: [{ type: "text", text: prompt }] }],
    });
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
    expect(textOf(chunks)).toBe(answer);
    expect(chunks[0]).toMatchObject({ type: "start" });
    expect(chunks.at(-1)).toEqual({ type: "finish" });
    expect(await transport.reconnectToStream({ chatId: threadId })).toBeNull();

    // A second turn, joined mid-answer as a reloaded useChat would: the text so far, then the rest, each once.
    const slow = "A reconnect gets the text written so far and then the rest, never a chunk twice.";
    // The model stops after some of the answer until the reconnect has joined the running turn.
    const hold = h.model.hold();
    h.model.script(prompt, [{ text: answer }, { text: slow, hold, holdAfterChars: slow.indexOf(" and") }]);
    await http.call("POST", `/threads/${threadId}/messages`, { user: "alice", body: { prompt: "again" } });
    // Mid-answer: the deltas so far are not in the thread's log; the reconnect gets them from the worker's transport.
    await hold.reached;
    const resumed = await transport.reconnectToStream({ chatId: threadId });
    expect(resumed).not.toBeNull();
    hold.release();
    const again: UIMessageChunk[] = [];
    for await (const chunk of resumed as unknown as AsyncIterable<UIMessageChunk>) again.push(chunk);
    expect(textOf(again)).toBe(slow);
    expect(again.at(-1)).toEqual({ type: "finish" });
    h.model.assertNoFailures();
  });

  const alice = { id: "alice" };
  const cancelled = (threadId: string) => effects.filter((e) => e.threadId === threadId && e.tool === "cancelOrder").map((e) => e.order);

  /** A thread of alice's whose first turn calls the gated cancelOrder for `order`, then says `after`. */
  async function gatedThread(prefix: string, order: string, after: { text: string; check?: (req: { messages: Array<{ role: string; content?: unknown }> }) => void }) {
    const prompt = uid(prefix);
    h.model.script(prompt, [{ toolCalls: [{ name: "cancelOrder", arguments: { order } }] }, after]);
    const threadId = (await http.call("POST", "/threads", { user: "alice", body: {} })).body.threadId as string;
    return { prompt, threadId };
  }

  it("the thread store lists a gated call's request and shows the call waiting; approve runs it once, reject never, and the messages say which", async () => {
    for (const decision of ["approve", "reject"] as const) {
      const { prompt, threadId } = await gatedThread(`store-${decision}`, "77", {
        text: `${decision}d`,
        ...(decision === "reject" ? { check: (req) => expect(String(req.messages.at(-1)?.content)).toMatch(/^Rejected by alice: "cancelOrder" was not run\. Reason: changed my mind/) } : {}),
      });
      const store = new ThreadStore({ threadId, baseUrl: http.url, headers: { "x-user": "alice" } });
      const leave = store.subscribe(() => undefined);
      await until(store, (s) => !s.isLoading);
      await store.sendMessage({ prompt });
      const waiting = await until(store, (s) => s.approvals.length === 1 && s.messages.at(-1)?.parts.some((p) => p.type === "tool-cancelOrder") === true);
      const [request] = waiting.approvals;
      expect(request!.calls).toEqual([{ toolCallId: expect.any(String), toolName: "cancelOrder", arguments: '{"order":"77"}' }]);
      expect(waiting.messages.at(-1)!.parts.find((p) => p.type === "tool-cancelOrder")).toMatchObject({ state: "approval-requested", approval: { id: expect.stringMatching(/^da:/) } });
      expect(waiting.status).toBe("awaiting_tool_results");
      expect(cancelled(threadId)).toEqual([]);

      const reply = decision === "approve" ? await store.approve({ approvalId: request!.approvalId }) : await store.reject({ approvalId: request!.approvalId, reason: "changed my mind" });
      expect(reply).toMatchObject({ status: "resumed" });
      const done = await until(store, (s) => s.status === "completed" && s.messages.at(-1)?.parts.some((p) => p.type === "text" && p.text === `${decision}d`) === true);
      leave();
      expect(done.approvals).toEqual([]);
      expect(done.messages.at(-1)!.parts.find((p) => p.type === "tool-cancelOrder")).toMatchObject(
        decision === "approve" ? { state: "output-available", output: { order: "77", status: "cancelled" } } : { state: "output-denied", approval: { approved: false, reason: "changed my mind" } },
      );
      expect(cancelled(threadId)).toEqual(decision === "approve" ? ["77"] : []);
      // Deciding again reads the first outcome and runs nothing more.
      await expect(store.approve({ approvalId: request!.approvalId })).resolves.toMatchObject({ status: "duplicate" });
      expect(cancelled(threadId)).toEqual(decision === "approve" ? ["77"] : []);
    }
    h.model.assertNoFailures();
  });

  it("the thread store decides a request's calls one at a time: approve of one runs it alone, then approve decides only the call still waiting", async () => {
    const prompt = uid("store-per-call");
    h.model.script(prompt, [{ toolCalls: [{ name: "cancelOrder", arguments: { order: "81" } }, { name: "cancelOrder", arguments: { order: "82" } }] }, { text: "both done" }]);
    const threadId = (await http.call("POST", "/threads", { user: "alice", body: {} })).body.threadId as string;
    const store = new ThreadStore({ threadId, baseUrl: http.url, headers: { "x-user": "alice" } });
    const leave = store.subscribe(() => undefined);
    try {
      await until(store, (s) => !s.isLoading);
      await store.sendMessage({ prompt });
      const [request] = (await until(store, (s) => s.approvals.length === 1 && s.approvals[0]!.calls.length === 2)).approvals;
      const [first] = request!.calls;
      await expect(store.approve({ approvalId: request!.approvalId, toolCallIds: [first!.toolCallId] })).resolves.toMatchObject({ status: "resumed" });
      await vi.waitFor(() => expect(cancelled(threadId)).toEqual(["81"]), { timeout: 20_000, interval: 50 });
      // Still waiting on the other call: approve without ids decides that one alone, never the first again.
      await until(store, (s) => s.approvals.length === 1 && s.approvals[0]!.calls.every((c) => c.toolCallId !== first!.toolCallId || s.approvals[0]!.decided?.includes(c.toolCallId) === true));
      await expect(store.approve({ approvalId: request!.approvalId })).resolves.toMatchObject({ status: "resumed" });
      const done = await until(store, (s) => s.status === "completed" && s.messages.at(-1)?.parts.some((p) => p.type === "text" && p.text === "both done") === true);
      expect(done.approvals).toEqual([]);
      expect(cancelled(threadId)).toEqual(["81", "82"]);
    } finally {
      leave();
    }
    h.model.assertNoFailures();
  });

  it("the decide route refuses what is not decisions (AI1040), decisions that do not fit (RC5049) and other callers (AI1021), and nothing changes", async () => {
    const { prompt, threadId } = await gatedThread("hostile-decide", "78", { text: "done" });
    await http.call("POST", `/threads/${threadId}/messages`, { user: "alice", body: { prompt } });
    const view = await vi.waitFor(
      async () => {
        const thread = await agents.threads.state({ threadId, principal: alice });
        expect(thread.approvals).toHaveLength(1);
        return thread;
      },
      { timeout: 20_000, interval: 50 },
    );
    const { approvalId, calls } = view.approvals[0]!;
    const route = `/threads/${encodeURIComponent(threadId)}/approvals/${encodeURIComponent(approvalId)}`;
    const malformed: unknown[] = [{}, { decisions: "all" }, { decisions: [1] }, { decisions: Array.from({ length: 1001 }, () => ({})) }, { decisions: [], shown: "abc" }];
    for (const body of malformed) expect((await http.call("POST", route, { user: "alice", body })).body.error?.code, JSON.stringify(body).slice(0, 80)).toBe("AI1040");
    expect((await http.call("POST", route, { user: "alice", raw: "{nope" })).body.error.code).toBe("AI1040");
    // The front door checks each decision's outline: approved must be a boolean.
    expect((await http.call("POST", route, { user: "alice", body: { decisions: [{ toolCallId: calls[0]!.toolCallId, approved: "yes" }] } })).body.error.code).toBe("AI1040");
    for (const decisions of [[], [{ toolCallId: "nope", approved: true }], [{ toolCallId: calls[0]!.toolCallId, approved: false, input: {} }]]) {
      expect((await http.call("POST", route, { user: "alice", body: { decisions } })).body.error?.code, JSON.stringify(decisions)).toBe("RC5049");
    }
    expect((await http.call("POST", route, { body: { decisions: [{ toolCallId: calls[0]!.toolCallId, approved: true }] } })).body.error.code).toBe("AI1021");
    expect((await http.call("POST", `/threads/${encodeURIComponent(threadId)}/approvals/dfr%3A9%3Aelsewhere`, { user: "alice", body: { decisions: [] } })).body.error.code).toBe("RC5046");
    expect((await agents.threads.state({ threadId, principal: alice })).approvals).toEqual(view.approvals);
    expect(cancelled(threadId)).toEqual([]);
    // The token was never spent: the request is still decided once, as asked.
    expect((await http.call("POST", route, { user: "alice", body: { decisions: { [calls[0]!.toolCallId]: { approved: true } } } })).body).toMatchObject({ status: "resumed" });
    expect(await agents.threads.settled({ threadId, principal: alice })).toMatchObject({ status: "completed" });
    expect(cancelled(threadId)).toEqual(["78"]);
  });

  it("useApprovals' store lists a thread's request from the inbox, reads it by id and decides it there", async () => {
    const { prompt, threadId } = await gatedThread("inbox", "79", { text: "cancelled from the inbox" });
    await http.call("POST", `/threads/${threadId}/messages`, { user: "alice", body: { prompt } });
    const inbox = new ApprovalsStore({ baseUrl: http.url, headers: { "x-user": "bob" }, agentId: "support" });
    const row = await vi.waitFor(
      async () => {
        await inbox.refresh();
        const found = inbox.getSnapshot().approvals.find((a) => a.runId === threadId);
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(row).toMatchObject({ kind: "approval", status: "deferred", agentId: "support", calls: [{ toolName: "cancelOrder", arguments: '{"order":"79"}' }], callFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) });
    await expect(inbox.http.approvals.get({ approvalId: row.approvalId })).resolves.toMatchObject({ approvalId: row.approvalId, runId: threadId });
    // Read from the row: it then carries who the thread acts for and why the agent asks, as the front door returns them.
    const seen = await inbox.read(row.approvalId);
    expect(seen).toMatchObject({ actsFor: { id: "alice" }, context: { request: { text: prompt } } });
    expect(inbox.getSnapshot().approvals.find((a) => a.approvalId === row.approvalId)).toMatchObject({ actsFor: seen.actsFor, context: seen.context });
    await expect(inbox.approve({ approvalId: row.approvalId })).resolves.toMatchObject({ status: "resumed" });
    expect(inbox.getSnapshot().approvals.some((a) => a.approvalId === row.approvalId)).toBe(false);
    expect(await agents.threads.settled({ threadId, principal: alice })).toMatchObject({ status: "completed" });
    expect(cancelled(threadId)).toEqual(["79"]);
  });

  it("useApprovals' and useAgentChat's stores respond in the tool's place: the call gets the person's result, the tool never runs", async () => {
    const byInbox = await gatedThread("respond-inbox", "80", { text: "done by phone", check: (req) => expect(req.messages.at(-1)?.content).toBe("Order 80 was cancelled by phone.") });
    const byChat = await gatedThread("respond-chat", "81", { text: "done by mail", check: (req) => expect(req.messages.at(-1)?.content).toBe(JSON.stringify({ cancelled: true, via: "mail" })) });
    for (const { prompt, threadId } of [byInbox, byChat]) await http.call("POST", `/threads/${threadId}/messages`, { user: "alice", body: { prompt } });
    const inbox = new ApprovalsStore({ baseUrl: http.url, headers: { "x-user": "bob" }, agentId: "support" });
    const row = await vi.waitFor(
      async () => {
        await inbox.refresh();
        const found = inbox.getSnapshot().approvals.find((a) => a.runId === byInbox.threadId);
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 20_000, interval: 100 },
    );
    await expect(inbox.respond({ approvalId: row.approvalId, results: { [row.calls[0]!.toolCallId]: "Order 80 was cancelled by phone." } })).resolves.toMatchObject({ status: "resumed" });
    expect(inbox.getSnapshot().approvals.some((a) => a.approvalId === row.approvalId)).toBe(false);

    const chat = new ThreadStore({ threadId: byChat.threadId, baseUrl: http.url, headers: { "x-user": "alice" } });
    const leave = chat.subscribe(() => undefined);
    const waiting = await until(chat, (s) => s.approvals.length === 1);
    const [request] = waiting.approvals;
    await expect(chat.respond({ approvalId: request!.approvalId, results: { [request!.calls[0]!.toolCallId]: { cancelled: true, via: "mail" } } })).resolves.toMatchObject({ status: "resumed" });
    leave();
    for (const { threadId } of [byInbox, byChat]) expect(await agents.threads.settled({ threadId, principal: alice })).toMatchObject({ status: "completed" });
    expect([...cancelled(byInbox.threadId), ...cancelled(byChat.threadId)]).toEqual([]);
  });

  it("useChat's transport ends the turn at the request and, sent back with an approval, decides it and streams the call's result and the answer", async () => {
    const transport = new ThreadChatTransport({ baseUrl: http.url, headers: { "x-user": "alice" } });
    const { prompt, threadId } = await gatedThread("transport-gated", "80", { text: "Order 80 is cancelled." });
    const userMessage = { id: uid("ui"), role: "user" as const, parts: [{ type: "text" as const, text: prompt }] };
    const first: UIMessageChunk[] = [];
    for await (const chunk of (await transport.sendMessages({ chatId: threadId, trigger: "submit-message", messageId: undefined, abortSignal: undefined, messages: [userMessage] })) as unknown as AsyncIterable<UIMessageChunk>) first.push(chunk);
    const request = first.find((c) => c.type === "tool-approval-request");
    expect(request).toMatchObject({ approvalId: expect.stringMatching(/^da:/), toolCallId: expect.any(String) });
    expect(first.at(-1)).toEqual({ type: "finish", finishReason: "tool-calls" });
    expect(cancelled(threadId)).toEqual([]);
    expect(await transport.reconnectToStream({ chatId: threadId })).toBeNull();

    // What useChat holds once the person approved, as loadMessages gives it after a reload.
    const [, answer] = await transport.loadMessages(threadId);
    const part = answer!.parts.find((p) => p.type === "tool-cancelOrder") as { toolCallId: string; approval: { id: string } };
    expect(part.approval.id).toBe(request!.type === "tool-approval-request" ? request!.approvalId : "");
    const responded = { ...answer!, parts: answer!.parts.map((p) => (p === (part as unknown) ? { ...part, state: "approval-responded", approval: { id: part.approval.id, approved: true } } : p)) };
    const rest: UIMessageChunk[] = [];
    const stream = await transport.sendMessages({ chatId: threadId, trigger: "submit-message", messageId: answer!.id, abortSignal: undefined, messages: [userMessage, responded as never] });
    for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) rest.push(chunk);
    expect(rest).toContainEqual({ type: "tool-output-available", toolCallId: part.toolCallId, output: { order: "80", status: "cancelled" } });
    expect(textOf(rest)).toBe("Order 80 is cancelled.");
    expect(rest.at(-1)).toEqual({ type: "finish" });
    expect(cancelled(threadId)).toEqual(["80"]);
    h.model.assertNoFailures();
  });
});
