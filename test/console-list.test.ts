/**
 * The console's list in Chromium: search by id prefix, filters by whom a run acts for and by
 * start time, all from Temporal visibility; the list following itself while it is open; what
 * a reader of one thread and hostile queries get; the inbox's rows as the console's approvals
 * view, decided through the inbox's pages.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient, type AuthorizeHook, type Principal } from "../src/index.js";
import { ARTIFACTS, askedIn, consoleStack, deskAgent, pageAs, reloadUntil, type ConsoleStack } from "./console-support.js";
import { gatedFixtures } from "./gated-fixtures.js";
import { SECRET, uid, type Harness } from "./harness.js";
import type { HttpServer } from "./http-support.js";

const { payouts, files, ranIn } = gatedFixtures("console-list");
const lookup = defineTool({ name: "lookup", description: "Look something up", input: z.object({ q: z.string() }), handler: ({ q }) => `found ${q}` });
const plain = defineAgent({ id: "console-list-plain", model: "gpt-4.1-mini", system: "You answer.", tools: [lookup], maxTurns: 4 });
/** A thread agent whose async tool a person answers later (or never). */
const desk = deskAgent("console-list-desk");

/** mia reads everything; ian reads only what `ianReads` lists. */
const PEOPLE: Record<string, Principal> = { mia: { id: "mia", roles: [] }, ian: { id: "ian", roles: [] } };
const ianReads = new Set<string>();
const authorize: AuthorizeHook = (req) => {
  if (req.principal?.id !== "ian" || !["run.state", "thread.list", "thread.messages", "deferral.list", "deferral.get"].includes(req.operation)) return true;
  const id = req.runId ?? req.threadId;
  return id !== undefined && ianReads.has(id);
};

let h: Harness;
let agents: AgentClient;
let http: HttpServer;
let browser: Browser;

let stack: ConsoleStack | undefined;

beforeAll(async () => {
  stack = await consoleStack([payouts, files, plain, desk], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize, threads: { agent: files } } }, { console: { refreshInterval: "200ms" }, authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""] });
  ({ h, agents, http, browser } = stack);
});
afterAll(() => stack?.close());

const as = (user: string): Promise<Page> => pageAs(browser, user);

async function finishedRun(runId: string) {
  h.model.script(runId, [{ text: `answered ${runId}` }]);
  await agents.run(plain, { prompt: runId, runId });
}

