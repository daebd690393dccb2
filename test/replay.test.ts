/**
 * Determinism guard. Runs a set of scenarios on a real server, then replays their
 * histories, and every history recorded earlier under test/histories/, against the
 * current workflow code. A change that would break a running (or deferred) workflow
 * fails here. `RECORD_HISTORIES=1 npx vitest run test/replay.test.ts` adds the fresh
 * histories to the recorded set, named after the version they ran at (existing files are
 * never overwritten: they are the point).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { historyFromJSON, historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentClient } from "../src/client/agent-client.js";
import type { ChatMessage } from "../src/core/messages.js";
import { startHarness, uid, type Harness } from "./harness.js";
import { weatherAgent } from "./fixtures/agents.js";
import { linkFor, payoutAgent } from "./fixtures/approvals.js";
import { SECRET } from "./harness.js";
import { replaceDeferredThread } from "../src/client/replace-deferred-thread.js";
import type { ThreadsClient } from "../src/threads/threads-client.js";
import { AGENT_RUN_VERSION } from "../src/core/run-state.js";
import { AGENT_THREAD_VERSION } from "../src/core/thread-contracts.js";
import { threadRig } from "./thread-support.js";

const dir = fileURLToPath(new URL("./histories/", import.meta.url));
let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([weatherAgent, payoutAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
  // With a status hook, so the histories hold its local activities too.
  ({ threads } = await threadRig(h));
});
afterAll(() => h?.close());

/** Each scenario leaves one closed run behind whose history is replayed. */
const scenarios: Record<string, (prompt: string) => Promise<unknown>> = {
  "parallel-tools": async (prompt) => {
    h.model.script(prompt, [
      { toolCalls: [{ name: "getWeather", arguments: { city: "Oslo" } }, { name: "add", arguments: { a: 1, b: 2 } }] },
      { toolCalls: [{ name: "nope", arguments: {} }, { name: "add", arguments: { a: "x" } }] },
      { text: "done" },
    ]);
    return agents.run(weatherAgent, { prompt, runId: prompt });
  },
  "max-turns": async (prompt) => {
    const step = { toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] };
    h.model.script(prompt, [step, step, step, step]);
    return agents.run(weatherAgent, { prompt, runId: prompt }).catch(() => undefined);
  },
  "deferred-then-resumed": async (prompt) => {
    h.model.script(prompt, [
      { toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }, { name: "askApproval", arguments: { amount: 2 } }, { name: "askManager", arguments: { question: "?" } }] },
      { toolCalls: [{ name: "sendPayout", arguments: { amount: 2 } }] },
      { text: "paid" },
    ]);
    await agents.run(payoutAgent, { prompt, runId: prompt });
    await agents.resume({ token: linkFor(prompt).token, payload: { approved: "no" } }).catch(() => undefined);
    await Promise.all([1, 2, 3].map(() => agents.resume({ token: linkFor(prompt).token, payload: { approved: true } })));
  },
  // One resume: from version 2 on, the definition check rides on the first model call after it.
  resumed: async (prompt) => {
    h.model.script(prompt, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 2 } }] }, { text: "paid" }]);
    await agents.run(payoutAgent, { prompt, runId: prompt });
    await agents.resume({ token: linkFor(prompt).token, payload: { approved: true } });
    await agents.result(prompt);
  },
  "compacted-then-resumed": async (prompt) => {
    h.model.script(prompt, [
      { toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }, { name: "askApproval", arguments: { amount: 2 } }] },
      { errors: ["context_length_exceeded"], text: "paid" },
    ]);
    const ack = await agents.run(payoutAgent, { prompt, runId: prompt });
    if (ack.status !== "deferred") throw new Error("expected a deferral");
    const shorter = (messages: ChatMessage[]) => messages.map((m) => (m.role === "tool" ? { ...m, content: m.content.slice(0, 4) } : m));
    await replaceDeferredThread(agents.deferrals, ack.deferralId, shorter);
    await agents.resume({ token: linkFor(prompt).token, payload: { approved: true } });
    await replaceDeferredThread(agents.deferrals, ack.deferralId, shorter);
    await agents.result(prompt);
  },
  expired: async (prompt) => {
    h.model.script(prompt, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 1, ttl: "1s" } }] }]);
    await agents.run(payoutAgent, { prompt, runId: prompt });
    await agents.result(prompt).catch(() => undefined);
  },
  // A thread: sync and async tools, a second turn, a stop mid model call, then delete.
  "thread-turns": async (threadId) => {
    h.model.script(threadId, [
      { toolCalls: [{ name: "lookup", arguments: { word: "durable" } }, { name: "askHuman", arguments: { question: "ok?" } }] },
      { text: "first answer" },
      { text: "second answer" },
      { delayMs: 30_000, text: "never" },
    ]);
    await threads.createThread({ threadId, prompt: threadId });
    const toolCallId = await until(async () => (await threads.getThread({ threadId })).toolCalls.find((c) => c.state === "waiting")?.toolCallId);
    await threads.addToolResult({ threadId, toolCallId, result: { ok: true } });
    await threads.waitUntilSettled({ threadId });
    await threads.sendMessage({ threadId, prompt: "again" });
    await threads.waitUntilSettled({ threadId });
    await threads.sendMessage({ threadId, prompt: "and stop" });
    await until(async () => h.model.requests.filter((r) => r.conversation === threadId).length === 4 || undefined);
    await threads.stopThread({ threadId });
    await threads.deleteThread({ threadId });
    await threads.workflowHandle(threadId).result();
  },
  // A thread that continued as new: its last run starts from what the first carried.
  "thread-rollover": async (threadId) => {
    h.model.respond(threadId, (_req, turn) => ({ toolCalls: turn % 2 === 0 ? [{ name: "lookup", arguments: { word: `w${turn}` } }] : undefined, text: `answer ${turn}` }));
    await threads.createThread({ threadId, prompt: threadId, maxHistoryEvents: 30 });
    await threads.waitUntilSettled({ threadId });
    for (let i = 0; (await threads.getThread({ threadId })).generation === 0; i++) {
      await threads.sendMessage({ threadId, prompt: `message ${i}` });
      await threads.waitUntilSettled({ threadId });
    }
    await threads.sendMessage({ threadId, prompt: "after the rollover" });
    await threads.waitUntilSettled({ threadId });
    await threads.deleteThread({ threadId });
    await threads.workflowHandle(threadId).result();
  },
};

