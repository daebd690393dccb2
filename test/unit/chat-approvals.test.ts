/**
 * Approvals in the browser clients' terms, without a server: the AI SDK's approval ids and
 * states for a thread's requests, the decisions `useChat`'s responses become, and the
 * `useChat` transport's chunks for a request and after a decision, against a front door the
 * test plays.
 */
import type { UIMessage, UIMessageChunk } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { boundedReason, MAX_DECISION_TEXT, policyDeniedResult, rejectedResult } from "../../src/core/approval.js";
import { rejectionOf } from "../../src/react/approval-parts.js";
import { toUIMessages, type PendingApproval } from "../../src/index.js";
import {
  approvalResponses,
  approvalResponsesReady,
  approvalUiId,
  ApprovalsStore,
  parseApprovalUiId,
  ThreadChatTransport,
  withApprovalStates,
  type ApprovalSummary,
} from "../../src/react.js";
import { assistant, at, tool, user } from "./thread-messages.js";

const request = (approvalId: string, ...calls: Array<[string, string]>): PendingApproval => ({
  approvalId,
  calls: calls.map(([toolCallId, toolName]) => ({ toolCallId, toolName, arguments: "{}" })),
  expiresAt: at,
});

describe("approval ids", () => {
  it("carry the request and the call, whatever characters either holds, and read back exactly", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (approvalId, toolCallId) => {
        expect(parseApprovalUiId(approvalUiId(approvalId, toolCallId))).toEqual({ approvalId, toolCallId });
      }),
    );
    expect(parseApprovalUiId(approvalUiId("dfr:2:t/1", "call/1%2F"))).toEqual({ approvalId: "dfr:2:t/1", toolCallId: "call/1%2F" });
  });

  it("are refused when foreign, mangled or spelled another way", () => {
    for (const id of [undefined, 7, "", "approval-1", "da:", "da:a", "da:a/b/c", "da:a/", "da:%ZZ/b", "da:%61/b", "DA:a/b", " da:a/b"]) {
      expect(parseApprovalUiId(id), String(id)).toBeUndefined();
    }
  });
});

describe("a stored rejection", () => {
  it("is recognised from what the thread stores for a rejected call, with its reason", () => {
    fc.assert(
      fc.property(fc.option(fc.string({ minLength: 1 }).filter((id) => !id.includes('" was not run'))), fc.option(fc.string()), (by, reason) => {
        const stored = rejectedResult("cancelOrder", reason ?? undefined, by === null ? undefined : { id: by });
        expect(rejectionOf(stored, "cancelOrder")).toEqual(reason ? { reason } : {});
        // Only for the call's own tool.
        expect(rejectionOf(stored, "issueRefund")).toBeUndefined();
      }),
    );
    for (const other of ["Error: boom", "Rejected", '{"ok":true}', 'Rejected: "cancelOrder" was not run.', `${rejectedResult("cancelOrder", "x", undefined)} and more`]) {
      expect(rejectionOf(other, "cancelOrder"), other).toBeUndefined();
    }
  });

  it("is what a policy's denial stores too, with its reason, however long the policy wrote it", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }).filter((r) => r.trim() !== ""), (reason) => {
        expect(rejectionOf(policyDeniedResult("cancelOrder", boundedReason(reason)), "cancelOrder")).toEqual({ reason: boundedReason(reason) });
      }),
    );
    const long = boundedReason(`${"é".repeat(MAX_DECISION_TEXT)}😀😀`);
    expect(long.length).toBeLessThanOrEqual(MAX_DECISION_TEXT);
    expect(long).toMatch(/ … \(cut: 4004 characters\)$/);
    expect(boundedReason("x".repeat(MAX_DECISION_TEXT))).toBe("x".repeat(MAX_DECISION_TEXT));
    // Never half an emoji, wherever the cut falls.
    for (const pad of ["", "x"]) expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(boundedReason(pad + "😀".repeat(MAX_DECISION_TEXT)))).toBe(false);
  });
});

