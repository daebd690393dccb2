import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentClient, defineAgent, defineTool, type RetryErrorInfo } from "../src/index.js";
import { completed, startHarness, uid, type Harness } from "./harness.js";

const attempts = new Map<string, number>();
const asked: RetryErrorInfo[] = [];

/** Fails until its `okAt` attempt: a flaky upstream. */
const flaky = defineTool({
  name: "flaky",
  description: "Calls a flaky upstream",
  input: z.object({ okAt: z.number() }),
  retry: {
    maxAttempts: 3,
    backoff: { delay: "20ms", jitter: false },
    shouldRetryError: (info) => {
      asked.push(info);
      return !String(info.error).includes("permanent");
    },
  },
  handler({ okAt }, ctx) {
    const n = (attempts.get(ctx.idempotencyKey) ?? 0) + 1;
    attempts.set(ctx.idempotencyKey, n);
    if (okAt === 0) throw new Error("permanent: bad account");
    if (n < okAt) throw new Error(`upstream 503 (attempt ${n})`);
    return `ok on attempt ${n}`;
  },
});

const hangs = new Map<string, number>();

/** Never answers within the call timeout: a hung upstream, or a worker that keeps dying. */
const hung = defineTool({
  name: "hung",
  description: "Calls an upstream that hangs",
  input: z.object({}),
  async handler(_input, ctx) {
    hangs.set(ctx.runId, (hangs.get(ctx.runId) ?? 0) + 1);
    // Until its call is cancelled (the worker stopping, say): it never answers in time.
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
    return "too late";
  },
});

const agent = defineAgent({ id: "retrying-run", model: "gpt-4.1-mini", system: "You call flaky things.", tools: [flaky] });
const impatient = defineAgent({ id: "impatient-run", model: "gpt-4.1-mini", system: "You call hung things.", tools: [hung], timeouts: { call: "300ms" } });

let h: Harness;
let agents: AgentClient;
beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([agent, impatient]));
});
afterAll(() => h?.close());

describe("tool retries in an agent run", () => {
  it("retry a throwing handler durably before the model sees anything", async () => {
    const runId = uid("retry-ok");
    h.model.script(runId, [
      { toolCalls: [{ name: "flaky", arguments: { okAt: 3 } }] },
      { check: (req) => expect(req.messages.at(-1)!.content).toBe("ok on attempt 3"), text: "done" },
    ]);
    await expect(completed(agents.run(agent, { prompt: runId, runId }))).resolves.toMatchObject({ text: "done" });
    expect(asked.filter((a) => a.runId === runId).map((a) => a.attempt)).toEqual([1, 2]);
  });

  it("hand the last error to the model when attempts run out, or when shouldRetryError says no", async () => {
    const runId = uid("retry-out");
    h.model.script(runId, [
      { toolCalls: [{ name: "flaky", arguments: { okAt: 9 } }, { name: "flaky", arguments: { okAt: 0 } }] },
      {
        check: (req) =>
          expect(req.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
            'Error: "flaky" failed after 3 attempts: upstream 503 (attempt 3)',
            'Error: "flaky" failed: permanent: bad account',
          ]),
        text: "gave up",
      },
    ]);
    await expect(completed(agents.run(agent, { prompt: runId, runId }))).resolves.toMatchObject({ text: "gave up" });
    h.model.assertNoFailures();
  });

  it("tell the model, and go on, when a call that keeps timing out spends its bounded attempts", async () => {
    const runId = uid("hung");
    h.model.script(runId, [
      { toolCalls: [{ name: "hung", arguments: {} }] },
      { check: (req) => expect(req.messages.at(-1)!.content).toMatch(/^Error: "hung" did not complete: .*\(its attempts are spent\)/), text: "it hangs" },
    ]);
    await expect(completed(agents.run(impatient, { prompt: runId, runId }))).resolves.toMatchObject({ text: "it hangs" });
    // One attempt of the tool's own, plus the spare ones for timeouts: 5, not forever.
    expect(hangs.get(runId)).toBe(5);
    h.model.assertNoFailures();
  }, 60_000);
});
