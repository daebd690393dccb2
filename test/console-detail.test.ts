/**
 * The page of one run or thread in Chromium: its pictures per turn (tokens, latency, billed
 * actions, where the time went), read back from the page and held against what happened.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient, type ApprovalRequestInfo, type AuthorizeHook, type ThreadsClient } from "../src/index.js";
import { ARTIFACTS, askedIn, consoleStack, deskAgent, type ConsoleStack } from "./console-support.js";
import { escalatingPayout } from "./gated-fixtures.js";
import { SECRET, uid, type Harness } from "./harness.js";
import type { HttpServer } from "./http-support.js";

/** Screenshots for a person to look at (test-artifacts/ is git-ignored; `.ci/run` keeps it). */

const tokens = new Map<string, string>();
const askApproval = defineTool({
  name: "askApproval",
  description: "Ask a human to approve a payout",
  input: z.object({ amount: z.number() }),
  handler: async (_input, ctx) => {
    tokens.set(ctx.runId, ctx.deferral.token);
    return ctx.defer({ schema: z.object({ approved: z.boolean() }) });
  },
});
const pay = defineTool({ name: "pay", description: "Pays", input: z.object({ amount: z.number() }), handler: ({ amount }) => `paid ${amount}` });
const payer = defineAgent({ id: "detail-payer", model: "gpt-4.1-mini", system: "Ask, pay, answer.", tools: [askApproval, pay], maxTurns: 6 });

/** Sub-agents three levels deep: the lead calls the manager, which calls the researcher. */
const researcher = defineAgent({ id: "detail-researcher", description: "Finds facts", model: "gpt-4.1-mini", system: "You research.", maxTurns: 2 });
const manager = defineAgent({ id: "detail-manager", description: "Manages research", model: "gpt-4.1-mini", system: "You manage.", agents: [researcher], maxTurns: 8 });
const lead = defineAgent({ id: "detail-lead", model: "gpt-4.1-mini", system: "You delegate.", agents: [manager], maxTurns: 12 });

/** An approval that reminds at once (1 s into 60 s) and escalates after 2 s, telling its approvers each time. */
const notified: ApprovalRequestInfo[] = [];
const sendPayout = escalatingPayout(notified);
const treasurer = defineAgent({ id: "detail-treasurer", model: "gpt-4.1-mini", system: "You pay.", tools: [sendPayout], maxTurns: 4 });

/** A thread agent whose async tool a person answers later (or never). */
const desk = deskAgent("detail-desk");

/** Walks as long as the model asks: 1,000 turns in one run (continuing as new on the way). */
const step = defineTool({ name: "step", description: "Takes a step", input: z.object({ n: z.number() }), handler: ({ n }) => `step ${n} done` });
const walker = defineAgent({ id: "detail-walker", model: "gpt-4.1-mini", system: "You walk.", tools: [step], maxTurns: 1200 });

/** An agent whose own model is out: each call is answered by its fallback, in the same attempt. */
const fallsBack = defineAgent({ id: "detail-falls-back", model: "detail-primary", fallbackModels: ["detail-second"], system: "You pay.", tools: [pay], maxTurns: 4 });

/** ian may read top-level runs, not sub-agents' (`<caller>/agent/<call>`); everyone else everything. */
const readsNoSubAgents: AuthorizeHook = (req) => !(req.principal?.id === "ian" && req.operation === "run.state" && (req.runId ?? "").includes("/agent/"));

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;
let http: HttpServer;
let browser: Browser;

let stack: ConsoleStack | undefined;

beforeAll(async () => {
  stack = await consoleStack([payer, lead, manager, researcher, treasurer, desk, walker, fallsBack], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, threads: { agent: desk }, authorize: readsNoSubAgents } }, { console: { refreshInterval: 0 } });
  ({ h, agents, threads, http, browser } = stack);
});
afterAll(() => stack?.close());

async function as(user: string, width = 1280): Promise<Page> {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-user": user }, viewport: { width, height: 900 } });
  return context.newPage();
}

const values = (page: Page, selector: string) => page.locator(selector).evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-value"))));