async function parkedRun(runId: string, principal: string) {
  h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 5, to: "acme" } }] }]);
  const ack = await agents.run(payouts, { prompt: runId, runId, principal: { id: principal } });
  if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${JSON.stringify(ack)}`);
}

const ids = (page: Page) => page.locator("tr.row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-id")).sort());

/** Reloads `url` until the list shows exactly `expected` (visibility trails writes by a moment). */
const listed = (page: Page, url: string, expected: string[]) =>
  reloadUntil(page, url, async () => JSON.stringify(await ids(page)) === JSON.stringify([...expected].sort()), `exactly ${JSON.stringify(expected)}`);

describe("searching and filtering the list", () => {
  it("finds runs by the start of their id, typed into the search box", async () => {
    const tag = uid("cl-search");
    for (const id of [`${tag}-alpha-1`, `${tag}-alpha-2`, `${tag}-beta-1`]) await finishedRun(id);
    const page = await as("mia");
    await page.goto(`${http.url}/console`);
    await page.getByLabel("Search by id").fill(`${tag}-alpha`);
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/q=/);
    await listed(page, page.url(), [`${tag}-alpha-1`, `${tag}-alpha-2`]);
    expect(await page.getByLabel("Search by id").inputValue()).toBe(`${tag}-alpha`);
    // Each row says how long its history is, from the listing itself.
    for (const cell of await page.locator("tr.row td.events").allTextContents()) expect(Number(cell)).toBeGreaterThan(0);
    await page.screenshot({ path: `${ARTIFACTS}list-search.png`, fullPage: true });
    await page.context().close();
  });

  it("filters by start time: after and before a moment between two runs", async () => {
    const tag = uid("cl-time");
    await finishedRun(`${tag}-early`);
    const page = await as("mia");
    // The moment is read from the list itself (the early run's start), so no clock is compared across processes.
    await listed(page, `${http.url}/console?q=${tag}`, [`${tag}-early`]);
    const early = Date.parse((await page.locator("tr.row time").getAttribute("datetime"))!);
    const moment = new Date(early + 1).toISOString();
    await finishedRun(`${tag}-late`);
    await listed(page, `${http.url}/console?q=${tag}`, [`${tag}-early`, `${tag}-late`]);
    await listed(page, `${http.url}/console?${new URLSearchParams({ q: tag, after: moment })}`, [`${tag}-late`]);
    await listed(page, `${http.url}/console?${new URLSearchParams({ q: tag, before: moment })}`, [`${tag}-early`]);
    await page.context().close();
  });

  it("filters by whom a waiting run acts for", async () => {
    const tag = uid("cl-for");
    await parkedRun(`${tag}-clerk`, "clerk");
    await parkedRun(`${tag}-ana`, "ana");
    const page = await as("mia");
    await listed(page, `${http.url}/console?q=${tag}`, [`${tag}-clerk`, `${tag}-ana`]);
    await page.getByLabel("Acting for").fill("clerk");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/principal=clerk/);
    await listed(page, page.url(), [`${tag}-clerk`]);
    await page.context().close();
  });
});

describe("the list follows itself", () => {
  it("shows a run started while the list is open, without a reload", async () => {
    const tag = uid("cl-live");
    const page = await as("mia");
    await page.goto(`${http.url}/console?q=${tag}`);
    expect(await page.locator("tr.row").count()).toBe(0);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await finishedRun(`${tag}-new`);
    await page.locator(`tr.row[data-id="${tag}-new"]`).waitFor({ timeout: 20_000 });
    // The same document: the row was moved in by the page's poll, not by a navigation.
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    expect(await page.textContent("#console-live-status")).toContain("Updated at");
    expect(await page.locator("script:not([nonce])").count()).toBe(0);
    await page.context().close();
  });

  it("answers an unchanged list with 304 to the version it handed out", async () => {
    const tag = uid("cl-etag");
    await finishedRun(`${tag}-one`);
    let etag = "";
    await vi.waitFor(
      async () => {
        const res = await http.call("GET", `/console?q=${tag}`, { user: "mia" });
        expect(String(res.body)).toContain(`${tag}-one`);
        etag = res.headers.get("etag") ?? "";
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(etag).toMatch(/^"[\w-]+"$/);
    const same = await http.call("GET", `/console?q=${tag}`, { user: "mia", headers: { "if-none-match": etag } });
    expect(same.status).toBe(304);
    // Another caller's version is not this one's: the version covers whom the list is for.
    const other = await http.call("GET", `/console?q=${tag}`, { user: "ian", headers: { "if-none-match": etag } });
    expect(other.status).toBe(200);
  });
});

describe("who finds what", () => {
  it("gives a reader of one run that run only, whatever the search matches", async () => {
    const tag = uid("cl-reader");
    await finishedRun(`${tag}-mine`);
    await finishedRun(`${tag}-theirs`);
    ianReads.add(`${tag}-mine`);
    const mia = await as("mia");
    await listed(mia, `${http.url}/console?q=${tag}`, [`${tag}-mine`, `${tag}-theirs`]);
    const ian = await as("ian");
    await listed(ian, `${http.url}/console?q=${tag}`, [`${tag}-mine`]);
    await mia.context().close();
    await ian.context().close();
  });

  it("refuses malformed and oversized searches and times with AI1040; quotes in a search match nothing", async () => {
    for (const [name, query] of [
      ["a control character", { q: "a\u0001b" }],
      ["a search over 200 characters", { q: "x".repeat(201) }],
      ["a principal over 200 characters", { principal: "x".repeat(201) }],
      ["a time in words", { after: "yesterday" }],
      ["an impossible date", { before: "2026-13-45" }],
    ] as const) {
      const res = await http.call("GET", `/console?${new URLSearchParams(query)}`, { user: "mia" });
      expect(res.status, name).toBe(400);
      expect((res.body as { error: { code: string } }).error.code, name).toBe("AI1040");
    }
    const tag = uid("cl-quote");
    await finishedRun(`${tag}-x`);
    const page = await as("mia");
    await listed(page, `${http.url}/console?q=${tag}`, [`${tag}-x`]);
    for (const q of [`${tag}" OR WorkflowId != "`, `${tag}\\`, `' OR '1'='1`]) {
      const res = await http.call("GET", `/console?${new URLSearchParams({ q })}`, { user: "mia" });
      expect(res.status, q).toBe(200);
      expect(String(res.body), q).not.toContain('class="row"');
    }
    const forged = await http.call("GET", `/console?${new URLSearchParams({ principal: 'clerk" OR "1"="1' })}`, { user: "mia" });
    expect(forged.status).toBe(200);
    expect(String(forged.body)).not.toContain('class="row"');
    const signedOut = await http.call("GET", `/console?q=${tag}`);
    expect(signedOut.status).toBe(401);
    await page.context().close();
  });
});

describe("the approvals view", () => {
  it("is one click from the list, shows what waits with whom it acts for, and decides through the inbox's page", async () => {
    const tag = uid("cl-appr");
    await parkedRun(`${tag}-pay`, "clerk");
    const page = await as("mia");
    await page.goto(`${http.url}/console`);
    const nav = page.getByRole("navigation", { name: "Console" });
    expect(await nav.getByRole("link").allTextContents()).toEqual(["All", "Runs", "Threads", "Approvals"]);
    expect(await nav.getByRole("link", { name: "All" }).getAttribute("aria-current")).toBe("page");
    await Promise.all([page.waitForURL(/\/console\/approvals$/), nav.getByRole("link", { name: "Approvals" }).click()]);
    expect(await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Approvals" }).getAttribute("aria-current")).toBe("page");
    const row = page.locator(`tr.row[data-run="${tag}-pay"]`);
    await reloadUntil(page, undefined, async () => (await row.count()) === 1, "the request to be listed");
    expect(await row.textContent()).toMatch(/approval[\s\S]*sendPayout[\s\S]*"amount":5[\s\S]*clerk/);
    await page.screenshot({ path: `${ARTIFACTS}approvals.png`, fullPage: true });
    // Usable on a phone: the rows stack, nothing scrolls sideways.
    const narrow = await page.context().newPage();
    await narrow.setViewportSize({ width: 390, height: 800 });
    await narrow.goto(page.url());
    expect(await narrow.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await narrow.screenshot({ path: `${ARTIFACTS}approvals-390.png`, fullPage: true });
    await narrow.close();
    // Its run is one click away in the list, found by its id.
    expect(await row.getByRole("link", { name: `${tag}-pay`, exact: true }).getAttribute("href")).toBe(`/console?q=${encodeURIComponent(`${tag}-pay`)}`);
    await Promise.all([page.waitForURL(/\/inbox\//), row.getByRole("link", { name: /^Decide / }).click()]);
    await page.getByRole("group", { name: /^Call 1 of 1: sendPayout/ }).getByLabel("Approve", { exact: true }).check();
    await page.getByRole("button", { name: "Submit decisions" }).click();
    await page.waitForSelector(".state-outcome");
    expect(ranIn(`${tag}-pay`)).toEqual([{ tool: "sendPayout", input: { amount: 5, to: "acme" } }]);
    await page.context().close();
  });

  it("shows a reader only the requests the hook lets it list, and refuses hostile queries (AI1040) and no session (AI1049)", async () => {
    const tag = uid("cl-appr-read");
    await parkedRun(`${tag}-mine`, "clerk");
    await parkedRun(`${tag}-theirs`, "clerk");
    ianReads.add(`${tag}-mine`);
    const runs = async (user: string) => {
      const res = await http.call("GET", "/console/approvals", { user });
      expect(res.status).toBe(200);
      return [...String(res.body).matchAll(/data-run="([^"]+)"/g)].map((m) => m[1]).filter((id) => id!.startsWith(tag)).sort();
    };
    await vi.waitFor(async () => expect(await runs("mia")).toEqual([`${tag}-mine`, `${tag}-theirs`]), { timeout: 20_000, interval: 100 });
    expect(await runs("ian")).toEqual([`${tag}-mine`]);
    for (const [name, query] of [
      ["an unknown parameter", "?owner=mia"],
      ["a control character", `?${new URLSearchParams({ requires: "a\u0001b" })}`],
      ["an oversized agent", `?${new URLSearchParams({ agent: "x".repeat(201) })}`],
      ["a cursor that is no page token", "?cursor=%2F%2F"],
    ] as const) {
      const res = await http.call("GET", `/console/approvals${query}`, { user: "mia" });
      expect(res.status, name).toBe(400);
      expect((res.body as { error: { code: string } }).error.code, name).toBe("AI1040");
    }
    const signedOut = await http.call("GET", "/console/approvals");
    expect(signedOut.status).toBe(401);
    expect(String(signedOut.body)).toContain("AI1049");
    expect(String(signedOut.body)).not.toContain(tag);
  });
});

describe("each row's turns, tokens and billed actions", () => {
  /** What a row's own page says: model calls, tokens in and out, billed actions. */
  async function pageFigures(page: Page, href: string) {
    await page.goto(`${http.url}${href}`);
    const calls = (await page.locator("dl.summary dt:text-is('Model calls') + dd").textContent())!;
    const [, turns, tokensIn, tokensOut] = /^(\d+) \((\d+) tokens in, (\d+) out\)$/.exec(calls.trim())!;
    return { turns: turns!, tokens: `${tokensIn} / ${tokensOut}`, actions: (await page.textContent("#billed-actions"))!.trim() };
  }

  it("fills each row from its history after the list loads, as its page counts them, and says which thread waits on an async tool", async () => {
    const tag = uid("cl-sum");
    const parked = `${tag}-parked`;
    await parkedRun(parked, "clerk");
    const done = `${tag}-done`;
    h.model.script(done, [{ toolCalls: [{ name: "lookup", arguments: { q: "x" } }], usage: { promptTokens: 11, completionTokens: 3 } }, { text: "found", usage: { promptTokens: 17, completionTokens: 5 } }]);
    expect(await agents.run(plain, { prompt: done, runId: done })).toMatchObject({ status: "completed" });
    const thread = `${tag}-thread`;
    h.model.script(thread, [{ toolCalls: [{ name: "askHuman", arguments: { question: "ship it?" } }] }]);
    await agents.threads.createThread({ threadId: thread, prompt: thread, agent: desk });
    await vi.waitFor(async () => expect((await agents.threads.state({ threadId: thread })).toolCalls).toMatchObject([{ state: "waiting" }]), { timeout: 20_000, interval: 50 });

    // Without a script the columns send the reader to the row's page.
    await vi.waitFor(
      async () => {
        const res = await http.call("GET", `/console?q=${tag}`, { user: "mia" });
        expect([...String(res.body).matchAll(/class="row"/g)]).toHaveLength(3);
        expect([...String(res.body).matchAll(/<td data-label="Turns" class="turns"[^>]*>open the row<\/td>/g)]).toHaveLength(3);
      },
      { timeout: 20_000, interval: 100 },
    );
    const page = await as("mia");
    await listed(page, `${http.url}/console?q=${tag}`, [parked, done, thread]);
    await page.locator("td.turns[data-state='filled']").nth(2).waitFor({ timeout: 20_000 });
    const rows: Record<string, { turns: string; tokens: string; actions: string; status: string; href: string }> = {};
    for (const id of [parked, done, thread]) {
      const row = page.locator(`tr.row[data-id="${id}"]`);
      rows[id] = {
        turns: (await row.locator("td.turns").textContent())!,
        tokens: (await row.locator("td.tokens").textContent())!,
        actions: (await row.locator("td.actions").textContent())!,
        status: (await row.locator('td[data-label="Status"]').textContent())!,
        href: (await row.getByRole("link", { name: id, exact: true }).getAttribute("href"))!,
      };
    }
    // Usable on a phone: the cells stack with their labels, nothing scrolls sideways.
    const narrow = await page.context().newPage();
    await narrow.setViewportSize({ width: 390, height: 800 });
    await narrow.goto(page.url());
    await narrow.locator("td.turns[data-state='filled']").nth(2).waitFor({ timeout: 20_000 });
    expect(await narrow.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await narrow.screenshot({ path: `${ARTIFACTS}list-figures-390.png`, fullPage: true });
    await narrow.close();
    await page.screenshot({ path: `${ARTIFACTS}list-figures.png`, fullPage: true });
    for (const id of [parked, done, thread]) {
      const own = await pageFigures(page, rows[id]!.href);
      expect({ turns: rows[id]!.turns, tokens: rows[id]!.tokens, actions: rows[id]!.actions }, id).toEqual(own);
    }
    expect(rows[done]!.turns).toBe("2");
    expect(rows[done]!.tokens).toBe("28 / 8");
    expect(rows[thread]!.status).toContain("waiting on an async tool");
    expect(rows[parked]!.status).not.toContain("async tool");
    expect(rows[done]!.status).not.toContain("async tool");
    await page.context().close();
  });

  it("follows a thread's row while the list is open: once its async tool is answered, its turns grow and it no longer waits", async () => {
    const thread = uid("cl-sum-live");
    h.model.script(thread, [{ toolCalls: [{ name: "askHuman", arguments: { question: "ship it?" } }] }, { text: "shipping" }]);
    await agents.threads.createThread({ threadId: thread, prompt: thread, agent: desk });
    await vi.waitFor(async () => expect((await agents.threads.state({ threadId: thread })).toolCalls).toMatchObject([{ state: "waiting" }]), { timeout: 20_000, interval: 50 });
    const page = await as("mia");
    await listed(page, `${http.url}/console?q=${thread}`, [thread]);
    const row = page.locator(`tr.row[data-id="${thread}"]`);
    await row.locator("td.turns[data-state='filled']").waitFor({ timeout: 20_000 });
    expect(await row.locator("td.turns").textContent()).toBe("1");
    expect(await row.locator('td[data-label="Status"]').textContent()).toContain("waiting on an async tool");
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    const { toolCallId, token } = await askedIn(thread);
    expect(await agents.threads.addToolResult({ threadId: thread, toolCallId, result: { yes: true }, answerToken: token })).toMatchObject({ status: "accepted" });
    await agents.threads.settled({ threadId: thread });
    await vi.waitFor(async () => expect(await page.locator(`tr.row[data-id="${thread}"] td.turns[data-state='filled']`).textContent()).toBe("2"), { timeout: 20_000, interval: 100 });
    expect(await page.locator(`tr.row[data-id="${thread}"] td[data-label="Status"]`).textContent()).not.toContain("async tool");
    // The same document: the list's poll moved the row in and its script filled it again.
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    await page.context().close();
  });

  it("refuses the summary of a row the hook refuses with the page's code, malformed ids with AI1040, no session with 401, and another site's request with AI1043", async () => {
    const tag = uid("cl-sum-hostile");
    await finishedRun(`${tag}-mine`);
    await finishedRun(`${tag}-theirs`);
    const thread = `${tag}-thread`;
    h.model.script(thread, [{ text: "hello" }]);
    await agents.threads.createThread({ threadId: thread, prompt: thread, agent: desk });
    await agents.threads.settled({ threadId: thread });
    ianReads.add(`${tag}-mine`);
    const mine = await http.call("GET", `/console/runs/${encodeURIComponent(`${tag}-mine`)}/summary`, { user: "ian" });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ turns: 1, waitingOnAsyncTools: 0 });
    // Asked again with the version it handed out (as the live list does), an unchanged history answers 304.
    const again = await http.call("GET", `/console/runs/${encodeURIComponent(`${tag}-mine`)}/summary`, { user: "ian", headers: { "if-none-match": mine.headers.get("etag")! } });
    expect(again.status).toBe(304);
    for (const [kind, id] of [["runs", `${tag}-theirs`], ["threads", thread]] as const) {
      const path = `/console/${kind}/${encodeURIComponent(id)}`;
      const own = await http.call("GET", path, { user: "ian" });
      expect(own.status, path).toBe(403);
      const code = /AI\d{4}/.exec(String(own.body))![0];
      const summary = await http.call("GET", `${path}/summary`, { user: "ian" });
      expect(summary.status, path).toBe(403);
      expect(summary.body.error.code, path).toBe(code);
      expect(JSON.stringify(summary.body), path).not.toMatch(/tokens|turns/);
    }
    for (const [name, path] of [
      ["a control character", `/console/runs/${encodeURIComponent("a\u0001b")}/summary`],
      ["an id over 1000 characters", `/console/threads/${"x".repeat(1001)}/summary`],
    ] as const) {
      const res = await http.call("GET", path, { user: "mia" });
      expect(res.status, name).toBe(400);
      expect(res.body.error.code, name).toBe("AI1040");
    }
    const signedOut = await http.call("GET", `/console/runs/${encodeURIComponent(`${tag}-mine`)}/summary`);
    expect(signedOut.status).toBe(401);
    expect(String(signedOut.body)).toContain("AI1049");
    const crossSite = await http.call("GET", `/console/runs/${encodeURIComponent(`${tag}-mine`)}/summary`, { user: "mia", headers: { "sec-fetch-site": "cross-site", origin: "https://evil.example" } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error.code).toBe("AI1043");
    // The same ask from the console's own page is answered.
    const sameSite = await http.call("GET", `/console/runs/${encodeURIComponent(`${tag}-mine`)}/summary`, { user: "mia", headers: { "sec-fetch-site": "same-origin" } });
    expect(sameSite.status).toBe(200);
  });
});
