/**
 * The page of one run or thread in Chromium: its pictures per turn (tokens, latency, billed
 * actions, where the time went), read back from the page and held against what happened.
 */
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient } from "../src/index.js";
import { launchChromium } from "./chromium.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";

/** Screenshots for a person to look at (test-artifacts/ is git-ignored; `.ci/run` keeps it). */
const ARTIFACTS = new URL("../test-artifacts/console/", import.meta.url).pathname;

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

let h: Harness;
let agents: AgentClient;
let http: HttpServer;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  h = await startHarness();
  ({ agents } = await h.worker([payer], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
  http = await startHttp({ agents, console: { refreshInterval: 0 } });
});
afterAll(async () => {
  await browser?.close();
  await http?.close();
  await h?.close();
});

async function as(user: string, width = 1280): Promise<Page> {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-user": user }, viewport: { width, height: 900 } });
  return context.newPage();
}

const values = (page: Page, selector: string) => page.locator(selector).evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-value"))));

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
    const timelineMs = (await page.locator("li.event.model").allTextContents()).map((t) => /Model call · (\d+) ms/.exec(t)?.[1]).map(Number);
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
    await page.context().close();
  });
});
