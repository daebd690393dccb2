/**
 * The front door's inbox routes: `GET /approvals`, `GET /approvals/:id`, `POST /approvals/:id`
 * (decide by id) and the chat UI's `POST /threads/:id/approvals/:approvalId`. Everything is
 * asked as the authenticated caller; refusals answer with the code table's status and
 * change nothing: the request still waits, no handler ran, the model was not asked.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type AgentClient, type ApprovalSummary, type AuthorizeHook, type JsonObject, type Principal, type ThreadsClient } from "../src/index.js";
import { gatedFixtures } from "./gated-fixtures.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;
let http: HttpServer;

const { ranIn, payouts, files } = gatedFixtures("http");

/** fiona approves payouts, maria deletes files, ian holds no role; bob may not even read deferrals. */
const PEOPLE: Record<string, Principal> = {
  fiona: { id: "fiona", roles: ["payouts:approve"] },
  maria: { id: "maria", roles: ["files:delete"] },
  ian: { id: "ian", roles: [] },
  bob: { id: "bob", roles: [] },
};
const holds = (meta: JsonObject, principal: Principal | undefined) =>
  ((meta.requires as string[] | undefined) ?? []).every((role) => ((principal?.roles as string[] | undefined) ?? []).includes(role));
const authorize: AuthorizeHook = (req) => {
  if (req.principal?.id === "bob" && (req.operation === "deferral.get" || req.operation === "deferral.list")) return false;
  if (req.operation === "resume") return holds(req.deferral.meta, req.principal);
  if (req.operation === "thread.decide") return holds(req.meta, req.principal);
  return true;
};

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([payouts, files], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize, threads: { agent: files } } }));
  threads = agents.threads;
  http = await startHttp({ agents, basePath: "/api", maxBodyBytes: 64 * 1024, authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""] });
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

const modelCalls = (conversation: string) => h.model.requests.filter((r) => r.conversation === conversation).length;

