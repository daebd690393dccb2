/**
 * The console in Chromium: runs and threads listed from visibility, one opened as its
 * conversation beside a timeline read from its history, and its actions (decide through the
 * inbox, cancel, send) taken as the signed-in caller through the clients' `authorize` hooks.
 */
import { randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { aesGcmCodec, defineAgent, defineTool, type AgentClient, type AuthorizeHook, type JsonObject, type Principal, type ThreadsClient } from "../src/index.js";
import { createAgentHttpHandler } from "../src/http.js";
import { ARTIFACTS, consoleStack, type ConsoleStack } from "./console-support.js";
import { encryptedWorker, storedBytes } from "./codec-support.js";
import { gatedFixtures } from "./gated-fixtures.js";
import { SECRET, uid, type Harness } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";

/** Screenshots for a person to look at; git-ignored. */

const { ranIn, payouts, files } = gatedFixtures("console");
const lookup = defineTool({ name: "lookup", description: "Look something up", input: z.object({ q: z.string() }), handler: ({ q }) => `found ${q}` });
/** Walks as long as the model asks: a long run continues as new on the way. */
const walker = defineAgent({ id: "console-walker", model: "gpt-4.1-mini", system: "You walk.", tools: [lookup], maxTurns: 200 });
/** One model call only: asking for a tool makes the run fail with AI1004 once the tool answered. */
const once = defineAgent({ id: "console-once", model: "gpt-4.1-mini", system: "You look up.", tools: [lookup], maxTurns: 1 });

/** `bench cost`'s approval run (bench/cost.ts): look up, ask a person (a deferral), pay, answer. */
const costTokens = new Map<string, string>();
const account = defineTool({ name: "lookupAccount", description: "Looks an account up", input: z.object({ account: z.string() }), handler: () => "acme: 250 due" });
const pay = defineTool({ name: "pay", description: "Pays", input: z.object({ amount: z.number() }), handler: ({ amount }) => `paid ${amount}` });
const askApproval = defineTool({
  name: "askApproval",
  description: "Ask a human to approve a payout",
  input: z.object({ amount: z.number() }),
  handler: async (_input, ctx) => {
    costTokens.set(ctx.runId, ctx.deferral.token);
    return ctx.defer({ schema: z.object({ approved: z.boolean() }) });
  },
});
const costed = defineAgent({ id: "console-cost", model: "gpt-4.1-mini", system: "You look the account up, ask a human to approve the payout, pay it, then answer.", tools: [account, askApproval, pay], maxTurns: 6 });

/** mia sees and decides everything; ian may read only what `ianReads` lists and cancel nothing; bob is refused every read. */
const PEOPLE: Record<string, Principal> = {
  mia: { id: "mia", roles: ["payouts:approve", "files:delete"] },
  ian: { id: "ian", roles: [] },
  bob: { id: "bob", roles: [] },
};
const ianReads = new Set<string>();
const holds = (meta: JsonObject, principal: Principal | undefined) =>
  ((meta.requires as string[] | undefined) ?? []).every((role) => ((principal?.roles as string[] | undefined) ?? []).includes(role));
const authorize: AuthorizeHook = (req) => {
  const id = req.runId ?? req.threadId;
  if (req.principal?.id === "bob") return !["run.state", "thread.list", "thread.messages", "thread.get", "deferral.list", "deferral.get"].includes(req.operation);
  if (req.principal?.id === "ian") {
    if (req.operation === "run.cancel" || req.operation === "thread.send") return false;
    if (["run.state", "thread.list", "thread.messages"].includes(req.operation)) return id !== undefined && ianReads.has(id);
  }
  if (req.operation === "resume") return holds(req.deferral.meta, req.principal);
  return true;
};

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;
let http: HttpServer;
let browser: Browser;

let stack: ConsoleStack | undefined;

beforeAll(async () => {
  // A short interval so a page follows its run soon; each ask is one read of the newest history event.
  stack = await consoleStack([payouts, files, once, walker, costed], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize, threads: { agent: files } } }, { basePath: "/agents", console: { refreshInterval: "200ms" }, inboxPage: { refreshInterval: 0 }, authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""] });
  ({ h, agents, threads, http, browser } = stack);
});
afterAll(() => stack?.close());