describe("withApprovalStates", () => {
  const stored = [
    user("u1", "cancel 1 and 2"),
    assistant("a1", null, [
      ["c1", "cancelOrder", '{"order":"1"}'],
      ["c2", "lookupOrder", '{"order":"1"}'],
    ]),
    tool("t2", "c2", '{"status":"shipped"}'),
  ];

  it("puts a pending request's calls in approval-requested, with an id naming the request and the call", () => {
    const [, answer] = withApprovalStates(toUIMessages(stored), [request("dfr:1:t", ["c1", "cancelOrder"])]);
    expect(answer!.parts).toEqual([
      { type: "step-start" },
      { type: "tool-cancelOrder", toolCallId: "c1", state: "approval-requested", input: { order: "1" }, approval: { id: approvalUiId("dfr:1:t", "c1") } },
      { type: "tool-lookupOrder", toolCallId: "c2", state: "output-available", input: { order: "1" }, output: { status: "shipped" } },
    ]);
  });

  it("shows a rejected call as output-denied with its reason, and leaves what it does not change as it was", () => {
    const decided = [...stored, tool("t1", "c1", rejectedResult("cancelOrder", "not now", { id: "sam" })), assistant("a2", "OK, not cancelled.")];
    const ui = toUIMessages(decided);
    const shown = withApprovalStates(ui, []);
    expect(shown[0]).toBe(ui[0]);
    expect(shown[1]!.parts[1]).toEqual({
      type: "tool-cancelOrder",
      toolCallId: "c1",
      state: "output-denied",
      input: { order: "1" },
      approval: { id: approvalUiId(undefined, "c1"), approved: false, reason: "not now" },
    });
    expect(shown[1]!.parts[2]).toBe(ui[1]!.parts[2]);
    // A tool that merely returns such words for another tool's name is its output.
    const lookalike = toUIMessages([user("u", "x"), assistant("a", null, [["c9", "lookupOrder", "{}"]]), tool("t9", "c9", rejectedResult("cancelOrder", "x", undefined))]);
    expect(withApprovalStates(lookalike, [])[1]!.parts[1]).toMatchObject({ state: "output-available" });
  });
});

describe("useChat's approval responses", () => {
  const part = (toolCallId: string, state: string, approval?: Record<string, unknown>) => ({ type: "tool-cancelOrder", toolCallId, state, input: {}, ...(approval ? { approval } : {}) });

  it("become one decision list per request: approved with the reason as a note, rejected with the reason", () => {
    const message = {
      parts: [
        { type: "step-start" },
        part("c1", "approval-responded", { id: approvalUiId("r1", "c1"), approved: true, reason: "fine" }),
        part("c2", "approval-responded", { id: approvalUiId("r1", "c2"), approved: false, reason: "not this one" }),
        part("c3", "approval-responded", { id: approvalUiId("r2", "c3"), approved: false }),
        // Not ours, not answered, or pointing at another call: left alone.
        part("c4", "approval-responded", { id: "approval-7", approved: true }),
        part("c5", "approval-requested", { id: approvalUiId("r2", "c5") }),
        part("c6", "approval-responded", { id: approvalUiId("r2", "c7"), approved: true }),
        part("c8", "approval-responded", { id: approvalUiId("r2", "c8"), approved: "yes" }),
      ],
    };
    expect([...approvalResponses(message)]).toEqual([
      [
        "r1",
        [
          { toolCallId: "c1", approved: true, note: "fine" },
          { toolCallId: "c2", approved: false, reason: "not this one" },
        ],
      ],
      ["r2", [{ toolCallId: "c3", approved: false }]],
    ]);
  });

  it("are ready to send once the last step has a response and no call waits for one, whatever its other calls do", () => {
    const answer = (...parts: Array<{ type: string; text?: string }>) => [{ role: "user", parts: [] }, { role: "assistant", parts: [{ type: "step-start" }, ...parts] }];
    expect(approvalResponsesReady({ messages: answer(part("c1", "approval-responded", { id: "x", approved: true }), part("c2", "input-available")) })).toBe(true);
    expect(approvalResponsesReady({ messages: answer(part("c1", "approval-responded", { id: "x", approved: true }), part("c2", "approval-requested", { id: "y" })) })).toBe(false);
    expect(approvalResponsesReady({ messages: answer(part("c1", "output-available")) })).toBe(false);
    // A response in an earlier step was sent already.
    expect(approvalResponsesReady({ messages: answer(part("c1", "approval-responded", { id: "x", approved: true }), { type: "step-start" }, { type: "text", text: "done" }) })).toBe(false);
    expect(approvalResponsesReady({ messages: [{ role: "user", parts: [] }] })).toBe(false);
  });
});

