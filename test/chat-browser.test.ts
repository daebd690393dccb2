import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PEOPLE } from "../examples/chat/access.js";
import { effects, exportPace, SUMMARIZER_SYSTEM } from "../examples/chat/agent.js";
import { scriptedReplies } from "../examples/chat/scripted-replies.js";
import type { Hold } from "../src/testing/index.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { chatRig, openAs, recordStreamingRenders, streamingRenders, type ChatRig } from "./chat-support.js";
import { launchChromium } from "./chromium.js";

/** Screenshots for a person to look at; git-ignored. */
const ARTIFACTS = new URL("../test-artifacts/chat/", import.meta.url).pathname;

let h: Harness;
let rig: ChatRig;
let browser: Browser;

beforeAll(async () => {
  // First: without a browser the file fails at once, saying what to install.
  browser = await launchChromium();
  h = await startHarness();
  rig = await chatRig(h);
});
afterAll(async () => {
  await browser?.close();
  await rig?.close();
  await h?.close();
});

/** What the example's acting tools did in a thread: each entry one handler run. */
const effectsIn = (threadId: string) => effects.filter((e) => e.threadId === threadId).map(({ tool, order }) => ({ tool, order }));

/** Counts the decisions the page sends (`POST …/approvals/…`), from now on. */
function countDecisions(page: Page): string[] {
  const posts: string[] = [];
  page.on("request", (r) => void (r.method() === "POST" && r.url().includes("/approvals/") && posts.push(r.url())));
  return posts;
}

/** A new thread owned by sam, and the page on it. */
async function chatPage(query = "user=sam") {
  const { threadId } = await rig.agents.threads.createThread({ principal: { id: "sam" } });
  const { context, page } = await openAs(browser, `${rig.app.url}?${query}#${encodeURIComponent(threadId)}`);
  await page.getByTestId(query.includes("usechat") ? "usechat-status" : "status").waitFor();
  return { threadId, context, page };
}

const ANSWER =
  "Durable threads keep every word: this answer streams a few characters at a time, survives a reload, and ends exactly as the model wrote it.";

/** What the streaming answer shows now ("" when nothing streams). */
const streamingText = (page: Page) => page.evaluate(() => document.querySelector("[data-streaming] .text")?.textContent ?? "");

/** Lets each held piece of the answer out once the page shows the answer up to it. */
async function releaseAsShown(page: Page, pieces: Array<{ hold: Hold; afterChars: number }>): Promise<void> {
  for (const { hold, afterChars } of pieces) {
    await expect.poll(async () => (await streamingText(page)).length, { timeout: 30_000, interval: 20 }).toBeGreaterThanOrEqual(afterChars);
    hold.release();
  }
}