async function parkedRun() {
  const runId = uid("console-run");
  h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 120, to: "acme" } }] }, { text: "paid 120 to acme" }]);
  const ack = await agents.run(payouts, { prompt: runId, runId, principal: { id: "clerk" } });
  if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${JSON.stringify(ack)}`);
  return { runId, approvalId: ack.deferralId };
}

async function as(user: string, width = 1280): Promise<Page> {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-user": user }, viewport: { width, height: 900 } });
  return context.newPage();
}

/** Reloads `path` until `ready` holds: visibility trails writes by a moment. */
async function openWhen(page: Page, url: string, ready: () => Promise<boolean>): Promise<void> {
  await page.goto(url);
  await vi.waitFor(
    async () => {
      if (await ready()) return;
      await page.reload();
      throw new Error(`not yet: ${url}`);
    },
    { timeout: 20_000, interval: 100 },
  );
}

const row = (page: Page, id: string) => page.locator(`tr.row[data-id="${id}"]`);
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe("the console in a browser", () => {
  it("lists a parked run as waiting, shows its conversation and pending call, and approving it from the console finishes it", async () => {
    const run = await parkedRun();
    const page = await as("mia");
    // Filtered to what waits, from the form (by keyboard: labelled controls, a submit button).
    await page.goto(`${http.url}/console`);
    await page.getByLabel("Status").selectOption("waiting");
    await page.getByRole("button", { name: "Filter" }).press("Enter");
    await page.waitForURL(/status=waiting/);
    await openWhen(page, page.url(), async () => (await row(page, run.runId).count()) === 1);
    const listed = row(page, run.runId);
    expect(await listed.getAttribute("data-status")).toBe("waiting");
    expect(await listed.textContent()).toMatch(/waiting on an approval/);
    expect(await listed.textContent()).toContain(payouts.id);
    expect(await listed.textContent()).toContain("clerk");
    const headers = (await page.goto(page.url()))!.headers();
    expect(headers["content-security-policy"]).toMatch(/default-src 'none'/);
    expect(headers["cache-control"]).toBe("no-store");
    await page.screenshot({ path: `${ARTIFACTS}list.png`, fullPage: true });

    await Promise.all([page.waitForURL(/\/console\/runs\//), row(page, run.runId).getByRole("link").click()]);
    const transcript = page.getByRole("region", { name: "Conversation" });
    const timeline = page.getByRole("region", { name: "Timeline" });
    expect(await transcript.textContent()).toContain(run.runId);
    expect(await transcript.textContent()).toMatch(/Calls sendPayout\s+\{"amount":120,"to":"acme"\}/);
    expect(await timeline.textContent()).toMatch(/Model call gpt-4\.1-mini · .* · \d+ tokens in, \d+ out · asks for sendPayout · 1 call\(s\) need approval/);
    expect(await page.textContent("#status")).toBe("running");
    await page.screenshot({ path: `${ARTIFACTS}run-waiting.png`, fullPage: true });

    // Deciding is the inbox's form, one link away, as the same signed-in person.
    await Promise.all([page.waitForURL(/\/inbox\//), page.getByRole("link", { name: "Open the request to decide it" }).click()]);
    await page.getByRole("group", { name: /^Call 1 of 1: sendPayout/ }).getByLabel("Approve", { exact: true }).check();
    await page.getByRole("button", { name: "Submit decisions" }).click();
    await page.waitForSelector(".state-outcome");
    expect(ranIn(run.runId)).toEqual([{ tool: "sendPayout", input: { amount: 120, to: "acme" } }]);

    await page.goto(`${http.url}/console/runs/${encodeURIComponent(run.runId)}`);
    expect(await page.textContent("#status")).toBe("completed");
    expect(await transcript.textContent()).toContain("paid 120 to acme");
    expect(await transcript.textContent()).toContain("sent 120 to acme");
    expect(await timeline.textContent()).toMatch(/Decided by mia: approved/);
    expect(await timeline.textContent()).toMatch(/Tool sendPayout/);
    expect(await timeline.textContent()).toMatch(/Ended: completed/);
    await page.screenshot({ path: `${ARTIFACTS}run-completed.png`, fullPage: true });
    await page.context().close();
  });

  it("shows a failed run's code, and a run cancelled from the console with AI1005", async () => {
    const failedId = uid("console-failed");
    h.model.script(failedId, [{ toolCalls: [{ name: "lookup", arguments: { q: "x" } }] }]);
    await expect(agents.run(once, { prompt: failedId, runId: failedId })).rejects.toMatchObject({ code: "AI1004" });
    const page = await as("mia", 390);
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(failedId)}`);
    expect(await page.textContent("#status")).toBe("failed");
    expect(await page.getByRole("alert").textContent()).toContain("AI1004");
    expect(await page.getByRole("region", { name: "Timeline" }).textContent()).toMatch(/Tool lookup/);
    expect(await fitsWidth(page)).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}run-failed-390.png`, fullPage: true });

    const run = await parkedRun();
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(run.runId)}`);
    await page.getByRole("button", { name: "Cancel this run" }).click();
    await page.waitForSelector(".notice-done");
    await expect(agents.result({ runId: run.runId })).rejects.toMatchObject({ code: "AI1005" });
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(run.runId)}`);
    expect(await page.textContent("#status")).toBe("cancelled");
    expect(await page.getByRole("alert").textContent()).toContain("AI1005");
    expect(ranIn(run.runId)).toEqual([]);
    await page.context().close();
  });

  it("shows a thread's turns and sends it a message as the signed-in person", async () => {
    const threadId = uid("console-thread");
    // The model's text is shown as text: markup in it is escaped, never parsed.
    // The third answer waits for the test: the page that answers the send is shown before it exists.
    const third = h.model.hold();
    h.model.script(threadId, [{ text: "first answer <b>bold</b><script>window.pwned = 1</script>" }, { text: "second answer" }, { text: "third answer", hold: third }]);
    await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    await threads.settled({ threadId });
    await threads.sendMessage({ threadId, prompt: "and again" });
    await vi.waitFor(async () => expect((await threads.listMessages({ threadId })).messages.map((m) => m.content)).toContain("second answer"), { timeout: 20_000, interval: 50 });

    const page = await as("mia", 390);
    await openWhen(page, `${http.url}/console?kind=thread`, async () => (await row(page, threadId).count()) === 1);
    expect(await fitsWidth(page)).toBe(true);
    await Promise.all([page.waitForURL(/\/console\/threads\//), row(page, threadId).getByRole("link").click()]);
    const transcript = page.getByRole("region", { name: "Conversation" });
    const text = await transcript.textContent();
    expect(text).toMatch(new RegExp(`${threadId}[\\s\\S]*first answer[\\s\\S]*and again[\\s\\S]*second answer`));
    expect(text).toContain("<b>bold</b><script>window.pwned = 1</script>");
    expect(await transcript.locator("b, script").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await fitsWidth(page)).toBe(true);

    await page.getByLabel("Send a message").fill("one more");
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForSelector(".notice-done");
    expect(await transcript.textContent()).not.toContain("third answer");
    third.release();
    // The page follows the turn by itself (no reload): the answer appears when the history has it.
    await transcript.getByText("third answer").waitFor({ timeout: 20_000 });
    expect(await transcript.textContent()).toMatch(/one more[\s\S]*third answer/);
    expect(await page.textContent("#console-live-status")).toContain("Updated at");
    expect(await page.locator("script:not([nonce])").count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}thread-390.png`, fullPage: true });
    await page.context().close();
  });
});