// ---- the transport against a front door the test plays ----

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const sse = (entries: Array<Record<string, unknown>>) =>
  new Response(entries.map((e) => `id: ${e.seq}\ndata: ${JSON.stringify(e)}\n\n`).join(""), { headers: { "content-type": "text/event-stream" } });
const threadView = (status: string, lastSeq: number, approvals: PendingApproval[] = []) => ({
  threadId: "t",
  agentId: "support",
  status,
  createdAt: at,
  updatedAt: at,
  messageCount: 1,
  queued: [],
  toolCalls: [],
  usage: {},
  modelCalls: 0,
  generation: 0,
  lastSeq,
  stream: true,
  approvals,
});

/** A front door played by the test: each route answers from its queue (the last answer repeats); every request is recorded. */
function frontDoor(routes: Record<string, Array<() => Response>>) {
  const requests: Array<{ route: string; body: unknown; lastEventId: string | null }> = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), "http://front.door");
    const route = `${init?.method ?? "GET"} ${decodeURIComponent(url.pathname)}`;
    requests.push({ route, body: init?.body ? JSON.parse(String(init.body)) : undefined, lastEventId: new Headers(init?.headers).get("last-event-id") });
    const queue = routes[route];
    if (!queue) return json({ error: { code: "AI1042", message: `no route ${route}` } }, 404);
    return (queue.length > 1 ? queue.shift()! : queue[0]!)();
  }) as typeof globalThis.fetch;
  return { fetch, requests, sent: (route: string) => requests.filter((r) => r.route === route) };
}

const read = async (stream: ReadableStream<UIMessageChunk>) => {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
  return chunks;
};

