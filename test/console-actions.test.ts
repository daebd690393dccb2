/**
 * The console's actions beyond cancel and send, in Chromium: stop and resume a thread's turn,
 * deny the request a run or thread waits on, each as the signed-in caller through the clients'
 * `authorize` hook; a refusal shows its code and changes nothing.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentClient, AuthorizeHook, Principal, ThreadsClient } from "../src/index.js";
import { ARTIFACTS, consoleStack, pageAs, reloadUntil, type ConsoleStack } from "./console-support.js";
import { gatedFixtures } from "./gated-fixtures.js";
import { SECRET, uid, type Harness } from "./harness.js";
import type { HttpServer } from "./http-support.js";

const { ranIn, payouts, files } = gatedFixtures("console-act");

/** mia may do everything; ian may read everything and act on nothing; bob may deny but read nothing. */
const PEOPLE: Record<string, Principal> = { mia: { id: "mia", roles: ["payouts:approve", "files:delete"] }, ian: { id: "ian", roles: [] }, bob: { id: "bob", roles: [] } };
const ACTIONS = ["run.cancel", "thread.send", "thread.stop", "thread.resume", "deferral.deny", "resume"];
const READS = ["run.state", "thread.list", "thread.messages", "thread.get", "deferral.get", "deferral.list"];
const authorize: AuthorizeHook = (req) =>
  req.principal?.id === "mia" || (req.principal?.id === "bob" ? !READS.includes(req.operation) : !ACTIONS.includes(req.operation));

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;
let http: HttpServer;
let browser: Browser;

let stack: ConsoleStack | undefined;

beforeAll(async () => {
  stack = await consoleStack([payouts, files], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize, threads: { agent: files } } }, { console: { refreshInterval: 0 }, inboxPage: { refreshInterval: 0 }, authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""] });
  ({ h, agents, threads, http, browser } = stack);
});
afterAll(() => stack?.close());

const as = (user: string): Promise<Page> => pageAs(browser, user);

/** What the model was told after a denial: the last message of its next request, per run. */
const denials = new Map<string, string>();