describe("what it cost", () => {
  it("shows bench cost's approval run at the 13 billed actions docs/cost.md gives, with tokens and actions per turn", async () => {
    const runId = uid("console-cost");
    const usage = { promptTokens: 120, completionTokens: 30 };
    h.model.script(runId, [
      { toolCalls: [{ name: "lookupAccount", arguments: { account: "acme" } }], usage },
      { toolCalls: [{ name: "askApproval", arguments: { amount: 250 } }], usage },
      { toolCalls: [{ name: "pay", arguments: { amount: 250 } }], usage },
      { text: "Paid 250.", usage },
    ]);
    const ack = await agents.run(costed, { prompt: runId, runId });
    expect(ack.status).toBe("deferred");
    const page = await as("mia");
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(runId)}`);
    const parked = Number(await page.textContent("#billed-actions"));
    const resumed = await agents.resume({ token: costTokens.get(runId)!, payload: { approved: true } });
    expect(resumed.outcome.status).toBe("completed");
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(runId)}`);
    // docs/cost.md, "An approval run": 13, measured by `COST_ONLY=approval npm run bench -- cost`.
    expect(await page.textContent("#billed-actions")).toBe("13");
    // The resume is one accepted update, and the turn after it pays its own model call.
    expect(parked).toBeLessThan(13);
    const cost = page.getByRole("region", { name: "What it cost" });
    expect(await cost.textContent()).toMatch(/13 billed actions: 1 start, 7 activities scheduled, 3 search-attribute and memo upserts, 1 timers, 1 updates accepted\./);
    expect(await cost.textContent()).toMatch(/480 tokens in, 120 out/);
    expect(await cost.textContent()).toMatch(/Queries .* are not counted here/);
    const turns = page.getByRole("table", { name: /Per turn/ }).locator("tbody tr");
    expect(await turns.count()).toBe(4);
    expect(await turns.nth(1).locator("td").allTextContents()).toEqual(["120", "30", expect.stringMatching(/ms|s$/), expect.stringMatching(/ms|s$/), expect.stringMatching(/^\d+$/)]);
    const perTurn = (await turns.locator("td:last-child").allTextContents()).map(Number);
    expect(perTurn.reduce((a, b) => a + b, 0)).toBe(13);
    await page.screenshot({ path: `${ARTIFACTS}run-cost.png`, fullPage: true });
    await page.context().close();
  });
});