describe("the useChat transport and a gated tool", () => {
  const gatedTurn = [
    { seq: 1, type: "message", message: user("u1", "cancel 1") },
    {
      seq: 2,
      type: "message",
      message: assistant("a1", null, [
        ["c1", "cancelOrder", '{"order":"1"}'],
        ["c2", "lookupOrder", '{"order":"1"}'],
      ]),
    },
    { seq: 3, type: "approval-request", approvalId: "dfr:1:t", calls: [{ toolCallId: "c1", toolName: "cancelOrder", arguments: '{"order":"1"}' }], expiresAt: at },
  ];

  it("ends the turn's stream at the request with an approval request on the gated call, as the AI SDK's own do", async () => {
    const door = frontDoor({
      "GET /threads/t": [() => json(threadView("completed", 0))],
      "POST /threads/t/messages": [() => json({ messageId: "u1", queued: false, duplicate: false }, 202)],
      "GET /threads/t/events": [() => sse(gatedTurn)],
    });
    const transport = new ThreadChatTransport({ fetch: door.fetch });
    const chunks = await read(await transport.sendMessages({ chatId: "t", trigger: "submit-message", messageId: undefined, abortSignal: undefined, messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "cancel 1" }] }] }));
    expect(chunks.filter((c) => c.type.startsWith("tool-"))).toEqual([
      { type: "tool-input-start", toolCallId: "c1", toolName: "cancelOrder" },
      { type: "tool-input-available", toolCallId: "c1", toolName: "cancelOrder", input: { order: "1" } },
      { type: "tool-input-start", toolCallId: "c2", toolName: "lookupOrder" },
      { type: "tool-input-available", toolCallId: "c2", toolName: "lookupOrder", input: { order: "1" } },
      { type: "tool-approval-request", approvalId: approvalUiId("dfr:1:t", "c1"), toolCallId: "c1" },
    ]);
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "tool-calls" });
    // A reload while it waits has nothing to reconnect to: loadMessages shows the request.
    const reload = frontDoor({
      "GET /threads/t": [() => json(threadView("awaiting_tool_results", 3, [request("dfr:1:t", ["c1", "cancelOrder"])]))],
      "GET /threads/t/messages": [() => json({ messages: gatedTurn.flatMap((e) => ("message" in e ? [e.message] : [])), total: 2 })],
    });
    const reloaded = new ThreadChatTransport({ fetch: reload.fetch });
    expect(await reloaded.reconnectToStream({ chatId: "t" })).toBeNull();
    const [, answer] = await reloaded.loadMessages("t");
    expect(answer!.parts[1]).toMatchObject({ toolCallId: "c1", state: "approval-requested", approval: { id: approvalUiId("dfr:1:t", "c1") } });
    expect(answer!.parts[2]).toMatchObject({ toolCallId: "c2", state: "input-available" });
    expect(reload.sent("GET /threads/t/events")).toEqual([]);
  });

  /** The answer as useChat holds it once the person responded to both calls of one request. */
  const responded: UIMessage = {
    id: "a1",
    role: "assistant",
    parts: [
      { type: "step-start" },
      { type: "tool-cancelOrder", toolCallId: "c1", state: "approval-responded", input: { order: "1" }, approval: { id: approvalUiId("dfr:1:t", "c1"), approved: false, reason: "not now" } },
      { type: "tool-cancelOrder", toolCallId: "c3", state: "approval-responded", input: { order: "3" }, approval: { id: approvalUiId("dfr:1:t", "c3"), approved: true } },
      { type: "tool-lookupOrder", toolCallId: "c2", state: "input-available", input: { order: "1" } },
    ],
  };
  const continueWith = (transport: ThreadChatTransport) =>
    transport.sendMessages({ chatId: "t", trigger: "submit-message", messageId: "a1", abortSignal: undefined, messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "x" }] }, responded] });

  it("sends the responses as one decision on the request, then streams the rest into the same answer: rejected as output-denied, approved as its result", async () => {
    const door = frontDoor({
      "GET /threads/t": [() => json(threadView("awaiting_tool_results", 4, [request("dfr:1:t", ["c1", "cancelOrder"], ["c3", "cancelOrder"])]))],
      "POST /threads/t/approvals/dfr:1:t": [() => json({ status: "resumed", deferralId: "dfr:1:t", outcome: { status: "accepted" } })],
      "GET /threads/t/events": [
        () =>
          sse([
            { seq: 5, type: "approval-decided", approvalId: "dfr:1:t", outcome: "resumed" },
            { seq: 6, type: "message", message: tool("t1", "c1", rejectedResult("cancelOrder", "not now", { id: "sam" })) },
            { seq: 7, type: "message", message: tool("t3", "c3", '{"status":"cancelled"}') },
            { seq: 8, type: "message", message: tool("t2", "c2", '{"status":"shipped"}') },
            { seq: 9, type: "text-delta", messageId: "a2", text: "Order 3 is cancelled" },
            { seq: 10, type: "message", message: assistant("a2", "Order 3 is cancelled, order 1 is not.") },
            { seq: 11, type: "status", status: "completed", previousStatus: "awaiting_tool_results", at },
          ]),
      ],
    });
    const chunks = await read(await continueWith(new ThreadChatTransport({ fetch: door.fetch })));
    expect(door.sent("POST /threads/t/approvals/dfr:1:t").map((r) => r.body)).toEqual([
      {
        decisions: [
          { toolCallId: "c1", approved: false, reason: "not now" },
          { toolCallId: "c3", approved: true },
        ],
      },
    ]);
    // Followed from where the thread was before the decision, with no user message sent.
    expect(door.sent("GET /threads/t/events").map((r) => r.lastEventId)).toEqual(["4"]);
    expect(door.sent("POST /threads/t/messages")).toEqual([]);
    expect(chunks).toEqual([
      { type: "start", messageId: "a1" },
      { type: "tool-output-denied", toolCallId: "c1" },
      { type: "tool-output-available", toolCallId: "c3", output: { status: "cancelled" } },
      { type: "tool-output-available", toolCallId: "c2", output: { status: "shipped" } },
      { type: "start-step" },
      { type: "text-start", id: "a2:9" },
      { type: "text-delta", id: "a2:9", delta: "Order 3 is cancelled" },
      { type: "text-delta", id: "a2:9", delta: ", order 1 is not." },
      { type: "text-end", id: "a2:9" },
      { type: "finish-step" },
      { type: "finish" },
    ]);
  });

  it("sends a response to one call of a request alone, and ends the stream where the thread says the other still waits", async () => {
    // The person answered c3 only; c1 of the same request still waits for a decision.
    const one: UIMessage = {
      ...responded,
      parts: responded.parts.map((p) => ((p as { toolCallId?: string }).toolCallId === "c1" ? { type: "tool-cancelOrder", toolCallId: "c1", state: "approval-requested", input: { order: "1" }, approval: { id: approvalUiId("dfr:1:t", "c1") } } : p)) as UIMessage["parts"],
    };
    const door = frontDoor({
      "GET /threads/t": [() => json(threadView("awaiting_tool_results", 4, [request("dfr:1:t", ["c1", "cancelOrder"], ["c3", "cancelOrder"])]))],
      "POST /threads/t/approvals/dfr:1:t": [() => json({ status: "resumed", deferralId: "dfr:1:t", outcome: { status: "accepted" } })],
      "GET /threads/t/events": [() => sse([{ seq: 5, type: "approval-request", approvalId: "dfr:1:t", calls: [{ toolCallId: "c1", toolName: "cancelOrder", arguments: '{"order":"1"}' }], expiresAt: at }])],
    });
    const transport = new ThreadChatTransport({ fetch: door.fetch });
    const chunks = await read(await transport.sendMessages({ chatId: "t", trigger: "submit-message", messageId: "a1", abortSignal: undefined, messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "x" }] }, one] }));
    expect(door.sent("POST /threads/t/approvals/dfr:1:t").map((r) => r.body)).toEqual([{ decisions: [{ toolCallId: "c3", approved: true }] }]);
    // c3's result may wait behind c1's (a thread keeps a step's results in order): not an error, the response ends at c1's request.
    expect(chunks).toEqual([
      { type: "start", messageId: "a1" },
      { type: "tool-approval-request", approvalId: approvalUiId("dfr:1:t", "c1"), toolCallId: "c1" },
      { type: "finish", finishReason: "tool-calls" },
    ]);
  });

  it("shows results stored before it followed (a sibling held behind the decision, or a decision taken elsewhere) from the stored messages", async () => {
    const door = frontDoor({
      // Decided elsewhere and finished: the thread no longer lists the request, and runs no turn.
      "GET /threads/t": [() => json(threadView("completed", 11))],
      "POST /threads/t/approvals/dfr:1:t": [() => json({ status: "duplicate", deferralId: "dfr:1:t", outcome: { status: "accepted" } })],
      "GET /threads/t/messages": [
        () =>
          json({
            messages: [user("u1", "x"), tool("t1", "c1", rejectedResult("cancelOrder", "no", undefined)), tool("t3", "c3", '"done"'), tool("t2", "c2", "Error: lookup failed")],
            total: 4,
          }),
      ],
    });
    const chunks = await read(await continueWith(new ThreadChatTransport({ fetch: door.fetch })));
    expect(door.sent("POST /threads/t/approvals/dfr:1:t")).toHaveLength(1);
    expect(door.sent("GET /threads/t/events")).toEqual([]);
    expect(chunks).toEqual([
      { type: "start", messageId: "a1" },
      { type: "tool-output-denied", toolCallId: "c1" },
      { type: "tool-output-available", toolCallId: "c3", output: "done" },
      { type: "tool-output-error", toolCallId: "c2", errorText: "lookup failed" },
      { type: "finish" },
    ]);
  });

  it("ends with an error, not a finish useChat would answer by sending the same responses again, when the thread holds a decided call unrun (stopped)", async () => {
    const door = frontDoor({
      "GET /threads/t": [() => json(threadView("stopped", 4, [request("dfr:1:t", ["c1", "cancelOrder"], ["c3", "cancelOrder"])]))],
      "POST /threads/t/approvals/dfr:1:t": [() => json({ status: "resumed", deferralId: "dfr:1:t", outcome: { status: "accepted" } })],
      "GET /threads/t/messages": [() => json({ messages: [user("u1", "x")], total: 1 })],
    });
    const chunks = await read(await continueWith(new ThreadChatTransport({ fetch: door.fetch })));
    expect(chunks.at(-1)).toEqual({ type: "error", errorText: expect.stringMatching(/is stopped and has not run the decided calls \(cancelOrder, cancelOrder\) yet: resume it/) });
    expect(chunks.some((c) => c.type === "finish")).toBe(false);
  });

  it("refuses an answer with no responses, and passes the thread's refusal of a decision on (RC5050: withdrawn), following nothing", async () => {
    const door = frontDoor({
      "GET /threads/t": [() => json(threadView("completed", 9))],
      "POST /threads/t/approvals/dfr:1:t": [() => json({ error: { code: "RC5050", message: "[RC5050] withdrawn" } }, 409)],
    });
    const transport = new ThreadChatTransport({ fetch: door.fetch });
    const plain: UIMessage = { id: "a1", role: "assistant", parts: [{ type: "text", text: "hi" }] };
    await expect(transport.sendMessages({ chatId: "t", trigger: "submit-message", messageId: "a1", abortSignal: undefined, messages: [plain] })).rejects.toMatchObject({ code: "AI1040" });
    await expect(continueWith(transport)).rejects.toMatchObject({ code: "RC5050" });
    expect(door.sent("GET /threads/t/events")).toEqual([]);
  });
});

