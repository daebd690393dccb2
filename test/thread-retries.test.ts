import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, InvalidDefinitionError, ThreadsClient, type RetryErrorInfo } from "../src/index.js";
import { openaiModel, createAgentWorker } from "../src/worker.js";
import { backoffDelayMs, resolveToolRetry } from "../src/core/tool-retry.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { threadRig, type ThreadRig } from "./thread-support.js";

/** Attempts each tool saw, by thread. */
const attempts: Array<{ tool: string; threadId: string; attempt: number }> = [];
const asked: RetryErrorInfo[] = [];
const record = (tool: string, ctx: { threadId?: string; attempt: number }) => attempts.push({ tool, threadId: ctx.threadId!, attempt: ctx.attempt });
const attemptsOf = (tool: string, threadId: string) => attempts.filter((a) => a.tool === tool && a.threadId === threadId).map((a) => a.attempt);

const flaky = defineTool({
  name: "flaky",
  description: "Fails twice, then works",
  input: z.object({}),
  retry: true,
  handler: (_input, ctx) => {
    record("flaky", ctx);
    if (ctx.attempt < 3) throw new Error(`flaky failure ${ctx.attempt}`);
    return "worked on attempt 3";
  },
});

const fixedFail = defineTool({
  name: "fixedFail",
  description: "Always fails; fixed backoff",
  input: z.object({}),
  retry: { maxAttempts: 3, backoff: { delay: "1500ms" } },
  handler: (_input, ctx) => {
    record("fixedFail", ctx);
    throw new Error(`boom ${ctx.attempt}`);
  },
});

const expoFail = defineTool({
  name: "expoFail",
  description: "Always fails; exponential backoff",
  input: z.object({}),
  retry: { maxAttempts: 3, backoff: { strategy: "exponential", initialDelay: "1s", multiplier: 2, maxDelay: 1500 } },
  handler: (_input, ctx) => {
    record("expoFail", ctx);
    throw new Error(`expo ${ctx.attempt}`);
  },
});

const picky = defineTool({
  name: "picky",
  description: "Throws the errors it is given, one per attempt",
  input: z.object({ errors: z.array(z.string()) }),
  retry: {
    maxAttempts: 4,
    backoff: { delay: 10 },
    shouldRetryError: (info) => {
      asked.push(info);
      return !(info.error as Error).message.includes("fatal");
    },
  },
  handler: ({ errors }, ctx) => {
    record("picky", ctx);
    const error = errors[ctx.attempt - 1];
    if (error) throw new Error(error);
    return `fine after ${ctx.attempt}`;
  },
});

const once = defineTool({
  name: "once",
  description: "Fails; no retry",
  input: z.object({}),
  handler: (_input, ctx) => {
    record("once", ctx);
    throw new Error("nope");
  },
});

const retrying = defineAgent({
  id: "retrying",
  model: "gpt-4.1-mini",
  system: "You retry.",
  tools: [flaky, fixedFail, expoFail, picky, once],
  maxTurns: 4,
});

let h: Harness;
let rig: ThreadRig;

beforeAll(async () => {
  h = await startHarness();
  rig = await threadRig(h, [retrying], { overrides: { threads: { modelMaxAttempts: 3 } } });
});
afterAll(() => h?.close());

/** One tool call, then whatever the model is told to say; returns the tool result the model got. */
async function callOnce(tool: string, args: object = {}) {
  const prompt = uid(`call ${tool}`);
  let toolResult: unknown;
  h.model.script(prompt, [
    { toolCalls: [{ name: tool, arguments: args }] },
    { check: (req) => void (toolResult = req.messages.at(-1)?.content), text: "noted" },
  ]);
  const { threadId } = await rig.threads.createThread({ prompt });
  return { threadId, prompt, result: async () => (await rig.threads.settled({ threadId }), toolResult) };
}

const toolRetry = async (threadId: string) => (await rig.threads.state({ threadId })).toolCalls[0]?.retry;

