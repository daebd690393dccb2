import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient } from "../src/index.js";
import { approvalUrl } from "../src/http.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { launchChromium } from "./chromium.js";
import { requiresRoles, startHttp, type HttpServer } from "./http-support.js";

/** Screenshots of each page state, for a person to look at; git-ignored. */
const ARTIFACTS = new URL("../test-artifacts/approval/", import.meta.url).pathname;

const links = new Map<string, string>();
const Decision = z.object({
  approved: z.boolean(),
  priority: z.enum(["low", "normal", "high"]),
  amount: z.number().min(0).max(10_000),
  note: z.string().max(500).optional(),
});
const requestPayout = defineTool({
  name: "requestPayout",
  description: "Asks finance to approve a payout",
  input: z.object({ vendor: z.string(), amountEur: z.number(), ttl: z.string().optional() }),
  handler: ({ vendor, amountEur, ttl }, ctx) => {
    links.set(ctx.runId, ctx.deferral.token);
    return ctx.defer({
      schema: Decision,
      ...(ttl ? { ttl } : {}),
      meta: {
        requires: ["payouts:approve"],
        title: `Approve €${amountEur} to ${vendor}?`,
        description: "The invoice matched the purchase order.",
        render: { fields: { note: { widget: "textarea", label: "Note for the requester" } } },
      },
    });
  },
});
const Shipment = z.object({
  decision: z.enum(["approve", "reject"]),
  contact: z.object({ email: z.email(), callbackOn: z.iso.date().optional() }),
  items: z.array(z.object({ sku: z.string().min(1), qty: z.number().int().min(1).max(10) })).min(1).max(2),
  tags: z.array(z.enum(["urgent", "audit"])).optional(),
  rush: z.boolean().optional(),
});
const requestShipment = defineTool({
  name: "requestShipment",
  description: "Asks a person to confirm a shipment",
  input: z.object({ order: z.string() }),
  handler: (_input, ctx) => {
    links.set(ctx.runId, ctx.deferral.token);
    return ctx.defer({ schema: Shipment, meta: { requires: ["payouts:approve"], render: { fields: { decision: { widget: "radio" } } } } });
  },
});
/** Invoices paid, by run: what the approver's decisions must bound. */
const paid: Array<{ runId: string; vendor: string; amountEur: number; priority: string }> = [];
const payInvoice = defineTool({
  name: "payInvoice",
  description: "Pays an invoice, once a person approved the call",
  input: z.object({ vendor: z.string().min(1), amountEur: z.number().positive().max(10_000), priority: z.enum(["low", "normal", "high"]) }),
  needsApproval: true,
  approval: { meta: { requires: ["payouts:approve"] }, notify: (request) => void links.set(request.runId, request.token) },
  handler: (input, ctx) => {
    paid.push({ runId: ctx.runId, ...input });
    return `paid ${input.vendor} €${input.amountEur}`;
  },
});
/** A refund a person may have made by hand: they answer in its place with the outcome. */
const refundOrder = defineTool({
  name: "refundOrder",
  description: "Refunds an order, once a person approved the call",
  input: z.object({ order: z.string() }),
  needsApproval: true,
  approval: { meta: { requires: ["payouts:approve"] }, resultSchema: z.object({ status: z.enum(["refunded", "declined"]), reference: z.string().min(1) }), notify: (request) => void links.set(request.runId, request.token) },
  handler: (input, ctx) => {
    paid.push({ runId: ctx.runId, vendor: input.order, amountEur: 0, priority: "refund" });
    return "refunded by the tool";
  },
});

const finance = defineAgent({ id: "finance", model: "gpt-4.1-mini", system: "You pay invoices after approval.", tools: [requestPayout, requestShipment, payInvoice, refundOrder], maxTurns: 4 });

let h: Harness;
let agents: AgentClient;
let http: HttpServer;
let browser: Browser;
let evil: Server;
let evilUrl: string;

