/**
 * The console's live panel in Chromium: a running thread's or run's page shows the answer
 * while it is written and the latest progress of each running tool call, read from the
 * stream the SDK already has through the console's session and `authorize`; the stored
 * result replaces them when the turn ends. A viewer costs no billed action (counted by the
 * server's own `action` counter, on a server of this file's own). Who may not read the
 * stream gets a typed refusal and nothing of it.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient, type AuthorizeHook, type Principal } from "../src/index.js";
import type { AgentStack } from "./agent-stack.js";
import { launchChromium } from "./chromium.js";
import { countingStack, type ActionCounter } from "./counting-stack.js";
import { SECRET, uid } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";

const WAIT = { timeout: 30_000 };

/** Latches per run or thread, in the order its tool calls reach them; the test releases each. */
const latches = new Map<string, Array<{ release: () => void; wait: Promise<void> }>>();
const calls = new Map<string, number>();
function latch(id: string, n: number) {
  const list = latches.get(id) ?? [];
  while (list.length <= n) {
    let release!: () => void;
    const wait = new Promise<void>((resolve) => (release = resolve));
    list.push({ release, wait });
  }
  latches.set(id, list);
  return list[n]!;
}
const crawl = defineTool({
  name: "crawl",
  description: "Crawls pages",
  input: z.object({ pages: z.number() }),
  async handler({ pages }, ctx) {
    const n = calls.get(ctx.runId) ?? 0;
    calls.set(ctx.runId, n + 1);
    ctx.progress(`page 3 of ${pages}`);
    await latch(ctx.runId, n).wait;
    return `crawled ${pages} pages`;
  },
});
const crawler = defineAgent({ id: "console-live", model: "gpt-4.1-mini", system: "You crawl.", tools: [crawl], maxTurns: 6 });
const delegating = defineAgent({ id: "console-live-lead", model: "gpt-4.1-mini", system: "You delegate.", agents: [crawler], maxTurns: 4 });

/** mia reads everything; ian may open pages but not follow streams; bob may read nothing. */
const PEOPLE: Record<string, Principal> = { mia: { id: "mia" }, ian: { id: "ian" }, bob: { id: "bob" } };
const authorize: AuthorizeHook = (req) => {
  if (req.principal?.id === "bob") return !["run.state", "thread.messages", "thread.stream", "thread.get"].includes(req.operation);
  if (req.principal?.id === "ian") return req.operation !== "thread.stream";
  return true;
};

const holds: Array<{ release(): void }> = [];
let stack: AgentStack;
let counter: ActionCounter;
let agents: AgentClient;
let http: HttpServer;
let browser: Browser;
countingStack((s, c) => ((stack = s), (counter = c)));

beforeAll(async () => {
  browser = await launchChromium();
  ({ agents } = await stack.worker([crawler, delegating], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize, threads: { agent: crawler } } }));
  http = await startHttp({ agents, console: { refreshInterval: "200ms" }, authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""] });
});
afterAll(async () => {
  // A test that failed half-way leaves nothing waiting on the test: the workers can stop.
  for (const list of latches.values()) for (const l of list) l.release();
  for (const hold of holds) hold.release();
  await browser?.close();
  await http?.close();
});

async function as(user: string): Promise<Page> {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-user": user }, viewport: { width: 1280, height: 900 } });
  return context.newPage();
}
const panel = (page: Page) => page.getByRole("region", { name: "Live" });
const transcript = (page: Page) => page.getByRole("region", { name: "Conversation" });

