/**
 * Issue #50's "Done when", walked in Chromium: a newcomer starts `npm run serve` (the demo in
 * its serve mode, against the suite's server), opens the console it prints, finds the parked
 * payout in the list, reads why it waits and what it cost so far, follows the page's own link
 * to decide, approves in the inbox as the approver the demo signs in by default (Fiona), and
 * watches the run's page reach completed with the answer without reloading it. Everything is
 * done in the browser; the demo's own output is read only for its address and, at the end, to
 * count the payouts it made.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { launchChromium } from "./chromium.js";
import { reloadUntil } from "./console-support.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const ARTIFACTS = new URL("../test-artifacts/console/", import.meta.url).pathname;

let browser: Browser;
let demo: ChildProcess | undefined;
let out = "";
let errors = "";

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  // A test that failed midway leaves the demo waiting for the run: it is stopped outright.
  await stopDemo("SIGKILL");
});

/** Ctrl-C, as the demo tells its reader once the run ended: it shuts its worker, server and model down and exits. */
async function stopDemo(signal: "SIGINT" | "SIGKILL"): Promise<number | null> {
  const child = demo;
  demo = undefined;
  if (!child || child.exitCode !== null) return child?.exitCode ?? null;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill(signal);
  return exited;
}

/** Resolves with the first match of `pattern` in the demo's output, as soon as it is printed. */
function printed(pattern: RegExp): Promise<RegExpMatchArray> {
  return vi.waitFor(
    () => {
      const match = pattern.exec(out);
      if (match) return match;
      if (demo?.exitCode !== null) throw new Error(`the demo exited before printing ${pattern}:\n${out}\n${errors}`);
      throw new Error(`the demo has not printed ${pattern} yet:\n${out}\n${errors}`);
    },
    { timeout: 90_000, interval: 100 },
  );
}

describe("npm run serve, in a browser", () => {
  it("finds the parked payout in the console, shows why it waits and what it cost, decides it in the inbox and shows it finish live", async () => {
    const env = { ...process.env, TEMPORAL_ADDRESS: inject("temporalAddress"), TEMPORAL_NAMESPACE: inject("temporalNamespace"), PORT: "0", OPENAI_API_KEY: "" };
    // PORT=0: the demo serves on a port it got (one probed free here could be taken before it binds), and the test opens the address it prints.
    // One process (tsx as a loader, not its CLI's child process), so stopping it stops the demo.
    demo = spawn(process.execPath, ["--import", "tsx", "examples/demo.ts", "--serve"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    demo.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    demo.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
    const [, runId] = await printed(/Console \(the run, its conversation and timeline\): http:\/\/[^/\s]+\/console\/runs\/(demo-[\w-]+)/);
    // The address a newcomer opens: the console's list, not the run's page.
    const [, consoleUrl] = await printed(/Console \(every run and thread; this one waits on an approval\): (http:\/\/[^/\s]+\/console)\n/);

    // The demo's browser is Fiona, the finance approver (no header: its default sign-in).
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();

    // 1. The list: the payout's row says it waits on an approval (visibility trails the park by a moment).
    const row = page.locator(`tr.row[data-id="${runId}"]`);
    await reloadUntil(page, consoleUrl!, async () => (await row.locator(".badge.waiting").count()) === 1, "the parked payout's row");
    expect(await row.locator(".badge.waiting").textContent()).toBe("waiting on an approval");
    expect(await row.getByText("payouts", { exact: true }).count()).toBe(1);
    // A badge, not the run page's notice box: no border of its own.
    expect(await row.locator(".badge.waiting").evaluate((b) => getComputedStyle(b).borderTopWidth)).toBe("0px");
    await page.screenshot({ path: `${ARTIFACTS}demo-1-list.png`, fullPage: true });

    // 2. Its page: why it waits (the tool, its arguments, who must decide) and what it cost so far.
    await Promise.all([page.waitForURL(new RegExp(`/console/runs/${runId}$`)), row.getByRole("link", { name: runId }).click()]);
    expect(await page.locator("#status").textContent()).toBe("running");
    // The console's nav is on the run's page too, no section marked as the current page.
    const nav = page.getByRole("navigation", { name: "Console" });
    expect(await nav.getByRole("link").allTextContents()).toEqual(["All", "Runs", "Threads", "Approvals"]);
    expect(await nav.locator("[aria-current]").count()).toBe(0);
    const waiting = page.getByRole("region", { name: "Waiting" });
    expect(await waiting.textContent()).toMatch(/sendPayout[\s\S]*"invoiceId":"INV-1042"[\s\S]*"amountEur":4200[\s\S]*payouts:approve/);
    const cost = page.getByRole("region", { name: "What it cost" });
    expect(Number(await page.locator("#billed-actions").textContent())).toBeGreaterThan(0);
    expect(await cost.textContent()).toMatch(/\d+ billed actions: [\s\S]*\d+ tokens in, \d+ out/);
    expect(await page.locator("tr.turn").count()).toBe(2);
    await page.screenshot({ path: `${ARTIFACTS}demo-2-parked.png`, fullPage: true });
    // The first screenful, as docs/console.md's "First five minutes" shows it.
    await page.screenshot({ path: `${ARTIFACTS}demo-2-parked-top.png` });

    // 3. The page's own link to decide, opened beside it (a new tab), so the run's page stays open and live.
    // Without the link the walk stops here (a click would wait for it until the test's timeout).
    expect(await waiting.getByRole("link", { name: "Open the request to decide it" }).count()).toBe(1);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    const [inbox] = await Promise.all([context.waitForEvent("page"), waiting.getByRole("link", { name: "Open the request to decide it" }).click({ modifiers: ["ControlOrMeta"] })]);
    await inbox.waitForLoadState();
    expect(new URL(inbox.url()).pathname).toMatch(/^\/inbox\//);
    const call = inbox.getByRole("group", { name: /^Call 1 of 1: sendPayout/ });
    expect(await call.textContent()).toContain("INV-1042");
    await inbox.screenshot({ path: `${ARTIFACTS}demo-3-decide.png`, fullPage: true });
    await call.getByLabel("Approve", { exact: true }).check();
    await inbox.getByRole("button", { name: "Submit decisions" }).click();
    await inbox.waitForSelector(".state-outcome");
    await inbox.screenshot({ path: `${ARTIFACTS}demo-4-decided.png`, fullPage: true });
    await inbox.close();

    // 4. Back on the run's page: it follows the run to its end, with the answer, in the same document.
    await page.bringToFront();
    await page.locator("#status", { hasText: "completed" }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    expect(await page.locator("li.message.assistant").last().textContent()).toContain("Invoice INV-1042 (€4200 to Acme Robotics) was approved and paid: reference PAY-INV-1042.");
    expect(await page.locator("li.event.decision").textContent()).toMatch(/Decided by fiona/);
    expect(await page.getByRole("link", { name: "Open the request to decide it" }).count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}demo-5-completed.png`, fullPage: true });
    await context.close();

    // The demo saw the same: one payout, made after Fiona's decision.
    await printed(/Answer: Invoice INV-1042/);
    expect(out.match(/\[tool\] sendPayout/g)).toHaveLength(1);
    expect(out).toMatch(/\[tool\] sendPayout\(INV-1042, €4200\) as sam/);
    expect(await stopDemo("SIGINT")).toBe(0);
  }, 150_000);
});