beforeAll(async () => {
  // First: without a browser the file fails at once, saying what to install.
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  h = await startHarness();
  ({ agents } = await h.worker([finance], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize: requiresRoles } }));
  http = await startHttp({ agents, basePath: "/agents" });
  // Another site (localhost is not 127.0.0.1 to a browser) serving a forged form.
  evil = createServer((req, res) => {
    const target = new URL(req.url!, "http://x").searchParams.get("target");
    if (!target) return void res.writeHead(404).end();
    res.setHeader("content-type", "text/html");
    res.end(`<form method="post" action="${target}"><input name="ref" value="${new URL(target).searchParams.get("ref")}"><input name="answer.approved" value="true"><input name="answer.priority" value="2"><input name="answer.amount" value="1"><button>win a prize</button></form>`);
  });
  await new Promise<void>((resolve) => evil.listen(0, "localhost", resolve));
  evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await browser?.close();
  // Only when it was started: a promise on a server that never was would never settle.
  if (evil) await new Promise((resolve) => evil.close(resolve));
  await http?.close();
  await h?.close();
});

async function deferredRun(ttl?: string) {
  const runId = uid("approve");
  h.model.script(runId, [
    { toolCalls: [{ name: "requestPayout", arguments: { vendor: "Acme Robotics", amountEur: 4200, ...(ttl ? { ttl } : {}) } }] },
    { text: "Paid Acme Robotics €4,200." },
  ]);
  const ack = await agents.run(finance, { prompt: runId, runId, principal: { id: "sam" } });
  expect(ack.status).toBe("deferred");
  return { runId, link: approvalUrl(`${http.url}/approve`, links.get(runId)!) };
}

/** The approval link of a gated call's request: its notify hook "sends" it once the run parked. */
function sentLink(runId: string): Promise<string> {
  return vi.waitFor(
    () => {
      const token = links.get(runId);
      if (!token) throw new Error("no approval link was sent yet");
      return approvalUrl(`${http.url}/approve`, token);
    },
    { timeout: 20_000 },
  );
}

async function as(user: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-user": user } });
  return { context, page: await context.newPage() };
}