describe("a thread waiting on an approval", () => {
  it("is listed as waiting, and its page links to the inbox, where deciding lets the turn finish", async () => {
    const threadId = uid("console-gated");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "/tmp/old" } }] }, { text: "deleted it" }]);
    await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const page = await as("mia");
    await openWhen(page, `${http.url}/console?status=waiting&kind=thread`, async () => (await row(page, threadId).count()) === 1);
    expect(await row(page, threadId).textContent()).toMatch(/waiting on an approval/);
    await Promise.all([page.waitForURL(/\/console\/threads\//), row(page, threadId).getByRole("link").click()]);
    expect(await page.getByRole("region", { name: "Conversation" }).textContent()).toMatch(/Calls deleteFile\s+\{"path":"\/tmp\/old"\}/);
    await Promise.all([page.waitForURL(/\/inbox\//), page.getByRole("link", { name: "Open the request to decide it" }).click()]);
    await page.getByRole("group", { name: /^Call 1 of 1: deleteFile/ }).getByLabel("Approve", { exact: true }).check();
    await page.getByRole("button", { name: "Submit decisions" }).click();
    await page.waitForSelector(".state-outcome");
    await openWhen(page, `${http.url}/console/threads/${encodeURIComponent(threadId)}`, async () => ((await page.textContent("main")) ?? "").includes("deleted it"));
    expect(await page.getByRole("region", { name: "Timeline" }).textContent()).toMatch(/Decided by mia: approved/);
    expect(ranIn(threadId)).toEqual([{ tool: "deleteFile", input: { path: "/tmp/old" } }]);
    await page.context().close();
  });
});

describe("what the console reads", () => {
  it("shows a run that continued as new whole: every execution's messages in order, and the boundary in the timeline", async () => {
    const runId = uid("console-walk");
    h.model.respond(runId, (_req, turn) => (turn < 30 ? { toolCalls: [{ name: "lookup", arguments: { q: `step ${turn}` } }] } : { text: "walked all the way" }));
    await agents.run(walker, { prompt: runId, runId, maxHistoryEvents: 100 });
    const page = await as("mia");
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(runId)}`);
    expect(await page.textContent("#status")).toBe("completed");
    const timeline = (await page.getByRole("region", { name: "Timeline" }).textContent()) ?? "";
    expect(timeline).toContain("Continued as new");
    expect(await page.textContent("dl.summary")).toMatch(/Executions\s*\d+ \(continued as new/);
    const results = await page.locator("li.message.tool pre").allTextContents();
    expect(results).toEqual(Array.from({ length: 30 }, (_, i) => `found step ${i}`));
    const messages = await page.locator("li.message").count();
    expect(messages).toBe(1 + 30 * 2 + 1);
    expect(await page.locator("li.event.model").count()).toBe(31);
    await page.context().close();
  });

  it("reads nothing from workers: with every worker of the queue stopped, the list and a parked run's page still show it (no query)", async () => {
    const alone = await h.worker([payouts], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
    const runId = uid("console-alone");
    h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 7, to: "zed" } }] }]);
    const ack = await alone.agents.run(payouts, { prompt: runId, runId, principal: { id: "clerk" } });
    expect(ack.status).toBe("deferred");
    alone.worker.shutdown();
    await alone.running;
    const server = await startHttp({ agents: alone.agents, console: true, authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""] });
    try {
      await vi.waitFor(
        async () => {
          const list = await server.call("GET", "/console?status=waiting", { user: "mia" });
          expect(list.status).toBe(200);
          expect(String(list.body)).toContain(runId);
        },
        { timeout: 20_000, interval: 100 },
      );
      const detail = await server.call("GET", `/console/runs/${encodeURIComponent(runId)}`, { user: "mia" });
      expect(detail.status).toBe(200);
      expect(String(detail.body)).toMatch(/Calls <code>sendPayout<\/code> <code class="args">\{&quot;amount&quot;:7,&quot;to&quot;:&quot;zed&quot;\}/);
      expect(String(detail.body)).toContain("Open the request to decide it");
    } finally {
      await server.close();
    }
  });
});

describe("who may open the console", () => {
  it("refuses a caller with no credential (AI1049, 401) and shows nothing", async () => {
    const run = await parkedRun();
    for (const path of ["/console", `/console/runs/${encodeURIComponent(run.runId)}`]) {
      const res = await http.call("GET", path);
      expect(res.status).toBe(401);
      expect(String(res.body)).toContain("AI1049");
      expect(String(res.body)).not.toContain(run.runId.replace("console-run-", ""));
    }
  });

  it("shows a principal the hook refuses nothing: no rows, and 403 on a run's or thread's page", async () => {
    const run = await parkedRun();
    const page = await as("bob");
    // mia sees the run listed, so the list bob gets is empty because of the hook, not of visibility.
    const mia = await as("mia");
    await openWhen(mia, `${http.url}/console`, async () => (await row(mia, run.runId).count()) === 1);
    await page.goto(`${http.url}/console`);
    expect(await page.locator("tr.row").count()).toBe(0);
    const response = await page.goto(`${http.url}/console/runs/${encodeURIComponent(run.runId)}`);
    expect(response!.status()).toBe(403);
    expect(await page.textContent("main")).toContain("AI1013");
    expect(await page.textContent("main")).not.toContain("sendPayout");
    await page.context().close();
    await mia.context().close();
  });

  it("lets a reader of one thread see that thread only, and refuses the cancel it may not make, changing nothing", async () => {
    const mine = uid("console-ian");
    const other = uid("console-other");
    h.model.script(mine, [{ text: "hello ian" }]);
    h.model.script(other, [{ text: "secret for someone else" }]);
    await threads.createThread({ threadId: mine, prompt: mine });
    await threads.createThread({ threadId: other, prompt: other });
    await threads.settled({ threadId: mine });
    await threads.settled({ threadId: other });
    ianReads.add(mine);
    const page = await as("ian");
    await openWhen(page, `${http.url}/console?kind=thread`, async () => (await row(page, mine).count()) === 1);
    expect(await row(page, other).count()).toBe(0);
    const refused = await page.goto(`${http.url}/console/threads/${encodeURIComponent(other)}`);
    expect(refused!.status()).toBe(403);
    expect(await page.textContent("main")).toContain("AI1021");
    expect(await page.textContent("main")).not.toContain("secret for someone else");

    // ian may read a parked run, not cancel it: the page says so and the run still waits.
    const run = await parkedRun();
    ianReads.add(run.runId);
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(run.runId)}`);
    await page.getByRole("button", { name: "Cancel this run" }).click();
    await page.waitForSelector(".notice-refused");
    expect(await page.textContent(".notice-refused")).toContain("AI1013");
    expect((await agents.deferrals.get({ deferralId: run.approvalId })).status).toBe("deferred");
    expect(await page.textContent("#status")).toBe("running");
    await page.context().close();
  });
});