describe("a run's model and tool calls", () => {
  it("names each call's model and the fallback that answered, and each tool call's idempotency key, as its handler saw it", async () => {
    const runId = uid("detail-fallback");
    h.model.respond(runId, (req, turn) => {
      if (req.model === "detail-primary") return { errors: Object.assign([], { [req.attempt]: 503 }), text: "never" };
      return turn === 0 ? { toolCalls: [{ name: "pay", arguments: { amount: 5 } }] } : { text: "Paid 5." };
    });
    expect(await agents.run(fallsBack, { prompt: runId, runId })).toMatchObject({ status: "completed", text: "Paid 5." });
    const call = (await agents.listMessages({ runId })).messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []))[0]!;
    const page = await as("fiona");
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(runId)}`);
    const models = page.locator("li.event.model");
    expect(await models.count()).toBe(2);
    for (const text of await models.allInnerTexts()) expect(text).toMatch(/Model call detail-primary · answered by detail-second \(fallback\)/);
    const tool = page.locator("li.event.tool");
    await tool.locator("summary").click();
    expect(await tool.locator("p.key code").innerText()).toBe(`${runId}/${call.id}`);
  });
});

describe("a run's pictures", () => {
  it("draws a 3-turn run's tokens, latency, billed actions and where its time went, one bar or point per turn, with the values the page's own table and timeline give", async () => {
    const runId = uid("detail-charts");
    h.model.script(runId, [
      { toolCalls: [{ name: "askApproval", arguments: { amount: 250 } }], usage: { promptTokens: 100, completionTokens: 10 } },
      { toolCalls: [{ name: "pay", arguments: { amount: 250 } }], usage: { promptTokens: 200, completionTokens: 20 } },
      { text: "Paid 250.", usage: { promptTokens: 300, completionTokens: 30 } },
    ]);
    const ack = await agents.run(payer, { prompt: runId, runId });
    expect(ack.status).toBe("deferred");
    // The run is parked from before `run` answered until the resume: at least this long waits for a person.
    const parkedBy = Date.now();
    const page = await as("fiona");
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(runId)}`);
    // What a person sees of a parked payout: why it waits (the link to decide it), what it cost so far.
    expect(await page.getByRole("link", { name: "Open the request to decide it" }).count()).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}run-parked.png` });
    const resumedAt = Date.now();
    const resumed = await agents.resume({ token: tokens.get(runId)!, payload: { approved: true } });
    expect(resumed.outcome.status).toBe("completed");
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(runId)}`);

    // Tokens: one bar in and one out per turn, at the model's reported usage, drawn to scale.
    expect(await values(page, "#chart-tokens rect.tokens-in")).toEqual([100, 200, 300]);
    expect(await values(page, "#chart-tokens rect.tokens-out")).toEqual([10, 20, 30]);
    const heights = await page.locator("#chart-tokens rect.tokens-in").evaluateAll((els) => els.map((e) => Number(e.getAttribute("height"))));
    expect(heights[2]! / heights[0]!).toBeCloseTo(3, 5);
    expect(heights[1]! / heights[0]!).toBeCloseTo(2, 5);

    // Latency: one point per turn, each the model call's time the timeline shows.
    const latency = await values(page, "#chart-latency circle.point");
    const timelineMs = (await page.locator("li.event.model").allTextContents()).map((t) => /Model call \S+ · (\d+) ms/.exec(t)?.[1]).map(Number);
    expect(latency).toEqual(timelineMs);

    // Billed actions: one bar per turn, adding up to the total the page gives.
    const actions = await values(page, "#chart-actions rect.actions");
    expect(actions).toHaveLength(3);
    expect(actions.reduce((a, b) => a + b, 0)).toBe(Number(await page.textContent("#billed-actions")));
    expect(actions).toEqual((await page.getByRole("table", { name: /^Per turn \(a model call/ }).locator("tbody td:last-child").allTextContents()).map(Number));

    // Where the time went: the first turn waited for the person at least as long as the test held it; the others waited for nobody.
    const turnsDrawn = page.locator("#chart-time g.turn-time");
    expect(await turnsDrawn.count()).toBe(3);
    const waiting = await values(page, "#chart-time rect.segment.waiting");
    expect(waiting[0]).toBeGreaterThanOrEqual(resumedAt - parkedBy - 2);
    expect(waiting.slice(1)).toEqual([0, 0]);
    expect(await values(page, "#chart-time rect.segment.model")).toEqual(latency);
    for (let i = 0; i < 3; i++) {
      const parts = await values(page, `#chart-time g.turn-time:nth-of-type(${i + 1}) rect.segment`);
      expect(parts.reduce((a, b) => a + b, 0)).toBe(Number(await turnsDrawn.nth(i).getAttribute("data-total")));
    }

    // For screen readers: each picture is a labelled image, and the table under the disclosure has the same numbers.
    for (const name of [/^Tokens per turn/, /^Model latency per turn/, /^Billed actions per turn/, /^Where each turn's time went/]) expect(await page.getByRole("img", { name }).count()).toBe(1);
    await page.getByText("The pictures as a table").click();
    const rows = page.getByRole("table", { name: /^Per turn$/ }).locator("tbody tr");
    expect(await rows.count()).toBe(3);
    expect(await rows.locator("td:nth-of-type(1)").allTextContents()).toEqual(["100", "200", "300"]);
    expect((await rows.locator("td:nth-of-type(7)").allTextContents()).map(Number)).toEqual(waiting);

    // The strict CSP holds: no style attribute anywhere, and no violation reported.
    expect(await page.locator("[style]").count()).toBe(0);
    expect(violations).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}run-charts.png`, fullPage: true });
    await page.locator("section.charts").screenshot({ path: `${ARTIFACTS}charts.png` });
    await page.context().close();

    // At 390 px wide the pictures shrink to the screen: nothing scrolls sideways.
    const narrow = await as("fiona", 390);
    await narrow.goto(`${http.url}/console/runs/${encodeURIComponent(runId)}`);
    expect(await narrow.locator("#chart-time g.turn-time").count()).toBe(3);
    expect(await narrow.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await narrow.context().close();
  });
});

describe("a run's timeline, whole", () => {
  it("shows sub-agents as a tree, children of children included, each linked from the call that started it with its status, and opens a grandchild's page", async () => {
    const runId = uid("detail-lead");
    h.model.script(runId, [{ toolCalls: [{ id: "c1", name: "detail-manager", arguments: { prompt: `${runId} manage` } }] }, { text: "Managed." }]);
    h.model.script(`${runId} manage`, [{ toolCalls: [{ id: "c2", name: "detail-researcher", arguments: { prompt: `${runId} research` } }] }, { text: "Researched." }]);
    h.model.script(`${runId} research`, [{ text: "It is 42." }]);
    expect(await agents.run(lead, { prompt: runId, runId })).toMatchObject({ status: "completed" });
    const child = `${runId}/agent/c1`;
    const grandchild = `${child}/agent/c2`;
    const page = await as("fiona");
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(runId)}`);
    // In the timeline: the call that started it, its status, a link to its run.
    const started = page.locator("li.event.sub-agent");
    expect(await started.count()).toBe(1);
    expect(await started.textContent()).toMatch(/Sub-agent detail-manager\s+for call c1 · completed · open its run/);
    // The tree: the child, and under it the grandchild (read from the child's own history).
    const tree = page.getByRole("region", { name: "Sub-agents" });
    const top = tree.locator(`li.node[data-id="${child}"]`);
    expect(await top.locator(":scope > details > summary").textContent()).toMatch(/detail-manager completed for call c1/);
    const nested = top.locator(`ul.tree li.node[data-id="${grandchild}"]`);
    expect(await nested.textContent()).toMatch(/detail-researcher completed for call c2/);
    // A tree you can open and close: closing the child hides the grandchild.
    await top.locator(":scope > details > summary").click();
    expect(await nested.isVisible()).toBe(false);
    await top.locator(":scope > details > summary").click();
    await page.locator("section.sub-agents").screenshot({ path: `${ARTIFACTS}sub-agents.png` });
    await Promise.all([page.waitForURL(/agent%2Fc2$/), nested.getByRole("link", { name: "detail-researcher" }).click()]);
    expect(await page.textContent("#status")).toBe("completed");
    expect(await page.getByRole("region", { name: "Conversation" }).textContent()).toContain("It is 42.");
    await page.context().close();

    // A reader of the run who may not read its sub-agents sees each as the run's own history tells, and nothing read of it.
    const ian = await as("ian");
    await ian.goto(`${http.url}/console/runs/${encodeURIComponent(runId)}`);
    const only = ian.getByRole("region", { name: "Sub-agents" }).locator("li.node");
    expect(await only.count()).toBe(1);
    expect(await only.textContent()).toMatch(/detail-manager completed for call c1 \(its own sub-agents: on its page\)/);
    expect(await ian.content()).not.toContain(grandchild);
    const refused = await ian.goto(`${http.url}/console/runs/${encodeURIComponent(child)}`);
    expect(refused!.status()).toBe(403);
    expect(await ian.textContent("main")).toContain("AI1013");
    await ian.context().close();
  });

  it("shows an approval's reminder, its escalation and the approver's edit as the change it made, from the run's history", async () => {
    const runId = uid("detail-remind");
    h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 120, to: "acme" } }] }, { text: "paid" }]);
    const ack = await agents.run(treasurer, { prompt: runId, runId });
    expect(ack.status).toBe("deferred");
    const approvalId = (ack as { deferralId: string }).deferralId;
    await vi.waitFor(() => expect(notified.filter((n) => n.runId === runId).map((n) => n.reason)).toEqual(["asked", "reminder", "escalated"]), { timeout: 15_000, interval: 50 });
    const request = await agents.approvals.get({ approvalId });
    const call = request.calls[0]!;
    await agents.approvals.decide({ approvalId, principal: { id: "cfo" }, decisions: { [call.toolCallId]: { approved: true, input: { amount: 100, to: "acme" } } } });
    await agents.result({ runId });
    const page = await as("fiona");
    await page.goto(`${http.url}/console/runs/${encodeURIComponent(runId)}`);
    const timeline = page.getByRole("region", { name: "Timeline" });
    expect(await timeline.locator("li.event.reminded").textContent()).toMatch(new RegExp(`Reminded \\(reminder 1\\) the approvers of ${approvalId}`));
    expect(await timeline.locator("li.event.escalated").textContent()).toMatch(new RegExp(`Escalated ${approvalId} to payouts:cfo`));
    const decided = timeline.locator("li.event.decision");
    expect(await decided.textContent()).toMatch(/Decided by cfo: approved with an edit/);
    expect(await decided.locator("ul.edits li").textContent()).toMatch(new RegExp(`Edited sendPayout \\(call ${call.toolCallId}\\): /amount 120 → 100`));
    // In the order they happened: asked, reminded, escalated, decided.
    const kinds = await timeline.locator("li.event").evaluateAll((els) => els.map((e) => e.classList[1]));
    expect(kinds.filter((k) => ["reminded", "escalated", "decision"].includes(k!))).toEqual(["reminded", "escalated", "decision"]);
    await timeline.screenshot({ path: `${ARTIFACTS}timeline-approval.png` });
    await page.context().close();
  });

  it("shows a thread's async tool waiting since it started, then who answered it and after how long", async () => {
    const threadId = uid("detail-async");
    h.model.script(threadId, [{ toolCalls: [{ name: "askHuman", arguments: { question: "ship it?" } }] }, { text: "shipping" }]);
    await threads.createThread({ threadId, prompt: threadId });
    await vi.waitFor(async () => expect((await threads.state({ threadId })).toolCalls).toMatchObject([{ state: "waiting" }]), { timeout: 20_000, interval: 50 });
    const page = await as("fiona");
    const url = `${http.url}/console/threads/${encodeURIComponent(threadId)}`;
    await page.goto(url);
    const tool = page.locator("li.event.tool", { hasText: "askHuman" });
    expect(await tool.locator(".async-wait").textContent()).toMatch(/waiting for its answer since \d\d:\d\d:\d\d/);
    const { toolCallId, token } = await askedIn(threadId);
    expect(await threads.addToolResult({ threadId, toolCallId, result: { yes: true }, answerToken: token })).toMatchObject({ status: "accepted" });
    await threads.settled({ threadId });
    await page.goto(url);
    expect(await tool.locator(".async-wait").textContent()).toMatch(/waited for its answer from \d\d:\d\d:\d\d/);
    const answer = page.locator("li.event.answer");
    expect(await answer.textContent()).toMatch(new RegExp(`Answered askHuman \\(call ${toolCallId}\\) · after waiting \\d`));
    expect(await answer.locator("code.identity").textContent()).toBe(agents.client.options.identity);
    await page.context().close();
  });
});