describe("the approvals store", () => {
  const row = (approvalId: string, status: ApprovalSummary["status"] = "deferred"): ApprovalSummary => ({
    approvalId,
    kind: "approval",
    runId: `t-${approvalId}`,
    status,
    calls: [
      { toolCallId: `${approvalId}-a`, toolName: "issueRefund", arguments: "{}" },
      { toolCallId: `${approvalId}-b`, toolName: "issueRefund", arguments: "{}" },
    ],
    meta: { requires: ["manager"] },
    deferredAt: at,
    expiresAt: at,
    callFingerprint: "f".repeat(64),
  });

  it("lists what waits, decides a request with its fingerprint, and keeps it out of the list while a lagging read still shows it waiting", async () => {
    const door = frontDoor({
      "GET /approvals": [() => json({ approvals: [row("r1"), row("r2"), row("r3", "resumed")] }), () => json({ approvals: [row("r1"), row("r2")] })],
      "POST /approvals/r1": [() => json({ status: "resumed", deferralId: "r1", outcome: { status: "accepted" } })],
      "POST /approvals/r2": [() => json({ error: { code: "RC5058", message: "[RC5058] the calls changed" } }, 409)],
    });
    const store = new ApprovalsStore({ fetch: door.fetch, requires: "manager" });
    await store.refresh();
    expect(store.getSnapshot()).toMatchObject({ isLoading: false, error: undefined });
    expect(store.getSnapshot().approvals.map((a) => a.approvalId)).toEqual(["r1", "r2"]);
    expect(door.requests[0]!.route).toBe("GET /approvals");

    await store.reject({ approvalId: "r1", reason: "too much" });
    expect(door.sent("POST /approvals/r1").map((r) => r.body)).toEqual([
      {
        decisions: [
          { toolCallId: "r1-a", approved: false, reason: "too much" },
          { toolCallId: "r1-b", approved: false, reason: "too much" },
        ],
        shown: "f".repeat(64),
      },
    ]);
    expect(store.getSnapshot().approvals.map((a) => a.approvalId)).toEqual(["r2"]);
    await store.refresh();
    expect(store.getSnapshot().approvals.map((a) => a.approvalId)).toEqual(["r2"]);

    await expect(store.approve({ approvalId: "r2" })).rejects.toMatchObject({ code: "RC5058" });
    expect(store.getSnapshot()).toMatchObject({ error: { code: "RC5058" } });
    expect(store.getSnapshot().approvals.map((a) => a.approvalId)).toEqual(["r2"]);
  });

  it("decides one call of a request and keeps the row for the other, which approve then decides alone", async () => {
    const door = frontDoor({
      "GET /approvals": [() => json({ approvals: [row("r1")] })],
      "POST /approvals/r1": [
        () => json({ status: "resumed", deferralId: "r1", outcome: { status: "deferred", deferralId: "r1", expiresAt: at } }),
        () => json({ status: "resumed", deferralId: "r1", outcome: { status: "completed" } }),
      ],
    });
    const store = new ApprovalsStore({ fetch: door.fetch });
    await store.refresh();
    await store.reject({ approvalId: "r1", toolCallIds: ["r1-b"], reason: "not this one" });
    // Still listed: its first call waits, the rejected one is marked decided.
    expect(store.getSnapshot().approvals).toEqual([expect.objectContaining({ approvalId: "r1", decided: ["r1-b"] })]);
    await store.approve({ approvalId: "r1" });
    expect(door.sent("POST /approvals/r1").map((r) => (r.body as { decisions: unknown }).decisions)).toEqual([
      [{ toolCallId: "r1-b", approved: false, reason: "not this one" }],
      [{ toolCallId: "r1-a", approved: true }],
    ]);
    expect(store.getSnapshot().approvals).toEqual([]);
  });

  it("reads a request for what the approver sees: its row carries actsFor and context as the front door returns them, across refreshes", async () => {
    const context = { request: { text: "Order A-17 arrived broken, refund me" }, messages: [{ text: "I ask to refund €40." }], toolResults: [{ toolName: "lookupOrder", text: "order A-17: paid €40" }] };
    const door = frontDoor({
      "GET /approvals": [() => json({ approvals: [row("r1"), row("r2")] }), () => json({ approvals: [row("r1"), row("r2")] })],
      // r1 with its context; r2 as a reader the hook refuses approval.context gets it: the call alone; then a refusal of the read.
      "GET /approvals/r1": [() => json({ ...row("r1"), actsFor: { id: "ann" }, context })],
      "GET /approvals/r2": [() => json({ ...row("r2"), actsFor: { id: "bo" } }), () => json({ error: { code: "AI1013", message: "[AI1013] refused" } }, 403)],
    });
    const store = new ApprovalsStore({ fetch: door.fetch });
    await store.refresh();
    expect(store.getSnapshot().approvals.some((a) => "context" in a || "actsFor" in a)).toBe(false);
    await expect(store.read("r1")).resolves.toMatchObject({ approvalId: "r1", actsFor: { id: "ann" }, context });
    await store.read("r2");
    const [one, two] = store.getSnapshot().approvals;
    expect(one).toMatchObject({ approvalId: "r1", actsFor: { id: "ann" }, context });
    expect(two).toMatchObject({ approvalId: "r2", actsFor: { id: "bo" } });
    expect("context" in two!).toBe(false);
    // A refresh lists the rows again (listing reads no run): what was read stays on them.
    await store.refresh();
    expect(store.getSnapshot().approvals).toEqual([expect.objectContaining({ approvalId: "r1", actsFor: { id: "ann" }, context }), expect.objectContaining({ approvalId: "r2", actsFor: { id: "bo" } })]);
    // A refused read is an error, and the rows stay as they were.
    await expect(store.read("r2")).rejects.toMatchObject({ code: "AI1013" });
    expect(store.getSnapshot()).toMatchObject({ error: { code: "AI1013" }, approvals: [{ approvalId: "r1", context }, { approvalId: "r2", actsFor: { id: "bo" } }] });
    expect(door.sent("GET /approvals/r1")).toHaveLength(1);
  });

  it("turns an unreadable list into AI1060 and a refusal into its code, keeping the rows it had", async () => {
    const door = frontDoor({
      "GET /approvals": [() => json({ approvals: [row("r1")] }), () => json({ approvals: [{ approvalId: 3 }] }), () => json({ error: { code: "AI1040", message: "[AI1040] bad" } }, 400)],
    });
    const store = new ApprovalsStore({ fetch: door.fetch });
    await store.refresh();
    await store.refresh();
    expect(store.getSnapshot()).toMatchObject({ error: { code: "AI1060" }, approvals: [{ approvalId: "r1" }] });
    await store.refresh();
    expect(store.getSnapshot()).toMatchObject({ error: { code: "AI1040" }, approvals: [{ approvalId: "r1" }] });
  });
});
