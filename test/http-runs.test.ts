import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AgentClient, type AuthorizeRequest, type DeferredAck } from "../src/index.js";
import { linkFor, payoutAgent } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { PEOPLE, requiresRoles, startHttp, type HttpServer } from "./http-support.js";

let h: Harness;
let agents: AgentClient;
let http: HttpServer;

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([payoutAgent], {
    deferral: { secret: SECRET },
    client: { deferral: { secret: SECRET }, authorize: requiresRoles },
  }));
  http = await startHttp({ agents, basePath: "/api", maxBodyBytes: 64 * 1024 });
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

function scriptApproval(prompt: string, amount = 250, ttl?: string) {
  h.model.script(prompt, [
    { toolCalls: [{ name: "askApproval", arguments: { amount, ...(ttl ? { ttl } : {}) } }] },
    { toolCalls: [{ name: "sendPayout", arguments: { amount } }] },
    { text: `Paid ${amount}.` },
  ]);
}

/** A run parked on askApproval, started over HTTP as `user`. */
async function deferredRun(options: { ttl?: string; user?: string } = {}) {
  const runId = uid("http-payout");
  scriptApproval(runId, 250, options.ttl);
  const started = await http.call("POST", "/runs", { user: options.user ?? "alice", body: { agent: "payouts", prompt: runId, runId, wait: true } });
  expect(started.status).toBe(200);
  const ack = started.body.settled as DeferredAck;
  expect(ack.status).toBe("deferred");
  return { runId, ack, link: linkFor(runId) };
}

const modelCalls = (runId: string) => h.model.requests.filter((r) => r.conversation === runId).length;

/** What "nothing changed" means for a parked run: still deferred, same record, no model call. */
async function unchanged(runId: string, deferralId: string) {
  const before = await agents.deferrals.get({ deferralId });
  const calls = modelCalls(runId);
  return async () => {
    const after = await agents.deferrals.get({ deferralId });
    expect(after.status).toBe("deferred");
    expect(after.fingerprint).toBe(before.fingerprint);
    expect((await agents.state({ runId })).status).toBe("deferred");
    expect(modelCalls(runId)).toBe(calls);
  };
}

describe("runs over HTTP", () => {
  it("starts a run as the authenticated principal, shows its state and pages its messages", async () => {
    const { runId, ack } = await deferredRun();
    const state = await http.call("GET", `/runs/${runId}`);
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({ status: "deferred", deferralId: ack.deferralId, principal: { id: "alice" } });

    const first = await http.call("GET", `/runs/${runId}/messages?limit=1`);
    expect(first.body).toMatchObject({ messages: [{ role: "user", content: runId }], total: 2, cursor: "1" });
    const second = await http.call("GET", `/runs/${runId}/messages?limit=1&cursor=1`);
    expect(second.body.messages[0]).toMatchObject({ role: "assistant" });
    expect(second.body.cursor).toBeUndefined();
  });

  it("answers 202 with the run id at once without wait, and a second POST with the same runId attaches", async () => {
    const runId = uid("http-attach");
    scriptApproval(runId);
    const a = await http.call("POST", "/runs", { user: "alice", body: { agent: "payouts", prompt: runId, runId } });
    expect(a.status).toBe(202);
    expect(a.body).toEqual({ runId });
    expect(a.headers.get("location")).toBe(`/api/runs/${runId}`);
    const b = await http.call("POST", "/runs", { user: "alice", body: { agent: "payouts", prompt: runId, runId, wait: true } });
    expect(b.body).toMatchObject({ runId, settled: { status: "deferred" } });
    // One run: the model was asked once for the first turn.
    expect(modelCalls(runId)).toBe(1);
  });

  it("is idempotent by Idempotency-Key per principal", async () => {
    const key = uid("key");
    const post = (user: string) =>
      http.call("POST", "/runs", { user, headers: { "idempotency-key": key }, body: { agent: "payouts", prompt: "key-run" } });
    h.model.respond("key-run", () => ({ text: "done" }));
    const a = await post("alice");
    const b = await post("alice");
    const c = await post("bob");
    expect(a.status).toBe(202);
    expect(b.body.runId).toBe(a.body.runId);
    expect(c.body.runId).not.toBe(a.body.runId);
    expect((await agents.result({ runId: a.body.runId })).text).toBe("done");
    expect((await http.call("POST", "/runs", { user: "alice", headers: { "idempotency-key": "x".repeat(300) }, body: { agent: "payouts", prompt: "p" } })).body.error.code).toBe("AI1040");
  });

  it("cancels a deferred run: its deferral is denied (RC5050 409) and the run reads AI1005", async () => {
    const { runId, link } = await deferredRun();
    const cancelled = await http.call("POST", `/runs/${runId}/cancel`, { body: { reason: "withdrawn" } });
    expect(cancelled).toMatchObject({ status: 200, body: { runId, cancelled: true } });
    await expect(agents.result({ runId })).rejects.toMatchObject({ code: "AI1005" });
    const resume = await http.call("POST", "/resume", { user: "fiona", body: { token: link.token, payload: { approved: true } } });
    expect(resume).toMatchObject({ status: 409, body: { error: { code: "RC5050" } } });
  });

  it("refuses unknown runs with AI1010 (404) for state, messages and cancel", async () => {
    for (const [method, path] of [
      ["GET", "/runs/no-such-run"],
      ["GET", "/runs/no-such-run/messages"],
      ["POST", "/runs/no-such-run/cancel"],
    ] as const) {
      const res = await http.call(method, path, method === "POST" ? { body: {} } : {});
      expect(res, `${method} ${path}`).toMatchObject({ status: 404, body: { error: { code: "AI1010", message: expect.any(String) } } });
    }
  });
});

