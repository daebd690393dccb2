/**
 * Model call retries are one worker setting for runs and threads alike: what a retry may
 * fix (429, 5xx, the network) is retried up to `modelMaxAttempts`, honouring retry-after,
 * then the run or the turn fails with AI1003; what it cannot fix fails at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentClient, defineAgent, type ThreadsClient } from "../src/index.js";
import { startHarness, uid, type Harness } from "./harness.js";

const plain = defineAgent({ id: "plain", model: "gpt-4.1-mini", system: "You answer.", tools: [], maxTurns: 2 });

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([plain], { threads: { modelMaxAttempts: 3 }, client: { threads: { agent: plain } } }));
  threads = agents.threads;
});
afterAll(() => h?.close());

const requestsOf = (conversation: string) => h.model.requests.filter((r) => r.conversation === conversation);
// A provider that keeps throttling, asking for a short wait each time.
const throttled = Array.from({ length: 5 }, () => ({ status: 429 as const, retryAfterSeconds: 0.1 }));

describe("model call retries", () => {
  it("a permanent 429 fails a run with AI1003 after the worker's attempts, as it fails a thread's turn", async () => {
    const runId = uid("throttled run");
    h.model.script(runId, [{ errors: throttled, text: "never" }]);
    await agents.start(plain, { prompt: runId, runId });
    await expect(agents.result({ runId })).rejects.toMatchObject({ code: "AI1003", message: expect.stringMatching(/429[\s\S]*after 3 attempts/) });
    expect(requestsOf(runId)).toHaveLength(3);

    const prompt = uid("throttled thread");
    h.model.script(prompt, [{ errors: throttled, text: "never" }]);
    const { threadId } = await threads.createThread({ prompt });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "failed", lastError: { code: "AI1003" } });
    expect(requestsOf(prompt)).toHaveLength(3);
  });

  it("a scripted model server whose script ran out fails the run at once with AI1003 saying so, not pointing at the model name", async () => {
    const runId = uid("script ran out");
    // One step, whose call the run answers with an error; the model is asked again, and the test scripted no second step.
    h.model.script(runId, [{ toolCalls: [{ name: "lookup", arguments: {} }] }]);
    await agents.start(plain, { prompt: runId, runId });
    const err = await agents.result({ runId }).catch((e: unknown) => e as Error);
    expect(err).toMatchObject({ code: "AI1003", message: expect.stringContaining("the scripted model server's script ran out") });
    expect((err as Error).message).not.toMatch(/model name/);
    // Not retried: no attempt could find a step that is not there.
    expect(requestsOf(runId)).toHaveLength(2);
  });

  it("a run recovers when the provider does, within its attempts", async () => {
    const runId = uid("recovering run");
    h.model.script(runId, [{ errors: [throttled[0]!, 503], text: "made it" }]);
    await expect(agents.run(plain, { prompt: runId, runId })).resolves.toMatchObject({ status: "completed", text: "made it" });
    expect(requestsOf(runId)).toHaveLength(3);
  });

  it("a 429 worded like an overflow is throttling: retried, not refused as AI1009", async () => {
    const runId = uid("token-throttled run");
    h.model.script(runId, [{ errors: [{ status: 429, retryAfterSeconds: 0.1, message: "Too many tokens, please wait before trying again." }], text: "after the wait" }]);
    await expect(agents.run(plain, { prompt: runId, runId })).resolves.toMatchObject({ status: "completed", text: "after the wait" });
    expect(requestsOf(runId)).toHaveLength(2);
  });

  it("a 429 saying retry-after: 0 is retried (the policy's backoff), not given up at once", async () => {
    const runId = uid("retry-now run");
    h.model.script(runId, [{ errors: [{ status: 429, retryAfterSeconds: 0 }], text: "again" }]);
    await expect(agents.run(plain, { prompt: runId, runId })).resolves.toMatchObject({ status: "completed", text: "again" });
    expect(requestsOf(runId)).toHaveLength(2);
  });

  it("a refusal no retry can fix fails a run at once", async () => {
    const runId = uid("refused run");
    h.model.script(runId, [{ errors: [401], text: "never" }]);
    await agents.start(plain, { prompt: runId, runId });
    await expect(agents.result({ runId })).rejects.toMatchObject({ code: "AI1003" });
    expect(requestsOf(runId)).toHaveLength(1);
  });
});