describe("the console's live panel", () => {
  it("shows a thread's tool progress and the answer being written, from its start to a viewer who joins mid-answer, then the stored answer; watching costs 0 billed actions", async () => {
    const threadId = uid("live-thread");
    const answer = "The crawl found ten pages, all of them fine.";
    const held = stack.model.hold();
    holds.push(held);
    stack.model.script(threadId, [
      { toolCalls: [{ name: "crawl", arguments: { pages: 5 } }] },
      { text: "first crawl done" },
      { toolCalls: [{ name: "crawl", arguments: { pages: 6 } }] },
      { text: "second crawl done" },
      { toolCalls: [{ name: "crawl", arguments: { pages: 10 } }] },
      { text: answer, hold: held, holdAfterChars: 16 },
    ]);
    latch(threadId, 0).release();
    latch(threadId, 1).release();
    await agents.threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    await agents.threads.settled({ threadId });

    // The same turn with nobody watching, then with two people watching it on the console.
    const unwatched = await counter.measure(async () => {
      await agents.threads.sendMessage({ threadId, prompt: "crawl again" });
      await agents.threads.settled({ threadId });
    });
    const first = await as("mia");
    const watched = await counter.measure(async () => {
      await first.goto(`${http.url}/console/threads/${encodeURIComponent(threadId)}`);
      await transcript(first).getByText("second crawl done").waitFor(WAIT);
      await agents.threads.sendMessage({ threadId, prompt: "and once more" });
      // The tool reports, then waits on the test: its progress is on the page before its result exists.
      await panel(first).locator("li.progress", { hasText: "page 3 of 10" }).waitFor(WAIT);
      expect(await panel(first).locator("li.progress code").textContent()).toBe("crawl");
      expect(await transcript(first).textContent()).not.toContain("crawled 10 pages");
      latch(threadId, 2).release();
      // The model writes 16 characters (two chunks), then waits: the panel shows them, and only them.
      await held.reached;
      await panel(first).getByText("The crawl found", { exact: true }).waitFor(WAIT);
      expect(await panel(first).locator("li.progress").count()).toBe(0);
      // A second viewer opens the page now: the answer is there from its start.
      const second = await as("mia");
      await second.goto(`${http.url}/console/threads/${encodeURIComponent(threadId)}`);
      await panel(second).getByText("The crawl found", { exact: true }).waitFor(WAIT);
      expect(await transcript(second).textContent()).not.toContain(answer);
      held.release();
      // The turn ends: both pages show the stored answer, and the preview is gone.
      for (const page of [first, second]) {
        await transcript(page).getByText(answer).waitFor(WAIT);
        await page.locator("#console-stream-answer").waitFor({ state: "hidden", ...WAIT });
      }
      expect(await first.locator("script:not([nonce])").count()).toBe(0);
      await second.context().close();
      await agents.threads.settled({ threadId });
    });
    expect(watched.total).toBe(unwatched.total);
    expect(watched.byOperation).toEqual(unwatched.byOperation);
    await first.context().close();
  });

  it("shows a run's tool progress while it runs, and its stored result once it ends", async () => {
    const runId = uid("live-run");
    stack.model.script(runId, [{ toolCalls: [{ name: "crawl", arguments: { pages: 4 } }] }, { text: "the run crawled 4 pages" }]);
    const page = await as("mia");
    const run = await agents.start(crawler, { prompt: runId, runId, principal: { id: "sam" } });
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(runId)}`);
    await panel(page).locator("li.progress", { hasText: "page 3 of 4" }).waitFor(WAIT);
    latch(runId, 0).release();
    expect(await run.settled()).toMatchObject({ status: "completed" });
    await transcript(page).getByText("the run crawled 4 pages").waitFor(WAIT);
    expect(await panel(page).locator("li.progress").count()).toBe(0);
    await page.context().close();
  });
  it("shows a thread's sub-agent's own tool's progress, marked with the sub-agent", async () => {
    const threadId = uid("live-sub");
    const child = `${threadId}/agent/d1`;
    stack.model.script(threadId, [{ toolCalls: [{ id: "d1", name: "console-live", arguments: { prompt: `${threadId} crawl` } }] }, { text: "the helper crawled" }]);
    stack.model.script(`${threadId} crawl`, [{ toolCalls: [{ name: "crawl", arguments: { pages: 8 } }] }, { text: "crawled 8" }]);
    await agents.threads.createThread({ threadId, agent: delegating, principal: { id: "sam" } });
    const page = await as("mia");
    await page.goto(`${http.url}/console/threads/${encodeURIComponent(threadId)}`);
    await agents.threads.sendMessage({ threadId, prompt: threadId });
    const shown = panel(page).locator("li.progress", { hasText: "console-live › crawl: page 3 of 8" });
    await shown.waitFor(WAIT);
    // Shown as the thread's call of the sub-agent.
    expect(await shown.locator("code").textContent()).toBe("console-live");
    latch(child, 0).release();
    await transcript(page).getByText("the helper crawled").waitFor(WAIT);
    expect(await panel(page).locator("li.progress").count()).toBe(0);
    await page.context().close();
  });
});

describe("who may watch", () => {
  it("refuses a reader the hook does not let follow the stream (typed, in the page and on the route), another site and a caller with no credential; the thread goes on", async () => {
    const threadId = uid("live-refused");
    stack.model.script(threadId, [{ toolCalls: [{ name: "crawl", arguments: { pages: 2 } }] }, { text: "crawled for mia" }]);
    await agents.threads.createThread({ threadId, principal: { id: "sam" } });
    await agents.threads.sendMessage({ threadId, prompt: threadId });

    // ian may open the page, not its stream: the panel says why, with the code, and shows nothing of it.
    const ian = await as("ian");
    await ian.goto(`${http.url}/console/threads/${encodeURIComponent(threadId)}`);
    await panel(ian).getByText(/Live view refused: .*\(AI1021\)/).waitFor(WAIT);
    const live = `/console/threads/${encodeURIComponent(threadId)}/live`;
    for (const [user, headers, status, code] of [
      ["ian", {}, 403, "AI1021"],
      ["bob", {}, 403, "AI1021"],
      [undefined, {}, 401, "AI1049"],
      ["mia", { "sec-fetch-site": "cross-site", origin: "https://evil.example" }, 403, "AI1043"],
    ] as const) {
      const res = await http.call("GET", live, { ...(user ? { user } : {}), headers });
      // The route answers JSON; the console's sign-in check, a page.
      expect({ user, status: res.status, code: res.body?.error?.code ?? /AI\d{4}/.exec(String(res.body))?.[0] }).toEqual({ user, status, code });
      expect(res.headers.get("content-type")).not.toMatch(/event-stream/);
    }
    // Hostile addresses: a malformed event id or thread id is AI1040, a thread that is not there AI1020; nothing streams.
    for (const [path, headers, status, code] of [
      [live, { "last-event-id": "1; DROP" }, 400, "AI1040"],
      [`/console/threads/${"x".repeat(5000)}/live`, {}, 400, "AI1040"],
      [`/console/threads/${encodeURIComponent(uid("no-such-thread"))}/live`, {}, 404, "AI1020"],
    ] as const) {
      const res = await http.call("GET", path, { user: "mia", headers });
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
    }
    // The progress was there all along (mia sees it), and the thread answers as if nobody had asked.
    const mia = await as("mia");
    await mia.goto(`${http.url}/console/threads/${encodeURIComponent(threadId)}`);
    await panel(mia).locator("li.progress", { hasText: "page 3 of 2" }).waitFor(WAIT);
    expect(await ian.locator("li.progress").count()).toBe(0);
    latch(threadId, 0).release();
    await agents.threads.settled({ threadId });
    expect((await agents.threads.listMessages({ threadId })).messages.at(-1)?.content).toBe("crawled for mia");
    await ian.context().close();
    await mia.context().close();
  });
});