describe("deferrals and resume over HTTP", () => {
  it("lists deferrals with the filters and pagination of deferrals.list, and shows a record without any token", async () => {
    const one = await deferredRun();
    const two = await deferredRun();
    const ids = [one.ack.deferralId, two.ack.deferralId];
    await vi.waitFor(async () => {
      const listed = await http.call("GET", "/deferrals?status=deferred&agentId=payouts&limit=1000");
      expect(listed.status).toBe(200);
      expect(listed.body.deferrals.map((d: { deferralId: string }) => d.deferralId)).toEqual(expect.arrayContaining(ids));
    }, { timeout: 15_000, interval: 200 });
    const page = await http.call("GET", "/deferrals?status=deferred&status=expired&limit=1");
    expect(page.body.deferrals).toHaveLength(1);
    expect(typeof page.body.cursor).toBe("string");
    const next = await http.call("GET", `/deferrals?status=deferred&status=expired&limit=1&cursor=${page.body.cursor}`);
    expect(next.body.deferrals).toHaveLength(1);
    expect(next.body.deferrals[0].deferralId).not.toBe(page.body.deferrals[0].deferralId);
    const none = await http.call("GET", `/deferrals?agentId=nobody-${uid("x")}`);
    expect(none.body).toEqual({ deferrals: [] });

    const record = await http.call("GET", `/deferrals/${encodeURIComponent(one.ack.deferralId)}`);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({ id: one.ack.deferralId, status: "deferred", meta: { requires: ["payouts:approve"] }, toolName: "askApproval" });
    expect(JSON.stringify(record.body)).not.toContain(one.link.token);

    for (const bad of ["?status=bogus", "?expiringBefore=tomorrow", "?limit=0", "?limit=abc", "?cursor=%22%3B"]) {
      expect((await http.call("GET", `/deferrals${bad}`)).body.error.code, bad).toBe("AI1040");
    }
  });

  it("refuses, in the resume's order, each without changing the deferral; then resumes once and answers duplicates with the first outcome", async () => {
    const { runId, ack, link } = await deferredRun();
    const check = await unchanged(runId, ack.deferralId);
    const resume = (user: string | undefined, body: unknown) => http.call("POST", "/resume", { ...(user ? { user } : {}), body });

    const forged = await resume("fiona", { token: `${link.token.slice(0, -4)}AAAA`, payload: { approved: true } });
    expect(forged).toMatchObject({ status: 401, body: { error: { code: "RC5041" } } });
    expect((await resume("fiona", { token: "x".repeat(5000), payload: { approved: true } })).body.error.code).toBe("RC5041");
    const intern = await resume("ian", { token: link.token, payload: { approved: true } });
    expect(intern).toMatchObject({ status: 403, body: { error: { code: "RC5056" } } });
    const anonymous = await resume(undefined, { token: link.token, payload: { approved: true } });
    expect(anonymous).toMatchObject({ status: 403, body: { error: { code: "RC5056" } } });
    const badPayload = await resume("fiona", { token: link.token, payload: { approved: "yes" } });
    expect(badPayload).toMatchObject({ status: 400, body: { error: { code: "RC5049" } } });
    expect((await resume("fiona", { token: link.token })).body.error.code).toBe("AI1040");
    await check();

    const resumed = await resume("fiona", { token: link.token, payload: { approved: true, note: "ok" } });
    expect(resumed).toMatchObject({ status: 200, body: { status: "resumed", deferralId: ack.deferralId, outcome: { status: "completed", result: { text: "Paid 250." } } } });
    const again = await resume("fiona", { token: link.token, payload: { approved: false } });
    expect(again).toMatchObject({ status: 200, body: { status: "duplicate", outcome: resumed.body.outcome } });
    expect((await http.call("GET", `/runs/${runId}`)).body.status).toBe("completed");
  });

  it("answers an expired deferral with RC5047 (410)", async () => {
    const { runId, link } = await deferredRun({ ttl: "1s" });
    await expect(agents.result({ runId })).rejects.toMatchObject({ code: "RC5047" });
    const res = await http.call("POST", "/resume", { user: "fiona", body: { token: link.token, payload: { approved: true } } });
    expect(res).toMatchObject({ status: 410, body: { error: { code: "RC5047" } } });
  });

  it("answers a loser's token with RC5055 (409) and an unknown deferral with RC5046 (404)", async () => {
    const runId = uid("http-two");
    h.model.script(runId, [
      { toolCalls: [{ name: "askApproval", arguments: { amount: 1 } }, { name: "askApproval", arguments: { amount: 2 } }] },
      { text: "never" },
    ]);
    const started = await http.call("POST", "/runs", { user: "alice", body: { agent: "payouts", prompt: runId, runId, wait: true } });
    expect(started.body.settled.status).toBe("deferred");
    const check = await unchanged(runId, started.body.settled.deferralId);
    // Both calls of the batch handed out a token; only the first in emission order won.
    const { outbox } = await import("./fixtures/approvals.js");
    const tokens = outbox.filter((m) => m.runId === runId);
    expect(tokens).toHaveLength(2);
    const winner = (await http.call("GET", `/deferrals/${encodeURIComponent(started.body.settled.deferralId)}`)).body.toolCallId;
    const loser = tokens.find((m) => m.toolCallId !== winner);
    const res = await http.call("POST", "/resume", { user: "fiona", body: { token: loser!.token, payload: { approved: true } } });
    expect(res).toMatchObject({ status: 409, body: { error: { code: "RC5055" } } });
    await check();

    for (const id of ["dfr:0:no-such-run", "__proto__", "constructor"]) {
      const missing = await http.call("GET", `/deferrals/${encodeURIComponent(id)}`);
      expect(missing, id).toMatchObject({ status: 404, body: { error: { code: "RC5046" } } });
    }
  });
});