describe("sync tool retries", () => {
  it("retry: true retries a failing handler (3 attempts) and the model gets the result", async () => {
    const { threadId, result } = await callOnce("flaky");
    expect(await result()).toBe("worked on attempt 3");
    expect(attemptsOf("flaky", threadId)).toEqual([1, 2, 3]);
  });

  it("a fixed backoff waits its delay between attempts, shows the retry in state(), then gives the model the last error", async () => {
    const { threadId, result } = await callOnce("fixedFail");
    await vi.waitFor(async () => expect(await toolRetry(threadId)).toMatchObject({ attempt: 2, maxAttempts: 3, delayMs: 1500, lastError: { message: "boom 1" } }), {
      timeout: 20_000,
      interval: 50,
    });
    const waiting = await toolRetry(threadId);
    expect(Date.parse(waiting!.nextAttemptAt!)).toBeGreaterThan(0);
    await vi.waitFor(async () => expect(await toolRetry(threadId)).toMatchObject({ attempt: 3, delayMs: 1500, lastError: { message: "boom 2" } }), {
      timeout: 20_000,
      interval: 50,
    });
    expect(await result()).toBe('Error: "fixedFail" failed after 3 attempts: boom 3');
    expect(attemptsOf("fixedFail", threadId)).toEqual([1, 2, 3]);
  });

  it("an exponential backoff grows by its multiplier up to its ceiling", async () => {
    const { threadId, result } = await callOnce("expoFail");
    await vi.waitFor(async () => expect(await toolRetry(threadId)).toMatchObject({ attempt: 2, delayMs: 1000 }), { timeout: 20_000, interval: 50 });
    await vi.waitFor(async () => expect(await toolRetry(threadId)).toMatchObject({ attempt: 3, delayMs: 1500 }), { timeout: 20_000, interval: 50 });
    expect(await result()).toBe('Error: "expoFail" failed after 3 attempts: expo 3');
  });

  it("jitter draws the wait uniformly between 0 and the computed delay", () => {
    const fixed = resolveToolRetry({ backoff: { delay: "1s", jitter: true } }, "t")!.backoff;
    expect([0, 0.25, 0.999].map((r) => backoffDelayMs(1, fixed, () => r))).toEqual([0, 250, 999]);
    const expo = resolveToolRetry(true, "t")!.backoff;
    // The defaults: 250 ms, ×2, at most 4 s, jittered.
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelayMs(attempt, expo, () => 1))).toEqual([250, 500, 1000, 2000, 4000, 4000]);
    expect(backoffDelayMs(3, expo, () => 0.5)).toBe(500);
    expect(() => resolveToolRetry({ maxAttempts: 0 }, "tool")).toThrow(InvalidDefinitionError);
    expect(() => defineTool({ name: "x", description: "x", input: z.object({}), handler: () => 1, retry: { backoff: { delay: -1 } } })).toThrow(/backoff\.delay must be a duration/);
    expect(() => defineTool({ name: "x", description: "x", input: z.object({}), handler: () => 1, retry: { backoff: { strategy: "exponential", initialDelay: "soon" as never } } })).toThrow(
      /backoff\.initialDelay must be a duration/,
    );
  });

  it("shouldRetryError decides per error: retried while it says yes, given up at once when it says no", async () => {
    const retried = await callOnce("picky", { errors: ["flaky network", "timeout"] });
    expect(await retried.result()).toBe("fine after 3");
    expect(attemptsOf("picky", retried.threadId)).toEqual([1, 2, 3]);
    const info = asked.filter((a) => a.threadId === retried.threadId);
    expect(info.map((i) => [i.attempt, (i.error as Error).message])).toEqual([
      [1, "flaky network"],
      [2, "timeout"],
    ]);
    expect(info[0]).toMatchObject({ toolName: "picky", maxAttempts: 4, args: { errors: ["flaky network", "timeout"] }, toolCallId: expect.any(String) });

    const fatal = await callOnce("picky", { errors: ["fatal: bad account"] });
    expect(await fatal.result()).toBe('Error: "picky" failed: fatal: bad account');
    expect(attemptsOf("picky", fatal.threadId)).toEqual([1]);
  });

  it("a tool without retry fails once and the model reads the error", async () => {
    const { threadId, result } = await callOnce("once");
    expect(await result()).toBe('Error: "once" failed: nope');
    expect(attemptsOf("once", threadId)).toEqual([1]);
  });
});