describe("the chat example in a browser", () => {
  it("shows the answer arriving in several renders, then the final message", async () => {
    const prompt = uid("stream");
    // The answer comes out in three pieces, each once the page shows the one before.
    const pieces = [24, 64].map((afterChars) => ({ hold: h.model.hold(), afterChars }));
    h.model.script(prompt, [{ text: ANSWER, holds: pieces }]);
    const { page, context } = await chatPage();
    await recordStreamingRenders(page);
    await page.getByLabel("Message").fill(prompt);
    await page.getByLabel("Message").press("Enter");
    await releaseAsShown(page, pieces);

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

  it("stops mid-answer: the status becomes stopped and the partial text is gone; resume completes the answer", async () => {
    const prompt = uid("stop");
    // The answer stops part-way; only the stop ends it. Released afterwards, the hold lets the resumed call through.
    const hold = h.model.hold();
    h.model.script(prompt, [{ text: ANSWER, hold, holdAfterChars: 24 }]);
    const { page, context, threadId } = await chatPage();
    await page.getByLabel("Message").fill(prompt);
    await page.getByLabel("Message").press("Enter");
    await page.locator("[data-streaming] .text").waitFor();
    await page.getByRole("button", { name: "Stop" }).click();

    await page.getByTestId("status").filter({ hasText: "stopped" }).waitFor();
    await expect(page.locator("[data-streaming]").count()).resolves.toBe(0);
    await expect(page.locator('[data-role="assistant"]').count()).resolves.toBe(0);
    // The model's request is cut while it streams (the activity hears the stop on its next heartbeat), not left to finish.
    await expect.poll(() => h.model.aborted.some((a) => a.conversation === prompt), { timeout: 10_000 }).toBe(true);
    hold.release();
    expect((await rig.agents.threads.listMessages({ threadId, principal: { id: "sam" } })).messages.map((m) => m.role)).toEqual(["user"]);
    await page.screenshot({ path: `${ARTIFACTS}stopped.png` });

    await page.getByRole("button", { name: "Resume" }).click();
    await page.getByTestId("status").filter({ hasText: "completed" }).waitFor();
    await expect(page.locator('[data-role="assistant"]').textContent()).resolves.toBe(ANSWER);
    await context.close();
  });

  it("continues after a reload mid-stream, and the final text is exactly the model's answer", async () => {
    const prompt = uid("reload");
    // The answer stops part-way until the reloaded page shows it again.
    const hold = h.model.hold();
    h.model.script(prompt, [{ text: ANSWER, hold, holdAfterChars: 24 }]);
    const { page, context } = await chatPage();
    await recordStreamingRenders(page);
    await page.getByLabel("Message").fill(prompt);
    await page.getByLabel("Message").press("Enter");
    await page.locator("[data-streaming] .text").waitFor();
    const before = await streamingRenders(page);

    await page.reload();
    await recordStreamingRenders(page);
    await page.locator("[data-streaming] .text").waitFor();
    hold.release();
    await page.getByTestId("status").filter({ hasText: "completed" }).waitFor();
    await expect(page.locator('[data-role="assistant"]').textContent()).resolves.toBe(ANSWER);
    const after = await streamingRenders(page);
    // Before and after the reload, every render is a prefix of the answer: no chunk twice, none skipped.
    for (const text of [...before, ...after]) expect(ANSWER.startsWith(text)).toBe(true);
    expect(before.length).toBeGreaterThan(0);
    await context.close();
    h.model.assertNoFailures();
  });

  it("shows a long task's progress inside its call while it runs, each page as it comes, and the result once it is done", async () => {
    const prompt = uid("export");
    h.model.script(prompt, [{ toolCalls: [{ name: "exportOrderHistory", arguments: {} }] }, { text: "Your order history is ready." }]);
    // Each page of the export waits for the test, which lets it go once the page shows the report before it.
    const waiting: Array<() => void> = [];
    const pace = { ...exportPace };
    exportPace.pages = 3;
    exportPace.page = () => new Promise<void>((resolve) => void waiting.push(resolve));
    try {
      const { page, context } = await chatPage();
      await page.getByLabel("Message").fill(prompt);
      await page.getByLabel("Message").press("Enter");
      const call = page.locator('[data-tool="exportOrderHistory"]');
      for (let done = 0; done < 3; done++) {
        await call.locator(".progress").filter({ hasText: `reading page ${done + 1} (${done} of 3)` }).waitFor({ timeout: 20_000 });
        expect(await call.getAttribute("data-state")).toBe("input-available");
        if (done === 1) await page.screenshot({ path: `${ARTIFACTS}progress.png` });
        await expect.poll(() => waiting.length, { timeout: 20_000, interval: 20 }).toBe(done + 1);
        waiting[done]!();
      }
      await page.getByTestId("status").filter({ hasText: "completed" }).waitFor();
      // The result is the record: the preview is gone once the call has it.
      expect(await call.getAttribute("data-state")).toBe("output-available");
      expect(await call.locator(".progress").count()).toBe(0);
      expect(await page.locator('[data-role="assistant"]').last().textContent()).toContain("Your order history is ready.");
      await context.close();
      h.model.assertNoFailures();
    } finally {
      Object.assign(exportPace, pace);
      for (const release of waiting) release();
    }
  });

  it("shows where a long chat compacted: the earlier messages stay on the page, the summary the model now reads is marked below them", async () => {
    const tag = uid("long-chat");
    const { page, context, threadId } = await chatPage();
    // Summaries as the example's scripted model writes them; this chat's turns answered at length.
    h.model.respondToAny((request, turn) => {
      if (request.messages[0]?.content === SUMMARIZER_SYSTEM) return scriptedReplies(request, turn);
      const last = String(request.messages.at(-1)?.content ?? "");
      if (!last.includes(tag)) throw new Error(`no script for ${request.conversation}`);
      return { text: `About ${last.slice(0, 40)}: ${"the details. ".repeat(120)}` };
    });
    const sam = { principal: { id: "sam" } };
    const compacted = async () => (await rig.agents.threads.streamUpdates({ threadId, ...sam })).updates.some((u) => u.type === "compacted");
    let turns = 0;
    while (!(await compacted())) {
      expect(turns).toBeLessThan(8);
      await rig.agents.threads.sendMessage({ threadId, prompt: `question ${++turns} of ${tag}`, ...sam });
      expect(await rig.agents.threads.settled({ threadId, ...sam })).toMatchObject({ status: "completed" });
    }
    const summary = page.locator("[data-summary]");
    await summary.waitFor({ timeout: 20_000 });
    await summary.locator("summary").click();
    expect(await summary.textContent()).toContain(`"question 1 of ${tag}"`);
    // The first question is still on the page, above the summary; the newest is below it.
    const texts = await page.locator('[data-role="user"], [data-summary]').evaluateAll((els) => els.map((el) => (el.hasAttribute("data-summary") ? "summary" : el.textContent)));
    expect(texts[0]).toBe(`question 1 of ${tag}`);
    expect(texts.indexOf("summary")).toBeGreaterThan(0);
    expect(texts.at(-1)).toBe(`question ${turns} of ${tag}`);
    // The model's newest request read the summary, not the first question.
    const last = h.model.requests.filter((r) => r.messages.some((m) => String(m.content).includes(tag)) && r.messages[0]?.content !== SUMMARIZER_SYSTEM).at(-1)!;
    expect(last.messages.some((m) => String(m.content).startsWith("Summary of the earlier conversation:"))).toBe(true);
    expect(last.messages.some((m) => m.content === `question 1 of ${tag}`)).toBe(false);
    await page.screenshot({ path: `${ARTIFACTS}compacted.png`, fullPage: true });
    await context.close();
  });

  it("holds a refund for the manager, who approves it in the inbox; the customer's page sees the refund made once and the turn complete", async () => {
    const prompt = uid("refund");
    h.model.script(prompt, [{ toolCalls: [{ name: "issueRefund", arguments: { order: "1234", reason: prompt } }] }, { text: "Your refund was approved." }]);
    const { page, context, threadId } = await chatPage();
    await page.getByLabel("Message").fill(prompt);
    await page.getByLabel("Message").press("Enter");
    await page.getByTestId("waiting-card").waitFor();
    await expect(page.getByTestId("status").textContent()).resolves.toBe("awaiting_tool_results");
    await expect(page.locator('[data-tool="issueRefund"]').getAttribute("data-state")).resolves.toBe("approval-requested");
    expect(effectsIn(threadId)).toEqual([]);

    // The customer can neither decide it (it requires the manager) nor see it in the inbox.
    const [request] = (await rig.agents.threads.state({ threadId, principal: PEOPLE.sam })).approvals;
    const asSam = await page.evaluate(
      async ({ threadId, approvalId }) => {
        const decided = await fetch(`/agents/threads/${encodeURIComponent(threadId)}/approvals/${encodeURIComponent(approvalId)}`, {
          method: "POST",
          headers: { "x-user": "sam", "content-type": "application/json" },
          body: JSON.stringify({ decisions: [] }),
        });
        const inbox = await fetch("/agents/approvals", { headers: { "x-user": "sam" } });
        return { decided: decided.status, code: ((await decided.json()) as { error: { code: string } }).error.code, inbox: ((await inbox.json()) as { approvals: unknown[] }).approvals };
      },
      { threadId, approvalId: request!.approvalId },
    );
    expect(asSam).toEqual({ decided: 403, code: "AI1021", inbox: [] });

    const manager = await openAs(browser, `${rig.app.url}?user=mia`);
    const card = manager.page.getByTestId("approval-card").filter({ hasText: prompt });
    await card.waitFor();
    // Why the agent asks: the customer's message, read on demand (one GET /approvals/:id), for the manager who decides.
    await card.getByRole("button", { name: "Why?" }).click();
    await expect(card.getByTestId("why").textContent()).resolves.toBe(prompt);
    await manager.page.screenshot({ path: `${ARTIFACTS}approval-card.png` });
    await card.getByRole("button", { name: "Approve" }).click();
    await card.waitFor({ state: "detached" });

    await page.getByTestId("status").filter({ hasText: "completed" }).waitFor();
    await expect(page.locator('[data-role="assistant"] .text').last().textContent()).resolves.toBe("Your refund was approved.");
    await expect(page.locator('[data-tool="issueRefund"]').getAttribute("data-state")).resolves.toBe("output-available");
    await expect(page.getByTestId("waiting-card").count()).resolves.toBe(0);
    expect(effectsIn(threadId)).toEqual([{ tool: "issueRefund", order: "1234" }]);
    await page.screenshot({ path: `${ARTIFACTS}approved.png` });
    await manager.context.close();
    await context.close();
  });

  it("useAgentChat's confirm card: approving runs cancelOrder once, rejecting never, and a reload shows the card while it waits and the outcome after", async () => {
    for (const decision of ["Approve", "Reject"] as const) {
      const prompt = uid(`hooks-${decision}`);
      const order = decision === "Approve" ? "5101" : "5102";
      const after = decision === "Approve" ? `Order ${order} is cancelled.` : `Order ${order} stays as it is.`;
      h.model.script(prompt, [
        { toolCalls: [{ name: "cancelOrder", arguments: { order } }] },
        decision === "Approve"
          ? { text: after }
          : { check: (req) => expect(String(req.messages.at(-1)?.content)).toMatch(/^Rejected by sam: "cancelOrder" was not run\. Reason: the customer said no/), text: after },
      ]);
      const { page, context, threadId } = await chatPage();
      await page.getByLabel("Message").fill(prompt);
      await page.getByLabel("Message").press("Enter");
      await page.getByTestId("confirm-card").waitFor();
      await expect(page.locator('[data-tool="cancelOrder"]').getAttribute("data-state")).resolves.toBe("approval-requested");

      // Nothing decided yet: a reload shows the same card, and the tool has not run.
      await page.reload();
      await page.getByTestId("confirm-card").waitFor();
      await expect(page.getByTestId("status").textContent()).resolves.toBe("awaiting_tool_results");
      await expect(page.locator('[data-tool="cancelOrder"]').getAttribute("data-state")).resolves.toBe("approval-requested");
      expect(effectsIn(threadId)).toEqual([]);

      const posts = countDecisions(page);
      await page.getByTestId("confirm-card").getByRole("button", { name: decision }).click();
      await page.getByTestId("status").filter({ hasText: "completed" }).waitFor();
      const outcome = decision === "Approve" ? "output-available" : "output-denied";
      const ran = decision === "Approve" ? [{ tool: "cancelOrder", order }] : [];
      await expect(page.locator('[data-role="assistant"] .text').last().textContent()).resolves.toBe(after);
      await expect(page.locator('[data-tool="cancelOrder"]').getAttribute("data-state")).resolves.toBe(outcome);
      await expect(page.getByTestId("confirm-card").count()).resolves.toBe(0);
      expect(effectsIn(threadId)).toEqual(ran);

      await page.reload();
      await page.getByTestId("status").filter({ hasText: "completed" }).waitFor();
      await expect(page.locator('[data-role="assistant"] .text').last().textContent()).resolves.toBe(after);
      await expect(page.locator('[data-tool="cancelOrder"]').getAttribute("data-state")).resolves.toBe(outcome);
      await expect(page.getByTestId("confirm-card").count()).resolves.toBe(0);
      expect(posts).toHaveLength(1);
      expect(effectsIn(threadId)).toEqual(ran);
      await context.close();
    }
    h.model.assertNoFailures();
  });

  it("drives the same thread with the AI SDK's useChat through ThreadChatTransport", async () => {
    const first = uid("usechat");
    h.model.script(first, [{ text: ANSWER }, { text: "Second answer, through useChat too." }]);
    const { page, context, threadId } = await chatPage("user=sam&view=usechat");
    await page.getByLabel("Message").fill(first);
    await page.getByLabel("Message").press("Enter");
    const answers = page.locator('[data-role="assistant"]');
    await expect.poll(() => answers.last().textContent().catch(() => ""), { timeout: 30_000 }).toBe(ANSWER);
    await page.getByTestId("usechat-status").filter({ hasText: "ready" }).waitFor();

    await page.getByLabel("Message").fill("and again");
    await page.getByLabel("Message").press("Enter");
    await expect.poll(() => answers.last().textContent().catch(() => ""), { timeout: 30_000 }).toBe("Second answer, through useChat too.");
    await page.getByTestId("usechat-status").filter({ hasText: "ready" }).waitFor();

    // The thread itself holds the conversation: the hooks' view (or any client) sees what useChat sent.
    const stored = await rig.agents.threads.listMessages({ threadId, principal: { id: "sam" } });
    expect(stored.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", first],
      ["assistant", ANSWER],
      ["user", "and again"],
      ["assistant", "Second answer, through useChat too."],
    ]);
    await page.screenshot({ path: `${ARTIFACTS}usechat.png` });
    await context.close();
    h.model.assertNoFailures();
  });

  describe("a gated tool's approval through useChat", () => {
    const toolState = (page: Page) => page.locator('[data-tool="cancelOrder"]').getAttribute("data-state");
    const lastText = (page: Page) => page.locator('[data-role="assistant"] .text').last().textContent().catch(() => "");

    it("shows the approval card, shows it again after a reload, and approving runs the tool once; a reload shows the same result", async () => {
      const prompt = uid("cancel-yes");
      h.model.script(prompt, [{ toolCalls: [{ name: "cancelOrder", arguments: { order: "4711" } }] }, { text: "Order 4711 is cancelled." }]);
      const { page, context, threadId } = await chatPage("user=sam&view=usechat");
      await page.getByLabel("Message").fill(prompt);
      await page.getByLabel("Message").press("Enter");
      await page.getByTestId("confirm-card").waitFor();
      await page.getByTestId("usechat-status").filter({ hasText: "ready" }).waitFor();
      await expect(toolState(page)).resolves.toBe("approval-requested");
      expect(effectsIn(threadId)).toEqual([]);
      await page.screenshot({ path: `${ARTIFACTS}usechat-approval.png` });

      // Nothing decided yet: a reload shows the same card.
      await page.reload();
      await page.getByTestId("confirm-card").waitFor();
      await expect(toolState(page)).resolves.toBe("approval-requested");
      expect(effectsIn(threadId)).toEqual([]);

      const decisions = countDecisions(page);
      await page.getByTestId("confirm-card").getByRole("button", { name: "Approve" }).click();
      await expect.poll(() => lastText(page), { timeout: 30_000 }).toBe("Order 4711 is cancelled.");
      await expect(toolState(page)).resolves.toBe("output-available");
      await page.getByTestId("usechat-status").filter({ hasText: "ready" }).waitFor();
      expect(effectsIn(threadId)).toEqual([{ tool: "cancelOrder", order: "4711" }]);
      expect(decisions).toHaveLength(1);
      await expect(page.getByTestId("confirm-card").count()).resolves.toBe(0);

      await page.reload();
      await expect.poll(() => lastText(page), { timeout: 30_000 }).toBe("Order 4711 is cancelled.");
      await expect(toolState(page)).resolves.toBe("output-available");
      await expect(page.getByTestId("confirm-card").count()).resolves.toBe(0);
      expect(effectsIn(threadId)).toEqual([{ tool: "cancelOrder", order: "4711" }]);
      // The finished stream and the reload sent nothing more: the one decision stays one.
      expect(decisions).toHaveLength(1);
      await context.close();
      h.model.assertNoFailures();
    });

    it("rejecting never runs the tool: the model reads the reason, the call shows rejected, and so it does after a reload", async () => {
      const prompt = uid("cancel-no");
      h.model.script(prompt, [
        { toolCalls: [{ name: "cancelOrder", arguments: { order: "4712" } }] },
        {
          check: (req) => expect(String(req.messages.at(-1)?.content)).toMatch(/^Rejected by sam: "cancelOrder" was not run\. Reason: the customer said no/),
          text: "Understood: order 4712 stays as it is.",
        },
      ]);
      const { page, context, threadId } = await chatPage("user=sam&view=usechat");
      await page.getByLabel("Message").fill(prompt);
      await page.getByLabel("Message").press("Enter");
      await page.getByTestId("confirm-card").waitFor();
      await page.getByTestId("usechat-status").filter({ hasText: "ready" }).waitFor();

      await page.getByTestId("confirm-card").getByRole("button", { name: "Reject" }).click();
      await expect.poll(() => lastText(page), { timeout: 30_000 }).toBe("Understood: order 4712 stays as it is.");
      await expect(toolState(page)).resolves.toBe("output-denied");
      await page.getByTestId("usechat-status").filter({ hasText: "ready" }).waitFor();
      expect(effectsIn(threadId)).toEqual([]);

      await page.reload();
      await expect.poll(() => lastText(page), { timeout: 30_000 }).toBe("Understood: order 4712 stays as it is.");
      await expect(toolState(page)).resolves.toBe("output-denied");
      await expect(page.getByTestId("confirm-card").count()).resolves.toBe(0);
      expect(effectsIn(threadId)).toEqual([]);
      await context.close();
      h.model.assertNoFailures();
    });
  });
});
