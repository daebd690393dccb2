/**
 * Chat test plumbing: the chat example's agent on a real worker, its app server (front door
 * and the page through Vite), and pages in a browser (./chromium.ts finds it).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { AgentClient } from "../src/index.js";
import { chatAgentClient } from "../examples/chat/access.js";
import { supportAgent } from "../examples/chat/agent.js";
import { startChatApp, type ChatApp } from "../examples/chat/app-server.js";
import { SECRET, type Harness } from "./harness.js";

export interface ChatRig {
  agents: AgentClient;
  app: ChatApp;
  close(): Promise<void>;
}

/** A worker for the example's agent on a fresh queue, and the example's server in front of it. */
export async function chatRig(h: Harness): Promise<ChatRig> {
  const { agents: plain, taskQueue } = await h.worker([supportAgent], { deferral: { secret: SECRET } });
  // The example's own client and hook, as `npm run chat` builds them.
  const agents = chatAgentClient({ client: plain.client, taskQueue, secret: SECRET });
  const app = await startChatApp({ agents });
  return { agents, app, close: () => app.close() };
}

/** A fresh browser context (its own storage, like another person's browser) on the app as `user`. */
export async function openAs(browser: Browser, url: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on("pageerror", (err) => console.error(`[page] ${err.message}`));
  await page.goto(url);
  return { context, page };
}

/**
 * Records, in the page, every text the streaming answer showed (one entry per DOM change),
 * so a test can count intermediate renders without racing them.
 */
export async function recordStreamingRenders(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: string[] = ((window as any).__renders = []);
    new MutationObserver(() => {
      const el = document.querySelector("[data-streaming] .text");
      const text = el?.textContent ?? "";
      if (text && seen.at(-1) !== text) seen.push(text);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

export const streamingRenders = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).__renders as string[]);
