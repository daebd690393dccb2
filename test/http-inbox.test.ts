/**
 * The inbox page in Chromium: the waiting requests of runs and threads the signed-in user may
 * see, one opened and decided per call by id (no token anywhere), and the list following
 * along by itself under a nonce-only CSP.
 */
import { mkdirSync } from "node:fs";
import { request } from "node:http";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type AgentClient, type AuthorizeHook, type JsonObject, type Principal, type ThreadsClient } from "../src/index.js";
import { launchChromium } from "./chromium.js";
import { gatedFixtures } from "./gated-fixtures.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";

/** Screenshots for a person to look at; git-ignored. */
const ARTIFACTS = new URL("../test-artifacts/inbox/", import.meta.url).pathname;

const { ranIn, payouts, files } = gatedFixtures("inbox");

/** mia decides both kinds; ian may look but not decide; bob may not even see the requests. */
const PEOPLE: Record<string, Principal> = {
  mia: { id: "mia", roles: ["payouts:approve", "files:delete"] },
  ian: { id: "ian", roles: [] },
  bob: { id: "bob", roles: [] },
};
const holds = (meta: JsonObject, principal: Principal | undefined) =>
  ((meta.requires as string[] | undefined) ?? []).every((role) => ((principal?.roles as string[] | undefined) ?? []).includes(role));
const authorize: AuthorizeHook = (req) => {
  if (req.principal?.id === "bob" && (req.operation === "deferral.get" || req.operation === "deferral.list")) return false;
  if (req.operation === "resume") return holds(req.deferral.meta, req.principal);
  return true;
};

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;
let http: HttpServer;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  h = await startHarness();
  ({ agents } = await h.worker([payouts, files], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize, threads: { agent: files } } }));
  threads = agents.threads;
  // A short interval so the test sees the list follow along soon; each ask is one visibility listing.
  http = await startHttp({ agents, basePath: "/agents", inboxPage: { refreshInterval: "150ms" }, maxBodyBytes: 200 * 1024, authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""] });
});
afterAll(async () => {
  await browser?.close();
  await http?.close();
  await h?.close();
});