describe("the approval page in a browser", () => {
  it("shows what is asked, takes the generated form, resumes the run, and answers a second submission with the same outcome", async () => {
    const { runId, link } = await deferredRun();
    const { context, page } = await as("fiona");
    const response = await page.goto(link);
    // The token left the address bar; the page is not cached, framed or referred.
    expect(page.url()).not.toContain(links.get(runId)!);
    const headers = response!.headers();
    expect(headers["cache-control"]).toBe("no-store");
    expect(headers["referrer-policy"]).toBe("no-referrer");
    expect(headers["content-security-policy"]).toMatch(/default-src 'none'/);
    expect(headers["content-security-policy"]).toMatch(/form-action 'self'/);
    expect(headers["x-frame-options"]).toBe("DENY");

    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Approve €4200 to Acme Robotics?");
    const text = await page.textContent("main");
    expect(text).toContain("The invoice matched the purchase order.");
    expect(text).toContain("finance");
    expect(text).toContain("requestPayout");
    expect(text).toContain('"vendor": "Acme Robotics"');
    expect(text).toMatch(/Time left\s*(2 days 23 hours|3 days)/);

    // A second tab holds the same form, to submit after the first answer.
    const second = await context.newPage();
    await second.goto(link);

    await page.getByRole("group", { name: /^approved/ }).getByLabel("Yes").check();
    await page.getByLabel(/^priority/).selectOption({ label: "high" });
    await page.getByLabel(/^amount/).fill("4200");
    await page.getByLabel(/Note for the requester/).fill("Matches PO-77.");
    await page.screenshot({ path: `${ARTIFACTS}form.png`, fullPage: true });
    // The form is usable from the keyboard: the submit button takes focus and Enter submits.
    await page.getByRole("button", { name: "Submit answer" }).focus();
    await Promise.all([page.waitForLoadState("load"), page.keyboard.press("Enter")]);
    await page.waitForSelector(".state-outcome");
    expect(await page.textContent("main")).toContain("Paid Acme Robotics €4,200.");
    await page.screenshot({ path: `${ARTIFACTS}outcome.png`, fullPage: true });

    const result = await agents.result({ runId });
    expect(result.text).toBe("Paid Acme Robotics €4,200.");
    const toolMessage = (await agents.listMessages({ runId })).messages.find((m) => m.role === "tool");
    expect(JSON.parse(toolMessage!.content as string)).toEqual({ approved: true, priority: "high", amount: 4200, note: "Matches PO-77." });

    await second.getByRole("group", { name: /^approved/ }).getByLabel("No").check();
    await second.getByLabel(/^priority/).selectOption({ label: "low" });
    await second.getByLabel(/^amount/).fill("1");
    await second.getByRole("button", { name: "Submit answer" }).click();
    await second.waitForSelector(".state-answered");
    const answered = await second.textContent("main");
    expect(answered).toContain("Already answered");
    expect(answered).toContain("Paid Acme Robotics €4,200.");
    await second.screenshot({ path: `${ARTIFACTS}already-answered.png`, fullPage: true });
    // Re-opening the link shows the same.
    await page.goto(link);
    expect(await page.textContent("main")).toContain("Already answered");
    await context.close();
  });

  it("shows the form again with the problem when the answer does not fit the schema, keeping the input", async () => {
    const { runId, link } = await deferredRun();
    const { context, page } = await as("fiona");
    await page.goto(link);
    await page.getByRole("group", { name: /^approved/ }).getByLabel("Yes").check();
    await page.getByLabel(/^amount/).fill("99999");
    await page.getByLabel(/Note for the requester/).fill("too much");
    await page.getByRole("button", { name: "Submit answer" }).click();
    await page.waitForSelector(".errors");
    expect(await page.textContent(".errors")).toContain("RC5049");
    expect(await page.getByLabel(/^amount/).inputValue()).toBe("99999");
    expect(await page.getByLabel(/Note for the requester/).inputValue()).toBe("too much");
    await page.screenshot({ path: `${ARTIFACTS}invalid-answer.png`, fullPage: true });
    expect((await agents.state({ runId })).status).toBe("deferred");
    await context.close();
  });

  it("generates nested objects, arrays, string formats, radio enums and multi-choice arrays from the schema", async () => {
    const runId = uid("ship");
    h.model.script(runId, [{ toolCalls: [{ name: "requestShipment", arguments: { order: "O-9" } }] }, { text: "Shipped." }]);
    expect((await agents.run(finance, { prompt: runId, runId })).status).toBe("deferred");
    const { context, page } = await as("fiona");
    await page.goto(approvalUrl(`${http.url}/approve`, links.get(runId)!));
    // Types and bounds come from the schema; every control has an accessible name.
    const email = page.getByLabel(/^email/);
    expect(await email.getAttribute("type")).toBe("email");
    expect(await email.getAttribute("required")).not.toBeNull();
    expect(await page.getByLabel(/^callbackOn/).getAttribute("type")).toBe("date");
    const qty = page.getByRole("group", { name: /Item 1/ }).getByLabel(/^qty/);
    expect([await qty.getAttribute("min"), await qty.getAttribute("max"), await qty.getAttribute("step")]).toEqual(["1", "10", "1"]);
    expect(await page.getByRole("group", { name: /Item 2/ }).getByLabel(/^sku/).getAttribute("required")).toBeNull();
    const unlabelled = await page.locator("input:not([type=hidden]), select, textarea").evaluateAll((els) => els.filter((el) => !(el as unknown as { labels?: { length: number } }).labels?.length).length);
    expect(unlabelled).toBe(0);

    await page.getByRole("group", { name: /^decision/ }).getByLabel("approve").check();
    await email.fill("ops@example.com");
    await page.getByLabel(/^callbackOn/).fill("2026-12-24");
    await page.getByRole("group", { name: /Item 1/ }).getByLabel(/^sku/).fill("SKU-1");
    await qty.fill("3");
    await page.getByRole("group", { name: /^tags/ }).getByLabel("audit").check();
    await page.screenshot({ path: `${ARTIFACTS}nested-form.png`, fullPage: true });
    await page.getByRole("button", { name: "Submit answer" }).click();
    await page.waitForSelector(".state-outcome");
    const toolMessage = (await agents.listMessages({ runId })).messages.find((m) => m.role === "tool");
    expect(JSON.parse(toolMessage!.content as string)).toEqual({
      decision: "approve",
      contact: { email: "ops@example.com", callbackOn: "2026-12-24" },
      items: [{ sku: "SKU-1", qty: 3 }],
      tags: ["audit"],
    });
    await context.close();
  });

  it("shows each gated call of an approval request and takes a decision per call: approve one, edit another in the form generated from its schema, reject a third", async () => {
    const runId = uid("gated-page");
    h.model.script(runId, [
      {
        toolCalls: [
          { name: "payInvoice", arguments: { vendor: "Acme Robotics", amountEur: 120, priority: "normal" } },
          { name: "payInvoice", arguments: { vendor: "Globex", amountEur: 2500, priority: "low" } },
          { name: "payInvoice", arguments: { vendor: "Mallory Ltd", amountEur: 9000, priority: "high" } },
        ],
      },
      {
        check: (req) => {
          const results = req.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
          expect(results).toHaveLength(3);
          expect(results).toEqual(
            expect.arrayContaining(["paid Acme Robotics €120", "paid Globex €2000", expect.stringMatching(/^Rejected by fiona: "payInvoice" was not run\. Reason: not a supplier of ours/)]),
          );
        },
        text: "Paid two of three invoices.",
      },
    ]);
    expect((await agents.run(finance, { prompt: runId, runId, principal: { id: "sam" } })).status).toBe("deferred");
    const link = await sentLink(runId);
    const { context, page } = await as("fiona");
    await page.goto(link);
    const calls = [1, 2, 3].map((n) => page.getByRole("group", { name: new RegExp(`^Call ${n} of 3: payInvoice`) }));
    expect(await calls[0]!.locator("pre").textContent()).toContain('"vendor": "Acme Robotics"');
    expect(await calls[2]!.locator("pre").textContent()).toContain('"amountEur": 9000');
    const unlabelled = await page.locator("input:not([type=hidden]), select, textarea").evaluateAll((els) => els.filter((el) => !(el as unknown as { labels?: { length: number } }).labels?.length).length);
    expect(unlabelled).toBe(0);

    // Nothing chosen: the form comes back saying so (any call may wait, not all of them), and nothing ran.
    const [refused] = await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Submit decisions" }).click()]);
    expect(refused!.status()).toBe(400);
    const errors = await page.textContent(".errors");
    expect(errors).toContain("Choose a decision for at least one call: the others can be decided later.");
    expect(paid.filter((p) => p.runId === runId)).toEqual([]);

    await calls[0]!.getByLabel("Approve", { exact: true }).check();
    // The edit form is generated from the tool's input schema and starts from the model's arguments.
    await calls[1]!.getByText("Edit the input").click();
    const amount = calls[1]!.getByLabel(/^amountEur/);
    expect([await amount.inputValue(), await amount.getAttribute("type"), await amount.getAttribute("max")]).toEqual(["2500", "number", "10000"]);
    // Each field is labelled with its key as the schema spells it, not a rewording of it.
    expect(await calls[1]!.locator(`label[for="${await amount.getAttribute("id")}"]`).textContent()).toMatch(/^amountEur\b/);
    expect(await calls[1]!.getByLabel(/^vendor/).inputValue()).toBe("Globex");
    await amount.fill("2000");
    await calls[1]!.getByLabel(/^priority/).selectOption({ label: "high" });
    await calls[1]!.getByLabel("Approve with the edited input below").check();
    await calls[2]!.getByLabel("Reject", { exact: true }).check();
    await calls[2]!.getByLabel(/Reason for rejecting/).fill("not a supplier of ours");
    await page.screenshot({ path: `${ARTIFACTS}gated-calls.png`, fullPage: true });
    await page.getByRole("button", { name: "Submit decisions" }).click();
    await page.waitForSelector(".state-outcome");
    expect(await page.textContent("main")).toContain("Paid two of three invoices.");

    // The approved calls run side by side, so in either order.
    const ranHere = paid.filter((p) => p.runId === runId);
    expect(ranHere).toHaveLength(2);
    expect(ranHere).toEqual(
      expect.arrayContaining([
        { runId, vendor: "Acme Robotics", amountEur: 120, priority: "normal" },
        { runId, vendor: "Globex", amountEur: 2000, priority: "high" },
      ]),
    );
    h.model.assertNoFailures();
    // Decided: the link now shows the outcome, and nothing runs again.
    await page.goto(link);
    expect(await page.textContent("main")).toContain("Already answered");
    expect(paid.filter((p) => p.runId === runId)).toHaveLength(2);
    await context.close();
  });

  it("decides one call alone and leaves the other for later: it runs at once, the link then shows it decided and asks only for the rest", async () => {
    const runId = uid("per-call-page");
    h.model.script(runId, [
      { toolCalls: [{ name: "payInvoice", arguments: { vendor: "Acme Robotics", amountEur: 120, priority: "normal" } }, { name: "payInvoice", arguments: { vendor: "Globex", amountEur: 2500, priority: "low" } }] },
      {
        check: (req) => expect(req.messages.filter((m) => m.role === "tool").map((m) => String(m.content))).toEqual(["paid Acme Robotics €120", expect.stringMatching(/^Rejected by fiona: "payInvoice" was not run\. Reason: later quarter/)]),
        text: "Paid one of two invoices.",
      },
    ]);
    expect((await agents.run(finance, { prompt: runId, runId, principal: { id: "sam" } })).status).toBe("deferred");
    const link = await sentLink(runId);
    const { context, page } = await as("fiona");
    await page.goto(link);
    const calls = [1, 2].map((n) => page.getByRole("group", { name: new RegExp(`^Call ${n} of 2: payInvoice`) }));
    await calls[0]!.getByLabel("Approve", { exact: true }).check();
    await page.getByRole("button", { name: "Submit decisions" }).click();
    await page.waitForSelector(".state-outcome");
    // The first call ran right away; the model waits for the second, and the page says the same request still waits.
    expect(await page.textContent("main")).toContain("other calls still wait for a decision");
    expect(await page.textContent("main")).not.toContain("waiting for another decision");
    expect(paid.filter((p) => p.runId === runId)).toEqual([{ runId, vendor: "Acme Robotics", amountEur: 120, priority: "normal" }]);
    expect(h.model.requests.filter((r) => r.conversation === runId)).toHaveLength(1);

    // The same link: the decided call is shown as such, with nothing to choose; the other is asked for.
    await page.goto(link);
    expect(await calls[0]!.textContent()).toContain("Decided already: approved");
    expect(await calls[0]!.locator("input[type=radio]").count()).toBe(0);
    await calls[1]!.getByLabel("Reject", { exact: true }).check();
    await calls[1]!.getByLabel(/Reason for rejecting/).fill("later quarter");
    await page.getByRole("button", { name: "Submit decisions" }).click();
    await page.waitForSelector(".state-outcome");
    expect(await page.textContent("main")).toContain("Paid one of two invoices.");
    expect(paid.filter((p) => p.runId === runId)).toHaveLength(1);
    h.model.assertNoFailures();
    await context.close();
  });

  it("takes a person's answer in a tool's place: a result form generated from the tool's resultSchema, a text for a tool without one; neither tool runs", async () => {
    const runId = uid("respond-page");
    h.model.script(runId, [
      { toolCalls: [{ name: "refundOrder", arguments: { order: "o-9" }, id: "refund" }, { name: "payInvoice", arguments: { vendor: "Initech", amountEur: 80, priority: "low" }, id: "pay" }] },
      {
        check: (req) => {
          const results = Object.fromEntries(req.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, String(m.content)]));
          expect(results).toEqual({ refund: JSON.stringify({ status: "refunded", reference: "cash desk 4" }), pay: "Paid by card at the counter." });
        },
        text: "Both settled by hand.",
      },
    ]);
    expect((await agents.run(finance, { prompt: runId, runId, principal: { id: "sam" } })).status).toBe("deferred");
    const link = await sentLink(runId);
    const { context, page } = await as("fiona");
    await page.goto(link);
    const [refund, pay] = [1, 2].map((n) => page.getByRole("group", { name: new RegExp(`^Call ${n} of 2: `) }));
    const unlabelled = await page.locator("input:not([type=hidden]), select, textarea").evaluateAll((els) => els.filter((el) => !(el as unknown as { labels?: { length: number } }).labels?.length).length);
    expect(unlabelled).toBe(0);
    // Responding without a result: the form comes back saying so, and nothing ran.
    await refund!.getByLabel(/Answer in the tool's place/).check();
    await pay!.getByLabel(/Answer in the tool's place/).check();
    const [refused] = await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Submit decisions" }).click()]);
    expect(refused!.status()).toBe(400);
    expect(await page.textContent(".errors")).toContain("Call 2 (payInvoice): write the result the model should read in the tool's place");
    // The form comes back with the choices kept and the result forms open.
    await refund!.getByLabel(/^status/).selectOption({ label: "refunded" });
    await refund!.getByLabel(/^reference/).fill("cash desk 4");
    await pay!.getByLabel(/^Result/).fill("Paid by card at the counter.");
    await page.screenshot({ path: `${ARTIFACTS}respond-calls.png`, fullPage: true });
    await page.getByRole("button", { name: "Submit decisions" }).click();
    await page.waitForSelector(".state-outcome");
    expect(await page.textContent("main")).toContain("Both settled by hand.");
    expect(paid.filter((p) => p.runId === runId)).toEqual([]);
    h.model.assertNoFailures();
    await context.close();
  });

  it("shows text with Unicode direction overrides as their escapes, as the CLI prints it: the arguments, a title built from them, an edit field's starting value and the outcome", async () => {
    const BIDI = /[\u202a-\u202e\u2066-\u2069]/;
    // Shown raw, "\u202e…\u202c" displays "Acme 00 0130 2350 4400 4073 98ED": a reordered IBAN.
    const vendor = "Acme DE89 \u202e3704 0044 0532 0130 00\u202c";
    const runId = uid("bidi");
    h.model.script(runId, [{ toolCalls: [{ name: "requestPayout", arguments: { vendor, amountEur: 10 } }] }, { text: "Paid \u2067gnissim\u2069." }]);
    expect((await agents.run(finance, { prompt: runId, runId, principal: { id: "sam" } })).status).toBe("deferred");
    const { context, page } = await as("fiona");
    await page.goto(approvalUrl(`${http.url}/approve`, links.get(runId)!));
    expect(await page.content()).not.toMatch(BIDI);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Approve €10 to Acme DE89 \\u202e3704 0044 0532 0130 00\\u202c?");
    expect(await page.locator("dl.details pre").textContent()).toContain('"vendor": "Acme DE89 \\u202e3704 0044 0532 0130 00\\u202c"');
    await page.getByRole("group", { name: /^approved/ }).getByLabel("Yes").check();
    await page.getByLabel(/^priority/).selectOption({ label: "low" });
    await page.getByLabel(/^amount/).fill("10");
    await page.getByRole("button", { name: "Submit answer" }).click();
    await page.waitForSelector(".state-outcome");
    expect(await page.textContent("blockquote")).toBe("Paid \\u2067gnissim\\u2069.");
    expect(await page.content()).not.toMatch(BIDI);

    // A gated call: its arguments, and the edit form that starts from them. Approved as it is, it runs as the model wrote it.
    const gated = uid("bidi-gated");
    h.model.script(gated, [{ toolCalls: [{ name: "payInvoice", arguments: { vendor, amountEur: 20, priority: "low" } }] }, { text: "paid" }]);
    expect((await agents.run(finance, { prompt: gated, runId: gated, principal: { id: "sam" } })).status).toBe("deferred");
    await page.goto(await sentLink(gated));
    expect(await page.content()).not.toMatch(BIDI);
    const call = page.getByRole("group", { name: /^Call 1 of 1: payInvoice/ });
    expect(await call.locator("pre").textContent()).toContain("\\u202e3704");
    await call.getByText("Edit the input").click();
    expect(await call.getByLabel(/^vendor/).inputValue()).toBe("Acme DE89 \\u202e3704 0044 0532 0130 00\\u202c");
    await call.getByLabel("Approve", { exact: true }).check();
    await page.getByRole("button", { name: "Submit decisions" }).click();
    await page.waitForSelector(".state-outcome");
    expect(paid.filter((p) => p.runId === gated)).toEqual([{ runId: gated, vendor, amountEur: 20, priority: "low" }]);
    await context.close();
  });

  it("lets a custom renderer replace the page, under the same strict headers", async () => {
    const { runId, link } = await deferredRun();
    const custom = await startHttp({
      agents,
      approvalPage: { render: (view) => `<!doctype html><title>${view.state}</title><p id="custom">${view.state}: ${view.toolName} with ${Object.keys(view.hidden).join(",")}</p>` },
    });
    try {
      const { context, page } = await as("fiona");
      const response = await page.goto(link.replace(`${http.url}/approve`, `${custom.url}/approve`));
      expect(await page.textContent("#custom")).toBe("form: requestPayout with ref,shown");
      expect(response!.headers()["content-security-policy"]).toMatch(/default-src 'none'/);
      expect(response!.headers()["cache-control"]).toBe("no-store");
      await context.close();
    } finally {
      await custom.close();
    }
    expect((await agents.state({ runId })).status).toBe("deferred");
  });

  it("shows the expiry page for an expired link", async () => {
    const { runId, link } = await deferredRun("1s");
    await expect(agents.result({ runId })).rejects.toMatchObject({ code: "RC5047" });
    const { context, page } = await as("fiona");
    await page.goto(link);
    const response = await page.reload();
    expect(response!.status()).toBe(410);
    expect(await page.textContent("main")).toContain("This approval link has expired");
    await page.screenshot({ path: `${ARTIFACTS}expired.png`, fullPage: true });
    await context.close();
  });

  it("shows a principal refused by authorize the refusal, and the run stays deferred", async () => {
    const { runId, link } = await deferredRun();
    const { context, page } = await as("ian");
    await page.goto(link);
    const response = await page.reload();
    expect(response!.status()).toBe(403);
    expect(await page.textContent("main")).toContain("You may not answer this request");
    expect(await page.locator("form").count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}refused.png`, fullPage: true });
    expect((await agents.state({ runId })).status).toBe("deferred");
    expect((await agents.deferrals.get({ deferralId: (await agents.state({ runId })).deferralId! })).status).toBe("deferred");
    await context.close();
  });

  it("shows a withdrawn request's page once the run was cancelled (its deferral denied)", async () => {
    const { runId, link } = await deferredRun();
    await agents.cancel({ runId, reason: "withdrawn by the requester" });
    const { context, page } = await as("fiona");
    await page.goto(link);
    const response = await page.reload();
    expect(response!.status()).toBe(409);
    expect(await page.textContent("main")).toContain("This request was withdrawn");
    expect(await page.locator("form").count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}denied.png`, fullPage: true });
    await context.close();
  });

  it("refuses a form posted from another site (CSRF) and changes nothing", async () => {
    const { runId, link } = await deferredRun();
    const { context, page } = await as("fiona");
    await page.goto(link);
    const target = page.url();
    await page.goto(`${evilUrl}?target=${encodeURIComponent(target)}`);
    const [response] = await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "win a prize" }).click()]);
    expect(response!.status()).toBe(403);
    expect(await page.textContent("body")).toContain("AI1043");
    await page.screenshot({ path: `${ARTIFACTS}csrf-refused.png`, fullPage: true });
    expect((await agents.state({ runId })).status).toBe("deferred");
    await context.close();
  });
});