describe("model call retries", () => {
  const requestsOf = (prompt: string) => h.model.requests.filter((r) => r.conversation === prompt);

  it("honour retry-after on a 429, showing the wait in state()", async () => {
    const prompt = uid("throttled");
    h.model.script(prompt, [{ errors: [{ status: 429, retryAfterSeconds: 2 }], text: "after the wait" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    await vi.waitFor(
      async () =>
        expect((await rig.threads.state({ threadId })).modelCall).toMatchObject({ attempt: 2, retry: { attempt: 2, maxAttempts: 3, lastError: { type: "HTTP429" } } }),
      { timeout: 20_000, interval: 50 },
    );
    const { retry } = (await rig.threads.state({ threadId })).modelCall!;
    expect(retry!.delayMs).toBeGreaterThanOrEqual(1900);
    expect(retry!.delayMs).toBeLessThanOrEqual(2100);
    const done = await rig.threads.settled({ threadId });
    expect(done.status).toBe("completed");
    expect(requestsOf(prompt)).toHaveLength(2);
  });

  it("retry 5xx, and fail the turn with AI1003 once the attempts run out", async () => {
    const recovered = uid("server hiccup");
    h.model.script(recovered, [{ errors: [500, 503], text: "recovered" }]);
    const first = await rig.threads.createThread({ prompt: recovered });
    expect((await rig.threads.settled({ threadId: first.threadId })).status).toBe("completed");
    expect(requestsOf(recovered)).toHaveLength(3);

    const down = uid("server down");
    h.model.script(down, [{ errors: [503, 503, 503], text: "never" }]);
    const second = await rig.threads.createThread({ prompt: down });
    const failed = await rig.threads.settled({ threadId: second.threadId });
    expect(failed).toMatchObject({ status: "failed", lastError: { code: "AI1003" } });
    expect(requestsOf(down)).toHaveLength(3);
  });

  it.each([
    [400, "AI1003"],
    [401, "AI1003"],
    ["context_length_exceeded", "AI1009"],
  ] as const)("never retry %s: the turn fails at once with %s", async (error, code) => {
    const prompt = uid(`refused ${error}`);
    h.model.script(prompt, [{ errors: [error], text: "never" }]);
    const { threadId } = await rig.threads.createThread({ prompt });
    expect(await rig.threads.settled({ threadId })).toMatchObject({ status: "failed", lastError: { code } });
    expect(requestsOf(prompt)).toHaveLength(1);
  });
});

describe("model call retries against a misbehaving server", () => {
  let server: Server;
  let url: string;
  let seenByServer: string[];

  beforeAll(async () => {
    seenByServer = [];
    // Forbids conversations mentioning "forbidden"; drops the first connection of those
    // mentioning "flaky"; forwards everything else to the scripted model server.
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString("utf8");
      const conversation = String(JSON.parse(body).messages.find((m: { role: string }) => m.role === "user")?.content);
      seenByServer.push(conversation);
      if (conversation.includes("forbidden")) {
        res.writeHead(403, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "not for you", type: "permission_error", code: null, param: null } }));
        return;
      }
      if (conversation.includes("flaky") && seenByServer.filter((c) => c === conversation).length === 1) {
        req.socket.destroy();
        return;
      }
      const upstream = await fetch(`${h.model.url}${req.url!.replace(/^\/v1/, "")}`, { method: "POST", headers: { "content-type": "application/json" }, body });
      res.writeHead(upstream.status, Object.fromEntries(upstream.headers));
      for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("never retry a 403, and retry a dropped connection", async () => {
    const taskQueue = uid("proxied");
    const worker = await createAgentWorker({
      connection: h.native,
      namespace: h.namespace,
      taskQueue,
      agents: [retrying],
      model: openaiModel({ baseURL: url, apiKey: "test" }),
      workflowBundle: h.bundle,
      threads: { modelMaxAttempts: 3 },
    });
    const running = worker.run();
    onTestFinished(async () => {
      worker.shutdown();
      await running;
    });
    const proxied = { threads: new ThreadsClient({ connection: h.connection, namespace: h.namespace, taskQueue, agent: retrying }) };
    const forbidden = uid("forbidden topic");
    const a = await proxied.threads.createThread({ prompt: forbidden });
    expect(await proxied.threads.settled({ threadId: a.threadId })).toMatchObject({
      status: "failed",
      lastError: { code: "AI1003", message: expect.stringMatching(/403/) },
    });
    expect(seenByServer.filter((c) => c === forbidden)).toHaveLength(1);

    const flakyPrompt = uid("flaky line");
    h.model.script(flakyPrompt, [{ text: "made it through" }]);
    const b = await proxied.threads.createThread({ prompt: flakyPrompt });
    expect((await proxied.threads.settled({ threadId: b.threadId })).status).toBe("completed");
    expect(seenByServer.filter((c) => c === flakyPrompt)).toHaveLength(2);
  });
});