describe("a run of 1,000 turns", () => {
  it("shows its newest 50 turns in a page of bounded size, with totals and charts over all 1,000, and every older turn a link or two away", async () => {
    const runId = uid("detail-long");
    const TURNS = 1000;
    h.model.respond(runId, (_req, turn) => (turn < TURNS - 1 ? { toolCalls: [{ name: "step", arguments: { n: turn + 1 } }], usage: { promptTokens: 10, completionTokens: 1 } } : { text: "walked 1,000 turns", usage: { promptTokens: 10, completionTokens: 1 } }));
    expect(await agents.run(walker, { prompt: runId, runId })).toMatchObject({ status: "completed" });

    const page = await as("fiona");
    const url = `${http.url}/console/runs/${encodeURIComponent(runId)}`;
    const response = await page.goto(url);
    const bytes = (await response!.body()).length;
    // Bounded: 50 turns of conversation and timeline, 50 rows per turn table, 50 bars per chart; not 1,000 of each.
    expect(bytes).toBeLessThan(250_000);
    expect(await page.locator("li.message").count()).toBeLessThanOrEqual(50 * 2);
    expect(await page.locator("li.event").count()).toBeLessThanOrEqual(50 * 2 + 1);
    expect(await page.locator("table.turns tbody tr").count()).toBe(50);
    expect(await page.locator("#chart-actions rect.bar").count()).toBe(50);
    expect(await page.locator("#chart-tokens rect.tokens-in").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-value"))))).toEqual(Array(50).fill(10));
    // The totals count every turn.
    expect(await page.textContent("dl.summary")).toMatch(/Model calls\s*1000 \(10000 tokens in, 1000 out\)/);
    expect(await page.textContent(".turn-range")).toBe("951–1000");
    expect(await page.getByRole("region", { name: "Conversation" }).textContent()).toMatch(/step 951 done[\s\S]*walked 1,000 turns/);
    expect(await page.locator("table.turns tbody th").first().textContent()).toBe("951");

    // Older turns, one page back, then the oldest: the prompt and the first step.
    await Promise.all([page.waitForURL(/before=951$/), page.getByRole("link", { name: "Older turns" }).click()]);
    expect(await page.textContent(".turn-range")).toBe("901–950");
    const results = await page.locator("li.message.tool pre").allTextContents();
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => `step ${901 + i} done`));
    await Promise.all([page.waitForURL(/before=51$/), page.getByRole("link", { name: "Oldest turns" }).click()]);
    expect(await page.textContent(".turn-range")).toBe("1–50");
    const oldest = (await page.getByRole("region", { name: "Conversation" }).textContent()) ?? "";
    expect(oldest).toContain(runId);
    expect(oldest).toContain("step 1 done");
    expect(await page.textContent("nav.turn-nav")).toContain("These are the oldest turns.");
    await Promise.all([page.waitForURL(/before=101$/), page.getByRole("link", { name: "Newer turns" }).click()]);
    expect(await page.textContent(".turn-range")).toBe("51–100");
    await page.context().close();

    // A cursor that is no turn number is refused (AI1040), the run unchanged.
    for (const before of ["0", "-3", "x", "1e3", "9".repeat(9)]) {
      const res = await http.call("GET", `/console/runs/${encodeURIComponent(runId)}?before=${encodeURIComponent(before)}`, { user: "fiona" });
      expect(res.status, before).toBe(400);
      expect((res.body as { error: { code: string } }).error.code, before).toBe("AI1040");
    }
  }, 240_000);
});