describe("the hook behind the run and deferral routes", () => {
  it("asks it as the authenticated caller on every route: another principal gets 403 AI1013 and a filtered list, and nothing changes", async () => {
    // A second front door on the same runs, whose client lets a run's starter (and approvers, to resume) in.
    const asked: AuthorizeRequest[] = [];
    const owners = new Map<string, string>();
    const owned = new AgentClient({
      client: agents.client,
      taskQueue: agents.taskQueue,
      deferral: { secret: SECRET },
      authorize: (request) => {
        asked.push(request);
        const who = request.principal?.id;
        if (request.runId === undefined || who === undefined) return false;
        if (request.operation === "run.start") return (owners.get(request.runId) ?? (owners.set(request.runId, who), who)) === who;
        if (request.operation === "resume") return requiresRoles(request);
        return owners.get(request.runId) === who;
      },
    });
    const guarded = await startHttp({ agents: owned, approvalPage: false });
    try {
      const runId = uid("http-owned");
      scriptApproval(runId);
      const started = await guarded.call("POST", "/runs", { user: "alice", body: { agent: "payouts", prompt: runId, runId, wait: true } });
      expect(started.status).toBe(200);
      const deferralId = started.body.settled.deferralId as string;
      const check = await unchanged(runId, deferralId);

      const routes: Array<[string, string, string, unknown?]> = [
        ["run.state", "GET", `/runs/${runId}`],
        ["run.state", "GET", `/runs/${runId}/messages`],
        ["run.cancel", "POST", `/runs/${runId}/cancel`, { reason: "mine now" }],
        ["deferral.get", "GET", `/deferrals/${encodeURIComponent(deferralId)}`],
        ["run.start", "POST", "/runs", { agent: "payouts", prompt: "take over", runId }],
      ];
      for (const [operation, method, path, body] of routes) {
        for (const user of ["bob", undefined]) {
          const res = await guarded.call(method, path, { ...(user ? { user } : {}), ...(body !== undefined ? { body } : {}) });
          expect(res, `${user} ${method} ${path}`).toMatchObject({ status: 403, body: { error: { code: "AI1013", message: expect.stringContaining(operation) } } });
        }
      }
      expect(asked).toContainEqual({ operation: "run.cancel", principal: PEOPLE.bob, runId });
      expect(asked).toContainEqual({ operation: "deferral.get", principal: PEOPLE.bob, runId, deferralId });
      await check();

      // The starter gets through on the same routes, and the list shows each caller only what the hook allows.
      expect((await guarded.call("GET", `/runs/${runId}`, { user: "alice" })).body).toMatchObject({ status: "deferred" });
      expect((await guarded.call("GET", `/deferrals/${encodeURIComponent(deferralId)}`, { user: "alice" })).body).toMatchObject({ id: deferralId });
      const listed = async (user: string) =>
        ((await guarded.call("GET", "/deferrals?status=deferred&agentId=payouts&limit=1000", { user })).body.deferrals as Array<{ runId: string }>).map((d) => d.runId);
      await vi.waitFor(async () => expect(await listed("alice")).toContain(runId), { timeout: 15_000, interval: 200 });
      expect(await listed("bob")).not.toContain(runId);
      expect(asked).toContainEqual({ operation: "deferral.list", principal: PEOPLE.alice, runId, deferralId, agentId: "payouts", status: "deferred" });
      expect(await guarded.call("POST", `/runs/${runId}/cancel`, { user: "alice", body: {} })).toMatchObject({ status: 200, body: { cancelled: true } });
    } finally {
      await guarded.close();
    }
  });
});