/** A run parked on one request for two payouts. */
async function parkedRun(calls: Array<{ name: string; arguments: object }> = [{ name: "sendPayout", arguments: { amount: 120, to: "acme" } }, { name: "sendPayout", arguments: { amount: 5000, to: "mallory" } }]) {
  const runId = uid("http-gated");
  h.model.script(runId, [{ toolCalls: calls }, { text: "done paying" }]);
  const ack = await agents.run(payouts, { prompt: runId, runId, principal: { id: "clerk" } });
  if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${JSON.stringify(ack)}`);
  const request = await agents.approvals.get({ approvalId: ack.deferralId });
  return { runId, approvalId: ack.deferralId, request, ids: request.calls.map((c) => c.toolCallId) };
}

/** A thread holding its turn on one request. */
async function parkedThread(path = "a.txt") {
  const threadId = uid("http-files");
  h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path } }] }, { text: "deleted" }]);
  await threads.createThread({ threadId, prompt: threadId });
  const view = await vi.waitFor(
    async () => {
      const v = await threads.state({ threadId });
      expect(v.approvals).toHaveLength(1);
      return v;
    },
    { timeout: 20_000, interval: 50 },
  );
  const [request] = view.approvals;
  return { threadId, approvalId: request!.approvalId, toolCallId: request!.calls[0]!.toolCallId };
}

/** What "nothing changed" means for a parked run: the same record, still waiting, nothing ran, the model not asked again. */
async function unchanged(runId: string, approvalId: string) {
  const before = await agents.deferrals.get({ deferralId: approvalId });
  const calls = modelCalls(runId);
  return async () => {
    const after = await agents.deferrals.get({ deferralId: approvalId });
    expect(after.status).toBe("deferred");
    expect(after.fingerprint).toBe(before.fingerprint);
    expect(ranIn(runId)).toEqual([]);
    expect(modelCalls(runId)).toBe(calls);
  };
}

/** Visibility trails the runs' writes by a moment: the listing is asked until it shows them. */
async function listedFor(user: string, query: string, ids: string[]): Promise<ApprovalSummary[]> {
  return vi.waitFor(
    async () => {
      const res = await http.call("GET", `/approvals${query}`, { user });
      expect(res.status).toBe(200);
      const rows = res.body.approvals as ApprovalSummary[];
      for (const id of ids) expect(rows.map((a) => a.approvalId)).toContain(id);
      return rows;
    },
    { timeout: 20_000, interval: 100 },
  );
}

describe("the inbox over HTTP", () => {
  it("lists a run's and a thread's waiting requests for the caller, reads one, and decides it per call (approve with an edit, reject)", async () => {
    const run = await parkedRun();
    const thread = await parkedThread();
    const rows = await listedFor("fiona", "?limit=1000", [run.approvalId, thread.approvalId]);
    expect(rows.find((a) => a.approvalId === run.approvalId)).toMatchObject({
      kind: "approval",
      runId: run.runId,
      agentId: "http-payouts",
      status: "deferred",
      calls: [{ toolName: "sendPayout", arguments: JSON.stringify({ amount: 120, to: "acme" }) }, { toolName: "sendPayout" }],
      meta: { requires: ["payouts:approve"] },
    });
    expect(rows.find((a) => a.approvalId === thread.approvalId)).toMatchObject({ kind: "approval", runId: thread.threadId, agentId: "http-files", calls: [{ toolName: "deleteFile" }] });
    // Filters reach the inbox: what a request requires, its agent.
    const forFiles = (await http.call("GET", "/approvals?requires=files:delete&limit=1000", { user: "fiona" })).body.approvals as ApprovalSummary[];
    expect(forFiles.map((a) => a.approvalId)).toContain(thread.approvalId);
    expect(forFiles.map((a) => a.approvalId)).not.toContain(run.approvalId);
    const ofAgent = (await http.call("GET", "/approvals?agentId=http-files&limit=1000", { user: "fiona" })).body.approvals as ApprovalSummary[];
    expect(ofAgent.every((a) => a.agentId === "http-files")).toBe(true);

    const one = await http.call("GET", `/approvals/${encodeURIComponent(run.approvalId)}`, { user: "fiona" });
    expect(one).toMatchObject({ status: 200, body: { approvalId: run.approvalId, kind: "approval", callFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) } });

    const [small, big] = run.ids;
    const decided = await http.call("POST", `/approvals/${encodeURIComponent(run.approvalId)}`, {
      user: "fiona",
      body: {
        decisions: [
          { toolCallId: small, approved: true, input: { amount: 100, to: "acme" }, note: "rounded down" },
          { toolCallId: big, approved: false, reason: "not a supplier" },
        ],
        shown: one.body.callFingerprint,
      },
    });
    expect(decided).toMatchObject({ status: 200, body: { status: "resumed", deferralId: run.approvalId, outcome: { status: "completed", result: { text: "done paying" } } } });
    expect(ranIn(run.runId)).toEqual([{ tool: "sendPayout", input: { amount: 100, to: "acme" } }]);
    // Decided once: again reads the first outcome, and nothing runs twice.
    const again = await http.call("POST", `/approvals/${encodeURIComponent(run.approvalId)}`, { user: "fiona", body: { decisions: { [small!]: { approved: true }, [big!]: { approved: true } } } });
    expect(again).toMatchObject({ status: 200, body: { status: "duplicate" } });
    expect(ranIn(run.runId)).toHaveLength(1);
    expect((await http.call("GET", `/approvals/${encodeURIComponent(run.approvalId)}`, { user: "fiona" })).body).toMatchObject({ status: "resumed" });

    // The thread's request, decided by id through the same route (keyed by call id this time).
    const threadDecided = await http.call("POST", `/approvals/${encodeURIComponent(thread.approvalId)}`, { user: "maria", body: { decisions: { [thread.toolCallId]: { approved: true } } } });
    expect(threadDecided).toMatchObject({ status: 200, body: { status: "resumed", outcome: { status: "accepted" } } });
    expect(await threads.settled({ threadId: thread.threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(ranIn(thread.threadId)).toEqual([{ tool: "deleteFile", input: { path: "a.txt" } }]);
  });

  it("decides a thread's request from the chat UI's route (thread.decide), the turn going on there", async () => {
    const thread = await parkedThread("tmp/x");
    const path = `/threads/${encodeURIComponent(thread.threadId)}/approvals/${encodeURIComponent(thread.approvalId)}`;
    const res = await http.call("POST", path, { user: "maria", body: { decisions: [{ toolCallId: thread.toolCallId, approved: true, input: { path: "tmp/y" } }] } });
    expect(res).toMatchObject({ status: 200, body: { status: "resumed", outcome: { status: "accepted" } } });
    expect(await threads.settled({ threadId: thread.threadId })).toMatchObject({ status: "completed" });
    expect(ranIn(thread.threadId)).toEqual([{ tool: "deleteFile", input: { path: "tmp/y" } }]);
    expect(await http.call("POST", path, { user: "maria", body: { decisions: [{ toolCallId: thread.toolCallId, approved: true }] } })).toMatchObject({ status: 200, body: { status: "duplicate" } });
    expect(ranIn(thread.threadId)).toHaveLength(1);
  });
});

describe("who may list, read and decide", () => {
  it("decides one call at a time by id: each approved call runs at once, the run waits for the rest, and a second decision for a call is a duplicate", async () => {
    const run = await parkedRun();
    const [small, big] = run.ids as [string, string];
    const path = `/approvals/${encodeURIComponent(run.approvalId)}`;
    const first = await http.call("POST", path, { user: "fiona", body: { decisions: { [small]: { approved: true } } } });
    expect(first).toMatchObject({ status: 200, body: { status: "resumed", outcome: { status: "deferred", deferralId: run.approvalId } } });
    expect(ranIn(run.runId)).toEqual([{ tool: "sendPayout", input: { amount: 120, to: "acme" } }]);
    expect(modelCalls(run.runId)).toBe(1);
    const again = await http.call("POST", path, { user: "fiona", body: { decisions: { [small]: { approved: false } } } });
    expect(again).toMatchObject({ status: 200, body: { status: "duplicate", outcome: { status: "deferred" } } });
    const last = await http.call("POST", path, { user: "fiona", body: { decisions: [{ toolCallId: big, approved: false, reason: "not on file" }] } });
    expect(last).toMatchObject({ status: 200, body: { status: "resumed", outcome: { status: "completed" } } });
    expect(ranIn(run.runId)).toHaveLength(1);
    expect(modelCalls(run.runId)).toBe(2);
  });

  it("refuses a decision the hook does not allow with 403 (RC5056 by id, AI1021 on the thread route) and runs nothing", async () => {
    const run = await parkedRun();
    const same = await unchanged(run.runId, run.approvalId);
    const decisions = run.ids.map((toolCallId) => ({ toolCallId, approved: true }));
    for (const user of ["ian", "maria", undefined]) {
      const res = await http.call("POST", `/approvals/${encodeURIComponent(run.approvalId)}`, { ...(user ? { user } : {}), body: { decisions } });
      expect(res, String(user)).toMatchObject({ status: 403, body: { error: { code: "RC5056" } } });
    }
    await same();

    const thread = await parkedThread();
    const path = `/threads/${encodeURIComponent(thread.threadId)}/approvals/${encodeURIComponent(thread.approvalId)}`;
    const refused = await http.call("POST", path, { user: "fiona", body: { decisions: [{ toolCallId: thread.toolCallId, approved: true }] } });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "AI1021" } } });
    expect((await threads.state({ threadId: thread.threadId })).approvals).toHaveLength(1);
    expect(ranIn(thread.threadId)).toEqual([]);

    // Allowed, it goes through: the refusals spent nothing.
    expect((await http.call("POST", `/approvals/${encodeURIComponent(run.approvalId)}`, { user: "fiona", body: { decisions } })).status).toBe(200);
    expect(ranIn(run.runId)).toHaveLength(2);
  });

  it("lists only the rows the hook allows and refuses reading a request it does not (403 AI1013)", async () => {
    const run = await parkedRun();
    await listedFor("ian", "?limit=1000", [run.approvalId]);
    const bobs = await http.call("GET", "/approvals?limit=1000", { user: "bob" });
    expect(bobs).toMatchObject({ status: 200, body: { approvals: [] } });
    expect(await http.call("GET", `/approvals/${encodeURIComponent(run.approvalId)}`, { user: "bob" })).toMatchObject({ status: 403, body: { error: { code: "AI1013" } } });
  });
});

describe("what does not fit", () => {
  it("refuses malformed, oversized and hostile requests with AI1040 / AI1041, and decisions the request does not take with RC5049, changing nothing", async () => {
    const run = await parkedRun();
    const [small, big] = run.ids as [string, string];
    const path = `/approvals/${encodeURIComponent(run.approvalId)}`;
    const same = await unchanged(run.runId, run.approvalId);

    const malformed: Array<[string, { raw?: string; body?: unknown; headers?: Record<string, string> }]> = [
      ["not JSON", { raw: "{ decisions: [" }],
      ["no decisions", { body: {} }],
      ["decisions a string", { body: { decisions: "approve all" } }],
      ["decisions null", { body: { decisions: null } }],
      ["approved not a boolean", { body: { decisions: [{ toolCallId: small, approved: "yes" }, { toolCallId: big, approved: true }] } }],
      ["a decision without a call id", { body: { decisions: [{ approved: true }] } }],
      ["a call id with a control character", { body: { decisions: [{ toolCallId: "call\u0000", approved: true }] } }],
      ["a call id over 1,000 characters", { body: { decisions: [{ toolCallId: "c".repeat(1001), approved: true }] } }],
      ["input a list", { body: { decisions: [{ toolCallId: small, approved: true, input: [1] }, { toolCallId: big, approved: true }] } }],
      ["a reason over 4,000 characters", { body: { decisions: [{ toolCallId: small, approved: false, reason: "r".repeat(4001) }, { toolCallId: big, approved: true }] } }],
      ["shown not a fingerprint", { body: { decisions: [{ toolCallId: small, approved: true }, { toolCallId: big, approved: true }], shown: "nope" } }],
      ["sent as text from the page's own origin", { raw: JSON.stringify({ decisions: [] }), headers: { "content-type": "text/plain", origin: new URL(http.url).origin } }],
      ["too many decisions", { body: { decisions: Array.from({ length: 1001 }, () => ({ toolCallId: "c", approved: true })) } }],
    ];
    for (const [what, request] of malformed) {
      const res = await http.call("POST", path, { user: "fiona", ...request });
      expect(res, what).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
    }
    // The same text body from anywhere else is what a cross-site form sends: refused before it is read.
    const crossSite = await http.call("POST", path, { user: "fiona", raw: JSON.stringify({ decisions: [] }), headers: { "content-type": "text/plain", origin: "https://elsewhere.example" } });
    expect(crossSite).toMatchObject({ status: 403, body: { error: { code: "AI1043" } } });
    const huge = await http.call("POST", path, { user: "fiona", body: { decisions: [{ toolCallId: small, approved: false, reason: "x".repeat(100_000) }] } });
    expect(huge).toMatchObject({ status: 413, body: { error: { code: "AI1041" } } });

    const misfits: Array<[string, unknown]> = [
      ["no decision at all", []],
      ["more decisions than the request has calls", [{ toolCallId: small, approved: true }, { toolCallId: big, approved: true }, { toolCallId: small, approved: false }]],
      ["a call the request does not list", [{ toolCallId: small, approved: true }, { toolCallId: big, approved: true }, { toolCallId: "call_elsewhere", approved: true }]],
      ["a call decided twice", [{ toolCallId: small, approved: true }, { toolCallId: small, approved: false }, { toolCallId: big, approved: true }]],
      ["an edit that fails the tool's schema", [{ toolCallId: small, approved: true, input: { amount: -5, to: "acme" } }, { toolCallId: big, approved: true }]],
      ["an edit for a rejection", [{ toolCallId: small, approved: false, input: { amount: 5, to: "x" } }, { toolCallId: big, approved: true }]],
      ["__proto__ as a call id", [{ toolCallId: "__proto__", approved: true }, { toolCallId: small, approved: true }, { toolCallId: big, approved: true }]],
      // Read as an own key, never as the edit's prototype: the amount it would lend is still missing.
      ["an amount lent through __proto__", [{ toolCallId: small, approved: true, input: JSON.parse('{"__proto__": {"amount": 1}, "to": "acme"}') }, { toolCallId: big, approved: true }]],
    ];
    for (const [what, decisions] of misfits) {
      const res = await http.call("POST", path, { user: "fiona", raw: JSON.stringify({ decisions }) });
      expect(res, what).toMatchObject({ status: 400, body: { error: { code: "RC5049" } } });
    }
    // A fingerprint of something else: the calls it was decided on are not these (RC5058, 409).
    const stale = await http.call("POST", path, { user: "fiona", body: { decisions: [{ toolCallId: small, approved: true }, { toolCallId: big, approved: true }], shown: "0".repeat(64) } });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: "RC5058" } } });
    await same();

    // The token was never spent: a decision that fits still goes through.
    const ok = await http.call("POST", path, { user: "fiona", body: { decisions: [{ toolCallId: small, approved: true }, { toolCallId: big, approved: false }] } });
    expect(ok).toMatchObject({ status: 200, body: { status: "resumed" } });
    expect(ranIn(run.runId)).toEqual([{ tool: "sendPayout", input: { amount: 120, to: "acme" } }]);
  });

  it("refuses an edit too large for the request with 413 AI1016 under the front door's default body limit, on both routes; the run and the thread keep waiting", async () => {
    // The default limit (1 MiB), which takes an 800 KB edit to the clients.
    const wide = await startHttp({ agents, basePath: "/api", authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""] });
    try {
      const run = await parkedRun([{ name: "sendPayout", arguments: { amount: 120, to: "acme" } }]);
      const same = await unchanged(run.runId, run.approvalId);
      const path = `/approvals/${encodeURIComponent(run.approvalId)}`;
      const big = await wide.call("POST", path, { user: "fiona", body: { decisions: [{ toolCallId: run.ids[0], approved: true, input: { amount: 120, to: "z".repeat(800_000) } }] } });
      expect(big).toMatchObject({ status: 413, body: { error: { code: "AI1016", message: expect.stringMatching(/edited input/) } } });
      await same();
      const ok = await wide.call("POST", path, { user: "fiona", body: { decisions: [{ toolCallId: run.ids[0], approved: true, input: { amount: 120, to: "acme gmbh" } }] } });
      expect(ok).toMatchObject({ status: 200, body: { status: "resumed", outcome: { status: "completed" } } });
      expect(ranIn(run.runId)).toEqual([{ tool: "sendPayout", input: { amount: 120, to: "acme gmbh" } }]);

      const thread = await parkedThread("c.txt");
      const threadPath = `/threads/${encodeURIComponent(thread.threadId)}/approvals/${encodeURIComponent(thread.approvalId)}`;
      const refused = await wide.call("POST", threadPath, { user: "maria", body: { decisions: [{ toolCallId: thread.toolCallId, approved: true, input: { path: "q".repeat(800_000) } }] } });
      expect(refused).toMatchObject({ status: 413, body: { error: { code: "AI1016" } } });
      expect((await threads.state({ threadId: thread.threadId })).approvals).toHaveLength(1);
      expect(await wide.call("POST", threadPath, { user: "maria", body: { decisions: [{ toolCallId: thread.toolCallId, approved: true }] } })).toMatchObject({ status: 200 });
      expect(await threads.settled({ threadId: thread.threadId })).toMatchObject({ status: "completed" });
      expect(ranIn(thread.threadId)).toEqual([{ tool: "deleteFile", input: { path: "c.txt" } }]);
    } finally {
      await wide.close();
    }
  });

  it("refuses hostile ids and query parameters with AI1040, unknown requests with 404, and maps closed requests as the code table does", async () => {
    for (const path of [
      `/approvals/${encodeURIComponent("dfr:1:\u0007bell")}`,
      `/approvals/${"d".repeat(1001)}`,
      "/approvals?limit=0",
      "/approvals?limit=1001",
      "/approvals?limit=ten",
      "/approvals?status=waiting",
      "/approvals?cursor=not%20a%20cursor",
      `/approvals?requires=${encodeURIComponent("a\nb")}`,
      `/approvals?agentId=${"a".repeat(1001)}`,
    ]) {
      expect(await http.call("GET", path, { user: "fiona" }), path).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
    }
    expect(await http.call("POST", `/threads/t1/approvals/${encodeURIComponent("dfr:1:\u0000")}`, { user: "maria", body: { decisions: [] } })).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
    for (const id of ["__proto__", "constructor", "dfr:1:no-such-run", "no-such-approval"]) {
      expect(await http.call("GET", `/approvals/${encodeURIComponent(id)}`, { user: "fiona" }), id).toMatchObject({ status: 404, body: { error: { code: "RC5046" } } });
      expect(await http.call("POST", `/approvals/${encodeURIComponent(id)}`, { user: "fiona", body: { decisions: [] } }), id).toMatchObject({ status: 404, body: { error: { code: "RC5046" } } });
    }
    expect(await http.call("POST", "/threads/no-such-thread/approvals/dfr:1:no-such-thread", { user: "maria", body: { decisions: [] } })).toMatchObject({ status: 404, body: { error: { code: "AI1020" } } });

    // A ctx.defer() deferral is answered with its token, not decided by id.
    const plain = uid("http-plain");
    h.model.script(plain, [{ toolCalls: [{ name: "askManager", arguments: {} }] }, { text: "asked" }]);
    const ack = await agents.run(payouts, { prompt: plain, runId: plain });
    const deferralId = (ack as { deferralId: string }).deferralId;
    expect((await http.call("GET", `/approvals/${encodeURIComponent(deferralId)}`, { user: "fiona" })).body).toMatchObject({ kind: "deferral", calls: [{ toolName: "askManager" }] });
    expect(await http.call("POST", `/approvals/${encodeURIComponent(deferralId)}`, { user: "fiona", body: { decisions: [] } })).toMatchObject({ status: 400, body: { error: { code: "RC5049" } } });

    // Withdrawn by a cancel: RC5050 (409); run out of time: RC5047 (410), the run gone on without it. Nothing runs either way.
    const cancelled = await parkedRun();
    await agents.cancel({ runId: cancelled.runId, reason: "customer left" });
    const late = await http.call("POST", `/approvals/${encodeURIComponent(cancelled.approvalId)}`, { user: "fiona", body: { decisions: cancelled.ids.map((toolCallId) => ({ toolCallId, approved: true })) } });
    expect(late).toMatchObject({ status: 409, body: { error: { code: expect.stringMatching(/^RC505[04]$/) } } });
    const expired = await parkedRun([{ name: "quickPayout", arguments: { amount: 1 } }]);
    expect(await agents.result({ runId: expired.runId })).toMatchObject({ status: "completed", text: "done paying" });
    const tooLate = await http.call("POST", `/approvals/${encodeURIComponent(expired.approvalId)}`, { user: "fiona", body: { decisions: [{ toolCallId: expired.ids[0], approved: true }] } });
    expect(tooLate).toMatchObject({ status: 410, body: { error: { code: "RC5047" } } });
    expect([...ranIn(cancelled.runId), ...ranIn(expired.runId)]).toEqual([]);
  });
});
