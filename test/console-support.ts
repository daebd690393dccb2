/**
 * What the console's browser tests share: their stack (Chromium, a worker, the front door), a page signed in as a test person (the `x-user`
 * header the tests' `authenticate` reads), and a reload until the page shows what the test
 * waits for (visibility trails writes by a moment; a run parks a moment after its start returns).
 */
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { vi } from "vitest";
import { defineAgent, type AgentClient, type ThreadsClient } from "../src/index.js";
import type { AgentStack } from "./agent-stack.js";
import { launchChromium } from "./chromium.js";
import { startHarness, type Harness } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";
import { askHuman, seen } from "./thread-support.js";

export async function pageAs(browser: Browser, user: string, width = 1280): Promise<Page> {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-user": user }, viewport: { width, height: 900 } });
  return context.newPage();
}

/** Opens `url` (unless undefined: the page as it is) and reloads it until `ready` holds, for 20 s at most. */
export async function reloadUntil(page: Page, url: string | undefined, ready: () => Promise<boolean>, what = "the page to show it"): Promise<void> {
  if (url !== undefined) await page.goto(url);
  await vi.waitFor(
    async () => {
      if (await ready()) return;
      await page.reload();
      throw new Error(`still waiting for ${what} at ${page.url()}`);
    },
    { timeout: 20_000, interval: 100 },
  );
}

/** Where the console's tests save screenshots (git-ignored; `.ci/run` keeps them as artifacts). */
/** A thread agent that asks a human with `askHuman` (an async tool: the answer comes later, or never). */
export const deskAgent = (id: string) => defineAgent({ id, model: "gpt-4.1-mini", system: "You ask.", tools: [askHuman], maxTurns: 4 });

/**
 * The call `askHuman` made in a thread and the answer token its callback got. Waited for: the
 * thread's status says the tool waits before the callback has run.
 */
export function askedIn(threadId: string): Promise<{ toolCallId: string; token: string }> {
  return vi.waitFor(
    () => {
      const call = seen.find((s) => s.tool === "askHuman" && s.threadId === threadId && s.token !== undefined);
      if (!call) throw new Error(`askHuman has not been called in ${threadId} yet`);
      return { toolCallId: call.toolCallId, token: call.token! };
    },
    { timeout: 20_000, interval: 50 },
  );
}

export const ARTIFACTS = new URL("../test-artifacts/console/", import.meta.url).pathname;

export interface ConsoleStack {
  h: Harness;
  agents: AgentClient;
  threads: ThreadsClient;
  http: HttpServer;
  browser: Browser;
  /** Stops the browser, the front door and the harness. */
  close(): Promise<void>;
}

/** Chromium, a harness with one worker for `agentDefs`, and the front door over its client (`http` given the client). */
export async function consoleStack(
  agentDefs: Parameters<AgentStack["worker"]>[0],
  worker: Parameters<AgentStack["worker"]>[1],
  http: Omit<Parameters<typeof startHttp>[0], "agents">,
): Promise<ConsoleStack> {
  const browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  const h = await startHarness();
  const { agents } = await h.worker(agentDefs, worker);
  const server = await startHttp({ agents, ...http });
  return {
    h,
    agents,
    threads: agents.threads,
    http: server,
    browser,
    async close() {
      await browser.close();
      await server.close();
      await h.close();
    },
  };
}