describe("hostile input", () => {
  const routes: Array<{ method: string; path: (id: string) => string; body?: unknown }> = [
    { method: "POST", path: () => "/runs", body: { agent: "payouts", prompt: "p" } },
    { method: "POST", path: (id) => `/runs/${id}/cancel`, body: {} },
    { method: "POST", path: () => "/resume", body: { token: "t", payload: {} } },
  ];

  it("refuses malformed JSON, wrong types, wrong content types and oversized bodies with typed codes, changing nothing", async () => {
    const { runId, ack, link } = await deferredRun();
    const check = await unchanged(runId, ack.deferralId);
    for (const route of routes) {
      const path = route.path(runId);
      const malformed = await http.call(route.method, path, { raw: '{"agent": "payouts", ' });
      expect(malformed, `${path} malformed`).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
      const wrongTypes = await http.call(route.method, path, { body: { agent: 42, prompt: ["x"], token: 7, payload: undefined, reason: { no: 1 } } });
      expect(wrongTypes, `${path} wrong types`).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
      const array = await http.call(route.method, path, { body: [1, 2] });
      expect(array.body.error.code, `${path} array`).toBe("AI1040");
      const text = await http.call(route.method, path, { raw: JSON.stringify(route.body), headers: { "content-type": "text/plain", origin: new URL(http.url).origin } });
      expect(text.body.error.code, `${path} text/plain`).toBe("AI1040");
      const huge = await http.call(route.method, path, { body: { ...(route.body as object), prompt: "x".repeat(100 * 1024), payload: "x".repeat(100 * 1024) } });
      expect(huge, `${path} huge`).toMatchObject({ status: 413, body: { error: { code: "AI1041" } } });
    }
    // The real token with a body too large never reaches the run.
    const huge = await http.call("POST", "/resume", { user: "fiona", body: { token: link.token, payload: { approved: true, note: "x".repeat(100 * 1024) } } });
    expect(huge.body.error.code).toBe("AI1041");
    // A cross-site form post is refused before anything runs.
    const forged = await http.call("POST", `/runs/${runId}/cancel`, { raw: "reason=x", headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" } });
    expect(forged).toMatchObject({ status: 403, body: { error: { code: "AI1043" } } });
    await check();
  });

  it("treats adversarial ids as ids: __proto__ and constructor are not found, very long or control characters are malformed", async () => {
    const { runId, ack } = await deferredRun();
    const check = await unchanged(runId, ack.deferralId);
    for (const id of ["__proto__", "constructor", "prototype", "hasOwnProperty"]) {
      expect((await http.call("GET", `/runs/${id}`)).body.error.code, id).toBe("AI1010");
      expect((await http.call("POST", `/runs/${id}/cancel`, { body: {} })).body.error.code, id).toBe("AI1010");
    }
    const long = "a".repeat(5000);
    for (const [method, path] of [
      ["GET", `/runs/${long}`],
      ["GET", `/runs/${long}/messages`],
      ["POST", `/runs/${long}/cancel`],
      ["GET", `/deferrals/${long}`],
      ["GET", `/runs/${encodeURIComponent("a\u0000b")}`],
      ["GET", `/runs/${runId}/messages?cursor=-1`],
      ["GET", `/runs/${runId}/messages?limit=1e9`],
    ] as const) {
      const res = await http.call(method, path, method === "POST" ? { body: {} } : {});
      expect(res, `${method} ${path.slice(0, 40)}`).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
    }
    const longRun = await http.call("POST", "/runs", { body: { agent: "payouts", prompt: "p", runId: long } });
    expect(longRun.body.error.code).toBe("AI1040");
    const protoBody = await http.call("POST", "/runs", { raw: '{"__proto__": {"wait": true}, "constructor": {"prototype": {}}, "agent": 1}' });
    expect(protoBody.body.error.code).toBe("AI1040");
    expect((await http.call("GET", "/nowhere")).body.error.code).toBe("AI1042");
    expect((await http.call("DELETE", `/runs/${runId}`)).status).toBe(404);
    await check();
  });
});
