/**
 * The approval page and the front door's resume route bind an answer to the call that was
 * shown: the form carries the call's fingerprint as a hidden field and the POST checks it.
 */
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient } from "../src/index.js";
import { approvalUrl } from "../src/http.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { requiresRoles, startHttp, type HttpServer } from "./http-support.js";

const links = new Map<string, string>();
const requestPayout = defineTool({
  name: "requestPayout",
  description: "Asks finance to approve a payout",
  input: z.object({ vendor: z.string(), amountEur: z.number() }),
  handler: (_input, ctx) => {
    links.set(ctx.runId, ctx.deferral.token);
    return ctx.defer({ schema: z.object({ approved: z.boolean() }), meta: { requires: ["payouts:approve"] } });
  },
});
const finance = defineAgent({ id: "finance-bound", model: "gpt-4.1-mini", system: "You pay invoices after approval.", tools: [requestPayout], maxTurns: 4 });

let h: Harness;
let agents: AgentClient;
let http: HttpServer;
let browser: Browser;

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([finance], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize: requiresRoles } }));
  http = await startHttp({ agents, basePath: "/agents" });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox"] });
});
afterAll(async () => {
  await browser?.close();
  await http?.close();
  await h?.close();
});

async function deferredRun(amountEur: number) {
  const runId = uid("bound-page");
  h.model.script(runId, [{ toolCalls: [{ name: "requestPayout", arguments: { vendor: "Acme Robotics", amountEur } }] }, { text: `Paid €${amountEur}.` }]);
  const ack = await agents.run(finance, { prompt: runId, runId, principal: { id: "sam" } });
  if (ack.status !== "deferred") throw new Error("expected a deferral");
  return { runId, deferralId: ack.deferralId, token: links.get(runId)!, link: approvalUrl(`${http.url}/approve`, links.get(runId)!) };
}

const hiddenShown = (page: Page) => page.locator('input[type=hidden][name="shown"]').getAttribute("value");

/** Submits the form with `approved: yes`; resolves with the response's status. */
async function approve(page: Page): Promise<number> {
  await page.getByRole("group", { name: /^approved/ }).getByLabel("Yes").check();
  const [response] = await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Submit answer" }).click()]);
  return response!.status();
}

describe("the approval page binds the answer to what it showed", () => {
  it("carries the call's fingerprint as a hidden field; a post made on another call, or on none, gets the form again (409) with nothing spent, and the answer then goes through", async () => {
    const other = await deferredRun(10);
    const run = await deferredRun(90_000);
    const record = await agents.deferrals.getRecord({ deferralId: run.deferralId });
    const context = await browser.newContext({ extraHTTPHeaders: { "x-user": "fiona" } });
    const page = await context.newPage();
    await page.goto(run.link);
    expect(await hiddenShown(page)).toBe(record.callFingerprint);
    const before = JSON.stringify(await agents.deferrals.get({ deferralId: run.deferralId }));

    // The page showed another request (a stale or mixed-up page), then the page showed none.
    const stale = (await agents.deferrals.getRecord({ deferralId: other.deferralId })).callFingerprint!;
    for (const tamper of [(input: HTMLInputElement, value: string) => void (input.value = value), (input: HTMLInputElement) => input.remove()]) {
      await page.locator('input[name="shown"]').evaluate(tamper, stale);
      expect(await approve(page)).toBe(409);
      expect(await page.textContent(".errors")).toContain("not the one your answer was given to");
      // Shown again as it is now, and bound to that.
      expect(await page.textContent("main")).toContain('"amountEur": 90000');
      expect(await hiddenShown(page)).toBe(record.callFingerprint);
      expect(JSON.stringify(await agents.deferrals.get({ deferralId: run.deferralId }))).toBe(before);
    }

    expect(await approve(page)).toBe(200);
    await page.waitForSelector(".state-outcome");
    await expect(agents.result({ runId: run.runId })).resolves.toMatchObject({ text: "Paid €90000." });
    await context.close();
    await agents.cancel({ runId: other.runId });
  });

  it("the front door's resume route takes `shown` and refuses another call's with RC5058 (409), a malformed one with 400, spending nothing", async () => {
    const other = await deferredRun(20);
    const run = await deferredRun(70_000);
    const shown = (await agents.deferrals.getRecord({ deferralId: run.deferralId })).callFingerprint!;
    const stale = (await agents.deferrals.getRecord({ deferralId: other.deferralId })).callFingerprint!;
    const body = (extra: object) => ({ user: "fiona", body: { token: run.token, payload: { approved: true }, ...extra } });
    expect(await http.call("POST", "/resume", body({ shown: stale }))).toMatchObject({ status: 409, body: { error: { code: "RC5058" } } });
    expect(await http.call("POST", "/resume", body({ shown: "nope" }))).toMatchObject({ status: 400 });
    expect((await agents.state({ runId: run.runId })).status).toBe("deferred");
    expect(await http.call("POST", "/resume", body({ shown }))).toMatchObject({ status: 200, body: { status: "resumed", outcome: { status: "completed" } } });
    await agents.cancel({ runId: other.runId });
  });
});
