import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, uid, type Harness } from "./harness.js";
import { chatRig, launchChromium, openAs, recordStreamingRenders, streamingRenders, type ChatRig } from "./chat-support.js";

/** Screenshots for a person to look at; git-ignored. */
const ARTIFACTS = new URL("../test-artifacts/chat/", import.meta.url).pathname;

let h: Harness;
let rig: ChatRig;
let browser: Browser;

beforeAll(async () => {
  h = await startHarness();
  rig = await chatRig(h);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await rig?.close();
  await h?.close();
});

/** A new thread owned by sam, and the page on it. */
async function chatPage(query = "user=sam") {
  const { threadId } = await rig.agents.threads.createThread({ principal: { id: "sam" } });
  const { context, page } = await openAs(browser, `${rig.app.url}?${query}#${encodeURIComponent(threadId)}`);
  await page.getByTestId(query.includes("usechat") ? "usechat-status" : "status").waitFor();
  return { threadId, context, page };
}

const ANSWER =
  "Durable threads keep every word: this answer streams a few characters at a time, survives a reload, and ends exactly as the model wrote it.";

describe("the chat example in a browser", () => {
  it("shows the answer arriving in several renders, then the final message", async () => {
    const prompt = uid("stream");
    h.model.script(prompt, [{ text: ANSWER, chunkDelayMs: 40 }]);
    const { page, context } = await chatPage();
    await recordStreamingRenders(page);
    await page.getByLabel("Message").fill(prompt);
    await page.getByLabel("Message").press("Enter");

    await page.getByTestId("status").filter({ hasText: "completed" }).waitFor();
    const answer = page.locator('[data-role="assistant"]').last();
    await expect(answer.textContent()).resolves.toBe(ANSWER);
    await expect(page.locator("[data-streaming]").count()).resolves.toBe(0);
    const renders = await streamingRenders(page);
    const intermediate = renders.filter((text) => text !== ANSWER);
    expect(intermediate.length).toBeGreaterThanOrEqual(2);
    // Each render extends the last: nothing repeated, nothing lost.
    for (const text of renders) expect(ANSWER.startsWith(text)).toBe(true);
    await expect(page.locator('[data-role="user"]').textContent()).resolves.toBe(prompt);
    await page.screenshot({ path: `${ARTIFACTS}streamed.png` });
    await context.close();
    h.model.assertNoFailures();
  });
});