describe("hostile requests to the console", () => {
  it("refuses malformed ids, unknown filters and oversized query strings with AI1040, and a cross-site cancel with AI1043, changing nothing", async () => {
    const run = await parkedRun();
    const cases: Array<[string, string]> = [
      ["a control character in the id", `/console/runs/${encodeURIComponent("a\u0001b")}`],
      ["an id over 1,000 characters", `/console/runs/${"x".repeat(1001)}`],
      ["an unknown filter", "/console?owner=mia"],
      ["an unknown status", "/console?status=sleeping"],
      ["an oversized cursor", `/console?cursor=${"A".repeat(5000)}`],
      ["a cursor that is no page token", "/console?cursor=%2F%2F"],
    ];
    for (const [name, path] of cases) {
      const res = await http.call("GET", path, { user: "mia" });
      expect(res.status, name).toBe(400);
      expect((res.body as { error: { code: string } }).error.code, name).toBe("AI1040");
    }
    // A filter is a value, never part of the visibility query: quotes and backslashes match no agent.
    for (const agent of ['x" OR AgentId != "y', "x\\", `${payouts.id}' OR '1'='1`]) {
      const res = await http.call("GET", `/console?${new URLSearchParams({ agent })}`, { user: "mia" });
      expect(res.status, agent).toBe(200);
      expect(String(res.body), agent).not.toContain('class="row"');
    }
    const unknown = await http.call("GET", `/console/runs/${encodeURIComponent(uid("nobody"))}`, { user: "mia" });
    expect(unknown.status).toBe(404);
    expect(String(unknown.body)).toContain("AI1010");
    // A thread is no run: its id under /runs is not found (and the other way round).
    const cross = await http.call("GET", `/console/threads/${encodeURIComponent(run.runId)}`, { user: "mia" });
    expect(cross.status).toBe(404);

    const forged = await http.call("POST", `/console/runs/${encodeURIComponent(run.runId)}/cancel`, {
      user: "mia",
      raw: "",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://elsewhere.example" },
    });
    expect(forged.status).toBe(403);
    expect((forged.body as { error: { code: string } }).error.code).toBe("AI1043");
    const extra = await http.call("POST", `/console/runs/${encodeURIComponent(run.runId)}/cancel`, { user: "mia", raw: "really=yes", headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(http.url).origin } });
    expect(extra.status).toBe(400);
    expect((await agents.deferrals.get({ deferralId: run.approvalId })).status).toBe("deferred");
  });

  it("refuses a page size it cannot serve when the handler is made (AI1001)", () => {
    for (const pageSize of [0, 201, 1.5]) {
      expect(() => createAgentHttpHandler({ agents, authenticate: () => undefined, console: { pageSize } })).toThrow(expect.objectContaining({ code: "AI1001" }));
    }
  });

  it("carries no script with refreshInterval: 0", async () => {
    const run = await parkedRun();
    const still = await startHttp({ agents, console: { refreshInterval: 0 }, authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""] });
    try {
      const res = await still.call("GET", `/console/runs/${encodeURIComponent(run.runId)}`, { user: "mia" });
      expect(res.status).toBe(200);
      expect(String(res.body)).toContain("sendPayout");
      expect(String(res.body)).not.toContain("<script");
      expect(res.headers.get("content-security-policy")).not.toMatch(/script-src/);
    } finally {
      await still.close();
    }
  });

  it("is off unless asked for", async () => {
    const plain = await startHttp({ agents, authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""] });
    try {
      const res = await plain.call("GET", "/console", { user: "mia" });
      expect(res.status).toBe(404);
      expect((res.body as { error: { code: string } }).error.code).toBe("AI1042");
    } finally {
      await plain.close();
    }
  });
});

describe("the console with an encrypting codec", () => {
  it("shows the conversation decoded through the front door's codec, which Temporal stores encrypted", async () => {
    const codec = aesGcmCodec({ keys: { a: randomBytes(32) }, current: "a" });
    const { agents: sealed } = await encryptedWorker(h, [once], codec);
    const server = await startHttp({ agents: sealed, console: true, authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""] });
    try {
      const runId = uid("console-sealed");
      const prompt = `${runId} private words`;
      h.model.script(prompt, [{ text: "the sealed answer" }]);
      await sealed.run(once, { prompt, runId });
      expect(await storedBytes(h, runId)).not.toContain("the sealed answer");
      const res = await server.call("GET", `/console/runs/${encodeURIComponent(runId)}`, { user: "mia" });
      expect(res.status).toBe(200);
      expect(String(res.body)).toContain("the sealed answer");
      expect(String(res.body)).toContain("private words");
    } finally {
      await server.close();
    }
  });
});
