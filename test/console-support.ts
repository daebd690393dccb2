/**
 * What the console's browser tests share: a page signed in as a test person (the `x-user`
 * header the tests' `authenticate` reads), and a reload until the page shows what the test
 * waits for (visibility trails writes by a moment; a run parks a moment after its start returns).
 */
import type { Browser, Page } from "playwright-core";
import { vi } from "vitest";

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