async function parkedRun(call: { name: string; arguments: object } = { name: "sendPayout", arguments: { amount: 120, to: "acme" } }) {
  const runId = uid("inbox-run");
  h.model.script(runId, [{ toolCalls: [call] }, { text: "paid" }]);
  const ack = await agents.run(payouts, { prompt: runId, runId, principal: { id: "clerk" } });
  if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${JSON.stringify(ack)}`);
  return { runId, approvalId: ack.deferralId };
}

/** What "nothing changed" means for a parked run: the same record, still waiting, nothing ran, the model not asked again. */
async function unchanged(runId: string, approvalId: string) {
  const before = await agents.deferrals.get({ deferralId: approvalId });
  const asked = h.model.requests.filter((r) => r.conversation === runId).length;
  return async () => {
    const after = await agents.deferrals.get({ deferralId: approvalId });
    expect(after.status).toBe("deferred");
    expect(after.fingerprint).toBe(before.fingerprint);
    expect(ranIn(runId)).toEqual([]);
    expect(h.model.requests.filter((r) => r.conversation === runId).length).toBe(asked);
  };
}

async function parkedThread() {
  const threadId = uid("inbox-thread");
  h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "/etc/passwd" } }] }, { text: "not deleted" }]);
  await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
  const view = await vi.waitFor(
    async () => {
      const v = await threads.state({ threadId });
      expect(v.approvals).toHaveLength(1);
      return v;
    },
    { timeout: 20_000, interval: 50 },
  );
  return { threadId, approvalId: view.approvals[0]!.approvalId };
}

async function as(user: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-user": user } });
  return { context, page: await context.newPage() };
}

const row = (page: Page, approvalId: string) => page.locator(`li.request[data-approval-id="${approvalId}"]`);

describe("the inbox page in a browser", () => {
  it("lists a run's and a thread's requests, opens one and decides it per call, and the list follows along by itself", async () => {
    const { context, page: list } = await as("mia");
    const response = await list.goto(`${http.url}/inbox`);
    const headers = response!.headers();
    expect(headers["cache-control"]).toBe("no-store");
    expect(headers["content-security-policy"]).toMatch(/default-src 'none'/);
    expect(headers["content-security-policy"]).toMatch(/script-src 'nonce-[^']+'/);
    expect(headers["x-frame-options"]).toBe("DENY");
    // The inline script runs only by its nonce: nothing else could.
    expect(await list.locator("script:not([nonce])").count()).toBe(0);

    // Requests made after the page was opened appear in it without a reload.
    const run = await parkedRun();
    const thread = await parkedThread();
    await row(list, run.approvalId).waitFor({ timeout: 20_000 });
    await row(list, thread.approvalId).waitFor({ timeout: 20_000 });
    expect(await row(list, run.approvalId).textContent()).toMatch(/sendPayout\s+\{"amount":120,"to":"acme"\}/);
    expect(await row(list, thread.approvalId).textContent()).toContain(thread.threadId);
    await list.screenshot({ path: `${ARTIFACTS}list.png`, fullPage: true });

    // Open the run's request in another tab and approve it with an edit.
    const detail = await context.newPage();
    await detail.goto(`${http.url}/inbox`);
    await Promise.all([detail.waitForNavigation(), row(detail, run.approvalId).getByRole("link").click()]);
    expect(detail.url()).toBe(`${http.url}/inbox/${encodeURIComponent(run.approvalId)}`);
    const call = detail.getByRole("group", { name: /^Call 1 of 1: sendPayout/ });
    expect(await call.locator("pre").textContent()).toContain('"to": "acme"');
    await call.getByText("Edit the input").click();
    await call.getByLabel(/^amount/).fill("100");
    await call.getByLabel("Approve with the edited input below").check();
    await detail.screenshot({ path: `${ARTIFACTS}request.png`, fullPage: true });
    await detail.getByRole("button", { name: "Submit decisions" }).click();
    await detail.waitForSelector(".state-outcome");
    expect(await detail.textContent("main")).toContain("The run continued and completed.");
    expect(ranIn(run.runId)).toEqual([{ tool: "sendPayout", input: { amount: 100, to: "acme" } }]);

    // The first tab, never reloaded, drops the decided request and keeps the other.
    await row(list, run.approvalId).waitFor({ state: "detached", timeout: 20_000 });
    expect(await row(list, thread.approvalId).count()).toBe(1);
    expect(await list.textContent("#inbox-live")).toContain("The list was updated");

    // Back to the list from the outcome, and reject the thread's request.
    await Promise.all([detail.waitForNavigation(), detail.getByRole("link", { name: "All requests" }).click()]);
    await Promise.all([detail.waitForNavigation(), row(detail, thread.approvalId).getByRole("link").click()]);
    const threadCall = detail.getByRole("group", { name: /^Call 1 of 1: deleteFile/ });
    await threadCall.getByLabel("Reject", { exact: true }).check();
    await threadCall.getByLabel(/Reason for rejecting/).fill("never system files");
    await detail.getByRole("button", { name: "Submit decisions" }).click();
    await detail.waitForSelector(".state-outcome");
    expect(await detail.textContent("main")).toContain("The conversation goes on with the decision.");
    expect(await threads.settled({ threadId: thread.threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(ranIn(thread.threadId)).toEqual([]);
    await row(list, thread.approvalId).waitFor({ state: "detached", timeout: 20_000 });
    await context.close();
  });

  it("shows arguments with Unicode direction overrides as their escapes, in the list and on the request, as the CLI prints them", async () => {
    const BIDI = /[\u202a-\u202e\u2066-\u2069]/;
    // Shown raw, "\u202e…\u202c" reverses the account number it wraps.
    const to = "DE89 \u202e3704 0044 0532 0130 00\u202c";
    const run = await parkedRun({ name: "sendPayout", arguments: { amount: 7, to } });
    const { context, page } = await as("mia");
    await page.goto(`${http.url}/inbox`);
    await row(page, run.approvalId).waitFor({ timeout: 20_000 });
    expect(await row(page, run.approvalId).textContent()).toContain('"to":"DE89 \\u202e3704 0044 0532 0130 00\\u202c"');
    expect(await page.content()).not.toMatch(BIDI);

    await Promise.all([page.waitForNavigation(), row(page, run.approvalId).getByRole("link").click()]);
    expect(await page.content()).not.toMatch(BIDI);
    const call = page.getByRole("group", { name: /^Call 1 of 1: sendPayout/ });
    expect(await call.locator("pre").textContent()).toContain('"to": "DE89 \\u202e3704 0044 0532 0130 00\\u202c"');
    await call.getByText("Edit the input").click();
    expect(await call.getByLabel(/^to\b/).inputValue()).toBe("DE89 \\u202e3704 0044 0532 0130 00\\u202c");
    await context.close();
  });

  it("shows a user the hook refuses the refusal and runs nothing; lists nothing to one who may not see; refuses a form from another site", async () => {
    const run = await parkedRun();
    const path = `/inbox/${encodeURIComponent(run.approvalId)}`;
    const { context, page } = await as("ian");
    await page.goto(`${http.url}${path}`);
    await page.getByRole("group", { name: /^Call 1 of 1: sendPayout/ }).getByLabel("Approve", { exact: true }).check();
    const [refused] = await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Submit decisions" }).click()]);
    expect(refused!.status()).toBe(403);
    expect(await page.textContent("main")).toContain("You may not answer this request");
    expect(await page.textContent("main")).toContain("RC5056");
    await context.close();

    const bobs = await http.call("GET", "/inbox", { user: "bob" });
    expect(bobs.status).toBe(200);
    expect(bobs.body).toContain("Nothing is waiting for a decision.");
    expect(bobs.body).not.toContain(run.approvalId);
    expect((await http.call("GET", path, { user: "bob" })).status).toBe(403);

    // A form another site posts (no Origin of ours): AI1043 before anything is read.
    const form = await http.call("POST", path, { user: "mia", raw: "call.0.decision=approve", headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://elsewhere.example" } });
    expect(form).toMatchObject({ status: 403, body: { error: { code: "AI1043" } } });
    expect(await agents.deferrals.getRecord({ deferralId: run.approvalId })).toMatchObject({ status: "deferred" });
    expect(ranIn(run.runId)).toEqual([]);
  });

  it("answers an unchanged list with 304 to the live script's If-None-Match, so a viewer costs one visibility listing per ask", async () => {
    // Other requests may still be settling in visibility: asked until two reads agree.
    await vi.waitFor(
      async () => {
        const first = await http.call("GET", "/inbox", { user: "mia" });
        const etag = first.headers.get("etag")!;
        expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
        const again = await http.call("GET", "/inbox", { user: "mia", headers: { "if-none-match": etag } });
        expect(again.status).toBe(304);
        expect(again.body).toBe("");
      },
      { timeout: 20_000, interval: 200 },
    );
  });

  it("brings an adversarial form back with the problem, refuses an unreadable or oversized one with its code, and changes nothing either way", async () => {
    const run = await parkedRun();
    const path = `/inbox/${encodeURIComponent(run.approvalId)}`;
    const shown = (await agents.deferrals.getRecord({ deferralId: run.approvalId })).callFingerprint!;
    const same = await unchanged(run.runId, run.approvalId);
    const ours = { origin: new URL(http.url).origin };
    const post = (raw: string, headers: Record<string, string> = {}) =>
      http.call("POST", path, { user: "mia", raw, headers: { "content-type": "application/x-www-form-urlencoded", ...ours, ...headers } });
    const form = (fields: Array<[string, string]>) => new URLSearchParams(fields).toString();

    // The form comes back (400) with the problem, the fields as they were sent, and nothing spent.
    const problems: Array<[string, string, RegExp]> = [
      ["nothing decided", form([["shown", shown]]), /Call 1 \(sendPayout\): choose approve, edit, respond or reject/],
      ["a choice the form does not offer", form([["shown", shown], ["call.0.decision", "yes"]]), /choose approve, edit, respond or reject/],
      // Decisions are read by walking the request's calls: names for other calls, or an object's own keys, decide nothing.
      ["decisions for calls the request does not list", form([["shown", shown], ["call.1.decision", "approve"], ["call.-1.decision", "approve"], ["__proto__", "approve"], ["constructor.decision", "approve"]]), /choose approve, edit, respond or reject/],
      ["an edit that is not a number", form([["shown", shown], ["call.0.decision", "edit"], ["call.0.input.amount", "lots"], ["call.0.input.to", "acme"]]), /amount: (&quot;|")lots(&quot;|") is not a number/],
      ["an edit the tool's schema refuses", form([["shown", shown], ["call.0.decision", "edit"], ["call.0.input.amount", "-5"], ["call.0.input.to", "acme"]]), /amount|more than 0/i],
      ["a reason over the run's bound", form([["shown", shown], ["call.0.decision", "reject"], ["call.0.reason", "r".repeat(4001)]]), /reason|4000|4,000/i],
      ["a response without a result", form([["shown", shown], ["call.0.decision", "respond"], ["call.0.result", ""]]), /Call 1 \(sendPayout\): write the result the model should read/],
    ];
    for (const [what, body, problem] of problems) {
      const res = await post(body);
      expect(res.status, what).toBe(400);
      expect(res.headers.get("content-type"), what).toMatch(/^text\/html/);
      expect(res.body, what).toContain("Please check your answer");
      expect(res.body, what).toMatch(problem);
      expect(res.body, what).toContain(`name="shown" value="${shown}"`);
    }
    // What was typed stays in the form (escaped), so nothing is lost and nothing is injected.
    const kept = await post(form([["shown", shown], ["call.0.decision", "edit"], ["call.0.input.amount", "lots"], ["call.0.input.to", '"><script>alert(1)</script>']]));
    expect(kept.body).toContain("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(kept.body).not.toContain("<script>alert(1)");

    // A form that showed other calls, none, or is not a form at all: shown again as the request is now (409).
    for (const [what, raw, headers] of [
      ["no shown", form([["call.0.decision", "approve"]]), {}],
      ["a forged shown", form([["shown", "0".repeat(64)], ["call.0.decision", "approve"]]), {}],
      ["a JSON body", JSON.stringify({ shown, "call.0.decision": "approve" }), { "content-type": "application/json" }],
    ] as Array<[string, string, Record<string, string>]>) {
      const res = await post(raw, headers);
      expect(res.status, what).toBe(409);
      expect(res.body, what).toContain("This request is not the one your answer was given to");
      expect(res.body, what).toContain(`name="shown" value="${shown}"`);
    }

    // Unreadable or out of bounds: a typed code before anything is read from the run.
    const boundary = "----inbox";
    const multipart = (part: string) => [`--${boundary}`, part, `--${boundary}--`, ""].join("\r\n");
    const unreadable: Array<[string, string, Record<string, string>]> = [
      ["a value over 100,000 characters", form([["shown", shown], ["call.0.decision", "reject"], ["call.0.reason", "x".repeat(100_001)]]), {}],
      ["a field repeated over 1,000 times", form([["shown", shown], ...Array.from({ length: 1001 }, (): [string, string] => ["call.0.decision[]", "approve"])]), {}],
      ["a field name over 2,000 characters", form([["shown", shown], ["n".repeat(2001), "approve"]]), {}],
      ["a file instead of a field", multipart(`Content-Disposition: form-data; name="call.0.decision"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\napprove`), { "content-type": `multipart/form-data; boundary=${boundary}` }],
      ["a broken multipart body", "--nope\r\nrandom", { "content-type": `multipart/form-data; boundary=${boundary}` }],
    ];
    for (const [what, raw, headers] of unreadable) {
      expect(await post(raw, headers), what).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
    }
    // Declared too large: answered from the headers, before a byte of the body is read. (Sending
    // the body too races the server's early answer: the client may see the socket close first.)
    const tooLarge = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const target = new URL(`${http.url}${path}`);
      const req = request(target, { method: "POST", headers: { "x-user": "mia", "content-type": "application/x-www-form-urlencoded", ...ours, "content-length": String(300 * 1024) } });
      req.on("response", (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk)).on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.flushHeaders();
    });
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body)).toMatchObject({ error: { code: "AI1041" } });
    for (const bad of [`/inbox/${encodeURIComponent("dfr:1:\u0007bell")}`, `/inbox/${"d".repeat(1001)}`, "/inbox?limit=0", "/inbox?limit=201", "/inbox?limit=ten", "/inbox?cursor=not%20a%20cursor", `/inbox?requires=${encodeURIComponent("a\nb")}`]) {
      expect(await http.call("GET", bad, { user: "mia" }), bad).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
    }
    for (const id of ["__proto__", "constructor", "dfr:1:no-such-run"]) {
      const missing = await http.call("GET", `/inbox/${encodeURIComponent(id)}`, { user: "mia" });
      expect(missing.status, id).toBe(404);
      expect(missing.body, id).toContain("<h2>No such request</h2>");
      expect((await http.call("POST", `/inbox/${encodeURIComponent(id)}`, { user: "mia", raw: form([["call.0.decision", "approve"]]), headers: { "content-type": "application/x-www-form-urlencoded", ...ours } })).status, id).toBe(404);
    }
    await same();

    // Nothing was spent: the decision that fits still goes through, once.
    const ok = await post(form([["shown", shown], ["call.0.decision", "approve"]]));
    expect(ok.status).toBe(200);
    expect(ok.body).toContain("The run continued and completed.");
    expect(ranIn(run.runId)).toEqual([{ tool: "sendPayout", input: { amount: 120, to: "acme" } }]);
    const again = await post(form([["shown", shown], ["call.0.decision", "reject"]]));
    expect(again.body).toContain("Already answered");
    expect(ranIn(run.runId)).toHaveLength(1);
  });

  it("shows a withdrawn or run-out request as such, and a ctx.defer() deferral as answered through its own link, deciding none", async () => {
    const cancelled = await parkedRun();
    await agents.cancel({ runId: cancelled.runId, reason: "customer left" });
    const path = `/inbox/${encodeURIComponent(cancelled.approvalId)}`;
    const withdrawn = await http.call("GET", path, { user: "mia" });
    expect(withdrawn.status).toBe(409);
    expect(withdrawn.body).toContain("This request was withdrawn");
    expect(withdrawn.body).not.toContain("<form");
    const late = await http.call("POST", path, { user: "mia", raw: "call.0.decision=approve", headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(http.url).origin } });
    expect(late.status).toBe(409);
    expect(ranIn(cancelled.runId)).toEqual([]);

    const expired = await parkedRun({ name: "quickPayout", arguments: { amount: 1 } });
    // The run goes on without the calls; the request stays readable as expired.
    expect(await agents.result({ runId: expired.runId })).toMatchObject({ status: "completed", text: "paid" });
    const tooLate = await http.call("GET", `/inbox/${encodeURIComponent(expired.approvalId)}`, { user: "mia" });
    expect(tooLate.status).toBe(410);
    expect(tooLate.body).toContain("<h2>The time to decide ran out</h2>");
    expect(tooLate.body).not.toContain("<form");
    expect(ranIn(expired.runId)).toEqual([]);

    const runId = uid("inbox-plain");
    h.model.script(runId, [{ toolCalls: [{ name: "askManager", arguments: {} }] }, { text: "asked" }]);
    const ack = await agents.run(payouts, { prompt: runId, runId });
    if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${JSON.stringify(ack)}`);
    const plain = `/inbox/${encodeURIComponent(ack.deferralId)}`;
    const shown = await http.call("GET", plain, { user: "mia" });
    expect(shown.status).toBe(200);
    expect(shown.body).toContain("answered through the link its tool sent");
    expect(shown.body).not.toContain("<form");
    const posted = await http.call("POST", plain, { user: "mia", raw: "payload=%7B%7D", headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(http.url).origin } });
    expect(posted.status).toBe(409);
    expect((await agents.deferrals.get({ deferralId: ack.deferralId })).status).toBe("deferred");
  });
});
