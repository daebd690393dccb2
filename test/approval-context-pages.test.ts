/**
 * What the approver sees, in Chromium (issue 49): the approval page (opened by its link) and
 * the inbox's request page show who the run acts for and why the agent asks (the user's
 * message, the tool results it read, its last messages) in a section of their own, as text:
 * HTML, a `<script>`, ANSI and direction controls from the user, the model and a tool are
 * shown escaped, never run nor obeyed. A principal `authorize` refuses `approval.context`
 * sees the call alone there too. (The SDK and HTTP: test/approval-context.test.ts.)
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient, type Principal } from "../src/index.js";
import { approvalUrl } from "../src/http.js";
import { launchChromium } from "./chromium.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";

const tokens = new Map<string, string>();
const lookupOrder = defineTool({
  name: "lookupOrder",
  description: "Look an order up",
  input: z.object({ order: z.string() }),
  handler: () => "status: <b id=\"tool-b\">damaged</b> \u001b[2J\u001b[31mcleared\u001b[0m",
});
const sendRefund = defineTool({
  name: "sendRefund",
  description: "Refund a customer",
  input: z.object({ amount: z.number(), to: z.string() }),
  needsApproval: true,
  approval: { meta: { requires: ["refunds:approve"] }, notify: (request) => void tokens.set(request.runId, request.token) },
  handler: ({ amount, to }) => `refunded ${amount} to ${to}`,
});
const agent = defineAgent({ id: "refunds-pages", model: "gpt-4.1-mini", system: "You refund.", tools: [lookupOrder, sendRefund], maxTurns: 4 });

const PEOPLE: Record<string, Principal> = { mia: { id: "mia" }, olaf: { id: "olaf" } };

let h: Harness;
let agents: AgentClient;
let http: HttpServer;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  h = await startHarness();
  ({ agents } = await h.worker([agent], {
    deferral: { secret: SECRET },
    // olaf may decide but not read the conversation behind a request.
    client: { deferral: { secret: SECRET }, authorize: (req) => !(req.operation === "approval.context" && req.principal?.id === "olaf") },
  }));
  http = await startHttp({ agents, inboxPage: { refreshInterval: 0 }, authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""] });
});
afterAll(async () => {
  await browser?.close();
  await http?.close();
  await h?.close();
});

/** A run whose prompt and model text carry markup and terminal controls, parked on its refund. */
async function parked() {
  const runId = uid("ctx-pages");
  const prompt = `${runId} refund <script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> \u202eSI\u202c`;
  h.model.script(prompt, [
    { text: "Checking <i id=\"model-i\">first</i>.", toolCalls: [{ name: "lookupOrder", arguments: { order: "A-17" } }] },
    { text: "Damaged \u001b]0;owned\u0007 on arrival: refunding.", toolCalls: [{ name: "sendRefund", arguments: { amount: 40, to: "ann" } }] },
    { text: "done" },
  ]);
  const ack = await agents.run(agent, { prompt, runId, principal: { id: "ann" } });
  if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${JSON.stringify(ack)}`);
  const token = await vi.waitFor(() => tokens.get(runId) ?? Promise.reject(new Error("no link sent yet")), { timeout: 20_000 });
  return { runId, approvalId: ack.deferralId, prompt, link: approvalUrl(`${http.url}/approve`, token) };
}

async function as(user: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-user": user } });
  return { context, page: await context.newPage() };
}

/** The section, read as the approver reads it, and proof that nothing in it ran or took effect as markup. */
async function shownContext(page: Page, runId: string) {
  const section = page.getByRole("region", { name: "Why the agent asks" });
  const text = (await section.textContent()) ?? "";
  expect(text).toContain("Acting for ann");
  expect(text).toContain(`${runId} refund <script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> \\u202eSI\\u202c`);
  expect(text).toContain('status: <b id="tool-b">damaged</b> \\u001b[2J\\u001b[31mcleared\\u001b[0m');
  expect(text).toContain('Checking <i id="model-i">first</i>.');
  expect(text).toContain("Damaged \\u001b]0;owned\\u0007 on arrival: refunding.");
  expect(await section.locator("script, img, b, i").count()).toBe(0);
  expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
  expect(await page.content()).not.toMatch(/[\u001b\u0007\u202e]/);
}

describe("the pages show what the approver sees", () => {
  it("on the approval page and the inbox's request page, escaped; the inbox list says who the run acts for", async () => {
    const run = await parked();
    const { context, page } = await as("mia");
    await page.goto(run.link);
    await shownContext(page, run.runId);
    await page.goto(`${http.url}/inbox/${encodeURIComponent(run.approvalId)}`);
    await shownContext(page, run.runId);
    await page.goto(`${http.url}/inbox`);
    await page.locator(`li.request[data-approval-id="${run.approvalId}"]`).waitFor({ timeout: 20_000 });
    expect(await page.locator(`li.request[data-approval-id="${run.approvalId}"] .acts-for`).textContent()).toBe("Acting for ann");
    await context.close();
  });

  it("a principal authorize refuses approval.context sees the call alone on both pages, and may still decide", async () => {
    const run = await parked();
    const { context, page } = await as("olaf");
    for (const url of [run.link, `${http.url}/inbox/${encodeURIComponent(run.approvalId)}`]) {
      await page.goto(url);
      const section = page.getByRole("region", { name: "Why the agent asks" });
      expect(await section.textContent()).toContain("Acting for ann");
      const main = (await page.textContent("main")) ?? "";
      for (const hidden of ["window.pwned", "damaged", "Checking", "on arrival", "The request", "Tool results"]) expect(main).not.toContain(hidden);
      expect(await page.getByRole("group", { name: /^Call 1 of 1: sendRefund/ }).count()).toBe(1);
    }
    await page.getByRole("group", { name: /^Call 1 of 1: sendRefund/ }).getByLabel("Approve", { exact: true }).check();
    await page.getByRole("button", { name: "Submit decisions" }).click();
    await page.waitForSelector(".state-outcome");
    await context.close();
  });
});
