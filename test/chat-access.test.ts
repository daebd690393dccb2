/**
 * The chat example's access rules, which people copy: its own `authorize` hook asked
 * directly, then its own server (front door and login stand-in) asked over HTTP. Anonymous
 * and foreign callers are refused and change nothing; owners and the manager get through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthorizeRequest, JsonObject, Principal } from "../src/index.js";
import { chatAuthorize, PEOPLE } from "../examples/chat/access.js";
import { startHarness, type Harness } from "./harness.js";
import { chatRig, type ChatRig } from "./chat-support.js";

const { sam, lee, mia } = PEOPLE;

describe("the chat example's authorize hook", () => {
  const owners = new Map([["t-sam", "sam"]]);
  const hook = chatAuthorize(async (threadId) => owners.get(threadId));
  const ask = (request: AuthorizeRequest) => hook(request);
  const metaOf = (requires: string[]): JsonObject => (requires.length > 0 ? { requires } : {});
  const decide = (principal: Principal | undefined, requires: string[]): AuthorizeRequest => ({
    operation: "thread.decide",
    principal,
    threadId: "t-sam",
    approvalId: "dfr:1:t-sam",
    calls: [{ toolCallId: "c1", toolName: "issueRefund", arguments: "{}" }],
    meta: metaOf(requires),
    decisions: [{ toolCallId: "c1", approved: true }],
  });
  const resume = (principal: Principal | undefined, requires: string[]): AuthorizeRequest => {
    const meta = metaOf(requires);
    const at = "2026-01-01T00:00:00.000Z";
    return {
      operation: "resume",
      principal,
      runId: "t-sam",
      deferralId: "dfr:1:t-sam",
      toolCallId: "c1",
      deferral: { id: "dfr:1:t-sam", meta, status: "deferred", principal: undefined, deferredAt: at, expiresAt: at },
      payload: { decisions: [{ toolCallId: "c1", approved: true }] },
    };
  };
  const threadOperations = ["thread.get", "thread.messages", "thread.stream", "thread.send", "thread.addMessage", "thread.resume", "thread.stop", "thread.delete"] as const;

  it("refuses an anonymous caller everything, creating a thread included", async () => {
    expect(await ask({ operation: "thread.create", principal: undefined, threadId: "t-new", agentId: "support", seeded: false, trustTranscript: false })).toBe(false);
    expect(await ask({ operation: "thread.list", principal: undefined, threadId: "t-sam" })).toBe(false);
    for (const operation of threadOperations) expect(await ask({ operation, principal: undefined, threadId: "t-sam" })).toBe(false);
    expect(await ask(decide(undefined, ["manager"]))).toBe(false);
    expect(await ask(decide(undefined, []))).toBe(false);
    expect(await ask({ operation: "deferral.list", principal: undefined, runId: "t-sam", deferralId: "d", status: "deferred" })).toBe(false);
  });

  it("lets the owner do everything with their thread, and nobody else read or write it", async () => {
    for (const operation of threadOperations) {
      expect(await ask({ operation, principal: sam, threadId: "t-sam" })).toBe(true);
      expect(await ask({ operation, principal: lee, threadId: "t-sam" })).toBe(false);
    }
    expect(await ask({ operation: "thread.list", principal: sam, threadId: "t-sam" })).toBe(true);
    expect(await ask({ operation: "thread.list", principal: lee, threadId: "t-sam" })).toBe(false);
    // A thread nobody is known to own (gone, or never there) is nobody's.
    expect(await ask({ operation: "thread.get", principal: sam, threadId: "t-unknown" })).toBe(false);
  });

  it("lets who a request names decide it: the manager a refund, the owner (and nobody else) a cancellation", async () => {
    // A refund requires the manager: on any customer's thread, but never the customer, even on their own.
    expect(await ask(decide(mia, ["manager"]))).toBe(true);
    expect(await ask(decide(sam, ["manager"]))).toBe(false);
    expect(await ask(decide(lee, ["manager"]))).toBe(false);
    // A request naming no role is the thread owner's own confirmation: not the manager's, not another customer's.
    expect(await ask(decide(sam, []))).toBe(true);
    expect(await ask(decide(mia, []))).toBe(false);
    expect(await ask(decide(lee, []))).toBe(false);
    // The inbox decides as `resume`: only what requires roles, by who holds them all.
    expect(await ask(resume(mia, ["manager"]))).toBe(true);
    expect(await ask(resume(mia, ["manager", "finance"]))).toBe(false);
    expect(await ask(resume(sam, ["manager"]))).toBe(false);
    expect(await ask(resume(mia, []))).toBe(false);
    expect(await ask(resume(sam, []))).toBe(false);
  });

  it("lets the manager list and read the inbox and see a thread's status, never read its messages or answer a tool", async () => {
    expect(await ask({ operation: "deferral.list", principal: mia, runId: "t-sam", deferralId: "d", status: "deferred" })).toBe(true);
    expect(await ask({ operation: "deferral.get", principal: mia, runId: "t-sam", deferralId: "d" })).toBe(true);
    expect(await ask({ operation: "deferral.list", principal: sam, runId: "t-sam", deferralId: "d", status: "deferred" })).toBe(false);
    expect(await ask({ operation: "deferral.get", principal: sam, runId: "t-sam", deferralId: "d" })).toBe(false);
    expect(await ask({ operation: "thread.get", principal: mia, threadId: "t-sam" })).toBe(true);
    for (const operation of threadOperations.filter((o) => o !== "thread.get")) expect(await ask({ operation, principal: mia, threadId: "t-sam" })).toBe(false);
    for (const principal of [sam, mia]) expect(await ask({ operation: "thread.toolResult", principal, threadId: "t-sam", toolCallId: "c1", toolName: "lookupOrder" })).toBe(false);
  });

  it("refuses every other run and deferral operation: the chat app starts no runs", async () => {
    expect(await ask({ operation: "run.start", principal: sam, runId: "r", agentId: "support" })).toBe(false);
    expect(await ask({ operation: "run.state", principal: mia, runId: "r" })).toBe(false);
    expect(await ask({ operation: "deferral.deny", principal: mia, runId: "r", deferralId: "d" })).toBe(false);
    expect(await ask({ operation: "deferral.replace", principal: mia, runId: "r", deferralId: "d" })).toBe(false);
  });

  it("refuses a seeded transcript the caller vouches for", async () => {
    expect(await ask({ operation: "thread.create", principal: sam, threadId: "t-new", agentId: "support", seeded: false, trustTranscript: false })).toBe(true);
    expect(await ask({ operation: "thread.create", principal: sam, threadId: "t-new", agentId: "support", seeded: true, trustTranscript: true })).toBe(false);
  });
});

describe("the chat example's server", () => {
  let h: Harness;
  let rig: ChatRig;
  beforeAll(async () => {
    h = await startHarness();
    rig = await chatRig(h);
  });
  afterAll(async () => {
    await rig?.close();
    await h?.close();
  });

  async function call(method: string, path: string, user?: string, body?: unknown) {
    const response = await fetch(`${rig.app.url}agents${path}`, {
      method,
      headers: { ...(user !== undefined ? { "x-user": user } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  it("refuses anonymous and foreign callers on sam's thread, and their refused writes change nothing", async () => {
    const { threadId } = await rig.agents.threads.createThread({ principal: sam });
    const path = `/threads/${encodeURIComponent(threadId)}`;

    // No login, an unknown name, and names that only exist on Object.prototype are all anonymous.
    for (const user of [undefined, "nobody", "constructor", "__proto__"]) {
      const read = await call("GET", path, user);
      expect(read.status).toBe(403);
      expect(read.body.error.code).toBe("AI1021");
      expect((await call("POST", "/threads", user, {})).status).toBe(403);
    }
    for (const user of ["lee", "mia"]) {
      expect((await call("GET", `${path}/messages`, user)).body.error.code).toBe("AI1021");
      expect((await call("POST", `${path}/messages`, user, { prompt: `from ${user}` })).body.error.code).toBe("AI1021");
      expect((await call("POST", `${path}/stop`, user, {})).body.error.code).toBe("AI1021");
      expect((await call("DELETE", path, user)).body.error.code).toBe("AI1021");
    }
    expect((await call("GET", path, "lee")).status).toBe(403);
    expect((await call("GET", "/threads", "lee")).body.threads.map((t: { threadId: string }) => t.threadId)).not.toContain(threadId);

    // The owner reads it, untouched by the refused writes; the manager sees its status.
    const own = await call("GET", `${path}/messages`, "sam");
    expect(own.status).toBe(200);
    expect(own.body.messages).toEqual([]);
    expect((await call("GET", path, "sam")).body.status).toBe("idle");
    expect((await call("GET", path, "mia")).status).toBe(200);
    expect((await call("GET", "/threads", "sam")).body.threads.map((t: { threadId: string }) => t.threadId)).toContain(threadId);
  });

  it("keeps the front door's run routes shut, to anonymous and signed-in callers alike", async () => {
    for (const user of [undefined, "sam", "mia"]) {
      const started = await call("POST", "/runs", user, { agent: "support", prompt: "hello" });
      expect(started.status).toBe(403);
      expect(started.body.error.code).toBe("AI1013");
    }
  });
});