/** Polls until `probe` returns something defined. */
async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("gave up waiting");
}

/** Where a fresh history is recorded: under the version new runs (or threads) start at now. */
const recordedAs = (name: string) =>
  name.startsWith("thread-") ? `thread-v${AGENT_THREAD_VERSION}-${name.slice("thread-".length)}` : `v${AGENT_RUN_VERSION}-${name}`;

describe("replay", () => {
  it("replays the histories of fresh runs against the current workflow code", async () => {
    const histories = [];
    for (const [name, scenario] of Object.entries(scenarios)) {
      const runId = uid(name);
      await scenario(runId);
      const history = await h.connection.workflowService
        .getWorkflowExecutionHistory({ namespace: h.namespace, execution: { workflowId: runId } })
        .then((r) => r.history!);
      histories.push({ workflowId: runId, history });
      // Recording adds new scenarios only: an existing file is a history some deployed code produced.
      const file = `${dir}${recordedAs(name)}.json`;
      if (process.env.RECORD_HISTORIES && !existsSync(file)) {
        // The workflow id is part of what the code computed (deferral ids), so it is kept with the history.
        writeFileSync(file, JSON.stringify({ workflowId: runId, history: JSON.parse(historyToJSON(history)) }));
      }
    }
    await expectReplays(histories);
  });

  it("replays every recorded history under test/histories/", async () => {
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(0);
    await expectReplays(
      files.map((f) => {
        const { workflowId, history } = JSON.parse(readFileSync(`${dir}${f}`, "utf8"));
        return { workflowId, history: historyFromJSON(history) };
      }),
    );
  });
});

async function expectReplays(histories: Array<{ workflowId: string; history: unknown }>): Promise<void> {
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: h.bundle, replayName: "replay" }, histories as never)) {
    if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
  }
  expect(failures).toEqual([]);
}