async function parkedRun(tool: "sendPayout" | "askManager" = "sendPayout") {
  const runId = uid("console-act-run");
  h.model.script(runId, [
    { toolCalls: [tool === "sendPayout" ? { name: "sendPayout", arguments: { amount: 120, to: "acme" } } : { name: "askManager", arguments: {} }] },
    { text: "understood, not paid", check: (req) => void denials.set(runId, JSON.stringify(req.messages.at(-1))) },
  ]);
  const ack = await agents.run(payouts, { prompt: runId, runId, principal: { id: "clerk" } });
  if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${JSON.stringify(ack)}`);
  return { runId, deferralId: ack.deferralId };
}

/** A thread whose first answer waits for the test: the turn is running until the hold is released. */
async function busyThread() {
  const threadId = uid("console-act-thread");
  const hold = h.model.hold();
  h.model.script(threadId, [{ text: "the answer", hold }]);
  await threads.createThread({ threadId, prompt: threadId });
  await hold.reached;
  return { threadId, hold };
}

const runPage = (id: string) => `${http.url}/console/runs/${encodeURIComponent(id)}`;
const threadPage = (id: string) => `${http.url}/console/threads/${encodeURIComponent(id)}`;

describe("stopping and resuming a thread's turn from the console", () => {
  it("stops the running turn, and resume continues it to its answer", async () => {
    const { threadId, hold } = await busyThread();
    const page = await as("mia");
    await page.goto(threadPage(threadId));
    await page.getByRole("button", { name: "Stop the turn" }).click();
    await page.waitForSelector(".notice-done");
    expect(await page.textContent(".notice-done")).toMatch(/Stopped/);
    expect((await threads.state({ threadId })).status).toBe("stopped");
    // The aborted request's hold is let go: the resumed turn asks the model again and is answered.
    hold.release();
    await page.getByRole("button", { name: "Resume the turn" }).click();
    await page.waitForSelector(".notice-done");
    expect(await page.textContent(".notice-done")).toMatch(/Resumed/);
    await threads.settled({ threadId });
    expect((await threads.listMessages({ threadId })).messages.map((m) => m.content)).toContain("the answer");
    // The timeline names both, in order: a stop is no cancel, and the resume is shown.
    await page.goto(threadPage(threadId));
    const said = (await page.locator("li.event strong").allTextContents()).filter((t) => /stop|resum|cancel/i.test(t));
    expect(said).toEqual(["Turn stopped", "Turn resumed"]);
    await page.screenshot({ path: `${ARTIFACTS}thread-resumed.png`, fullPage: true });
    await page.context().close();
  });

  it("shows why a resume with nothing to resume is refused (AI1024), and the thread stays as it was", async () => {
    const threadId = uid("console-act-idle");
    h.model.script(threadId, [{ text: "done already" }]);
    await threads.createThread({ threadId, prompt: threadId });
    await threads.settled({ threadId });
    const page = await as("mia");
    await page.goto(threadPage(threadId));
    await page.getByRole("button", { name: "Resume the turn" }).click();
    await page.waitForSelector(".notice-refused");
    expect(await page.textContent(".notice-refused code")).toBe("AI1024");
    expect((await threads.state({ threadId })).status).toBe("completed");
    await page.context().close();
  });

  it("refuses a reader the hook does not let stop (AI1021): the turn goes on and answers", async () => {
    const { threadId, hold } = await busyThread();
    const page = await as("ian");
    await page.goto(threadPage(threadId));
    await page.getByRole("button", { name: "Stop the turn" }).click();
    await page.waitForSelector(".notice-refused");
    expect(await page.textContent(".notice-refused")).toContain("AI1021");
    expect((await threads.state({ threadId })).status).toBe("streaming");
    hold.release();
    await threads.settled({ threadId });
    expect((await threads.listMessages({ threadId })).messages.map((m) => m.content)).toContain("the answer");
    await page.context().close();
  });
});

describe("denying a waiting request from the console", () => {
  it("denies a parked run's approval with a reason: nothing runs, the model reads why, the run ends", async () => {
    const run = await parkedRun();
    const page = await as("mia");
    await page.goto(runPage(run.runId));
    await page.getByLabel(/Reason to deny/).fill("duplicate invoice");
    await page.getByRole("button", { name: "Deny the request" }).click();
    await page.waitForSelector(".notice-done");
    const record = await agents.deferrals.get({ deferralId: run.deferralId });
    expect(record.status).toBe("denied");
    expect(JSON.stringify(record)).toContain("duplicate invoice");
    const outcome = await agents.result({ runId: run.runId });
    expect(outcome).toMatchObject({ status: "completed" });
    expect(ranIn(run.runId)).toEqual([]);
    expect(denials.get(run.runId)).toContain("duplicate invoice");
    await page.screenshot({ path: `${ARTIFACTS}run-denied.png`, fullPage: true });
    await page.context().close();
  });

  it("denies a ctx.defer() deferral the same way, and the model reads the reason", async () => {
    const run = await parkedRun("askManager");
    const page = await as("mia");
    await page.goto(runPage(run.runId));
    await page.getByLabel(/Reason to deny/).fill("the manager is away");
    await page.getByRole("button", { name: "Deny the request" }).click();
    await page.waitForSelector(".notice-done");
    expect((await agents.deferrals.get({ deferralId: run.deferralId })).status).toBe("denied");
    await expect(agents.result({ runId: run.runId })).resolves.toMatchObject({ status: "completed" });
    expect(denials.get(run.runId)).toContain("the manager is away");
    await page.context().close();
  });

  it("denies a thread's approval request: the call never runs and the thread answers on", async () => {
    const threadId = uid("console-act-gated");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "/tmp/keep" } }] }, { text: "kept it", check: (req) => void denials.set(threadId, JSON.stringify(req.messages.at(-1))) }]);
    await threads.createThread({ threadId, prompt: threadId });
    const page = await as("mia");
    // The page offers the deny form once the thread waits on the request (describe says so).
    await reloadUntil(page, threadPage(threadId), async () => (await page.getByLabel(/Reason to deny/).count()) === 1, "the thread to wait on its request");
    await page.getByLabel(/Reason to deny/).fill("keep that file");
    await page.getByRole("button", { name: "Deny the request" }).click();
    await page.waitForSelector(".notice-done");
    await threads.settled({ threadId });
    expect((await threads.listMessages({ threadId })).messages.map((m) => m.content)).toContain("kept it");
    expect(denials.get(threadId)).toContain("keep that file");
    expect(ranIn(threadId)).toEqual([]);
    await page.context().close();
  });

  it("refuses a principal the hook does not let deny (AI1013), and the request still waits", async () => {
    const run = await parkedRun();
    const page = await as("ian");
    await page.goto(runPage(run.runId));
    await page.getByLabel(/Reason to deny/).fill("not mine to deny");
    await page.getByRole("button", { name: "Deny the request" }).click();
    await page.waitForSelector(".notice-refused");
    expect(await page.textContent(".notice-refused")).toContain("AI1013");
    expect((await agents.deferrals.get({ deferralId: run.deferralId })).status).toBe("deferred");
    expect(await page.textContent("#status")).toBe("running");
    await page.context().close();
  });
});

describe("hostile action requests", () => {
  const form = (body: Record<string, string>, origin = new URL("http://x").origin) => ({
    user: "mia",
    raw: new URLSearchParams(body).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
  });

  it("refuses another run's request id (RC5046), a caller who may not read the run (AI1013, whatever the id), empty and oversized reasons, unknown fields (AI1040) and a foreign origin (AI1043), changing nothing", async () => {
    const run = await parkedRun();
    const other = await parkedRun();
    const self = new URL(http.url).origin;
    const deny = `/console/runs/${encodeURIComponent(run.runId)}/deny`;
    const elsewhere = await http.call("POST", deny, form({ deferralId: other.deferralId, reason: "not this page's" }, self));
    expect(elsewhere.status).toBe(404);
    expect(String(elsewhere.body)).toContain("RC5046");
    for (const [name, body] of [
      ["an empty reason", { deferralId: run.deferralId, reason: "   " }],
      ["a reason over 2,000 characters", { deferralId: run.deferralId, reason: "x".repeat(2001) }],
      ["no request id", { reason: "why" }],
      ["a control character in the id", { deferralId: "a\u0001b", reason: "why" }],
      ["an unknown field", { deferralId: run.deferralId, reason: "why", really: "yes" }],
    ] as const) {
      const res = await http.call("POST", deny, form(body, self));
      expect(res.status, name).toBe(400);
      expect((res.body as { error: { code: string } }).error.code, name).toBe("AI1040");
    }
    // A caller who may not read the run learns nothing from a deny, right id or wrong: both are its refused read.
    for (const deferralId of [run.deferralId, other.deferralId]) {
      const blind = await http.call("POST", deny, { ...form({ deferralId, reason: "probing" }, self), user: "bob" });
      expect(blind.status).toBe(403);
      expect(String(blind.body)).toContain("AI1013");
      expect(String(blind.body)).not.toContain("sendPayout");
    }
    const forged = await http.call("POST", deny, form({ deferralId: run.deferralId, reason: "from elsewhere" }, "https://elsewhere.example"));
    expect(forged.status).toBe(403);
    expect((forged.body as { error: { code: string } }).error.code).toBe("AI1043");
    const { threadId, hold } = await busyThread();
    const stop = await http.call("POST", `/console/threads/${encodeURIComponent(threadId)}/stop`, form({}, "https://elsewhere.example"));
    expect(stop.status).toBe(403);
    const signedOut = await http.call("POST", `/console/threads/${encodeURIComponent(threadId)}/stop`, { ...form({}, self), user: "" });
    expect(signedOut.status).toBe(401);
    expect((await threads.state({ threadId })).status).toBe("streaming");
    hold.release();
    await threads.settled({ threadId });
    for (const r of [run, other]) expect((await agents.deferrals.get({ deferralId: r.deferralId })).status).toBe("deferred");
  });
});
