/**
 * Determinism guard. Runs a set of scenarios on a real server, then replays their
 * histories, and every history recorded earlier under test/histories/<release>/, against
 * the current workflow code. A change that would break a running (or deferred) workflow
 * fails here: agent runs, chat threads (every run of a thread that continued as new)
 * and plain deferrable workflows. `RECORD_HISTORIES=1 npx vitest run test/replay.test.ts`
 * adds the fresh histories to the set of the release being made (`RECORDING`); existing
 * files are never overwritten: they are what a deployed release produced. The policy is
 * in docs/upgrading.md.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { temporal } from "@temporalio/proto";
import { historyFromJSON, historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type AgentClient, type ChatMessage, type DeferralView, inProcessStreamTransport, replaceDeferredThread } from "../src/index.js";
import { createExpenseActivities, type Outbox } from "../examples/plain-workflow/activities.js";
import type { expenseApproval } from "../examples/plain-workflow/workflows.js";
import { plainWorkflowBundle, startHarness, uid, type Harness, SECRET } from "./harness.js";
import { onRuntimeLog } from "./test-runtime.js";
import { add, weatherAgent } from "./fixtures/agents.js";
import { askApproval, delegatingAgent, gatedAgent, linkFor, payoutAgent } from "./fixtures/approvals.js";
import { defineAgent, defineTool } from "../src/index.js";
import { z } from "zod";

/** Long enough to continue as new a few times within one scenario. */
const longAgent = defineAgent({ id: "replay-long", model: "gpt-4.1-mini", system: "You add, then ask.", tools: [add, askApproval], maxTurns: 40 });
/** Tool results long enough that model calls name them rather than carry them. */
const longRead = defineTool({ name: "longRead", description: "Reads a long text", input: z.object({ n: z.number() }), handler: ({ n }) => `text ${n} `.repeat(40) });
const readerAgent = defineAgent({ id: "replay-reader", model: "gpt-4.1-mini", system: "You read, then ask.", tools: [longRead, askApproval], maxTurns: 6 });
/** Model calls as local activities: markers where the other scenarios have activities. */
const localAgent = defineAgent({ id: "replay-local", model: "gpt-4.1-mini", system: "You read, then ask.", tools: [longRead, askApproval], maxTurns: 6, modelCalls: "local" });
import { answerTokenOf, seen, threadRig, type ThreadRig } from "./thread-support.js";

const dir = fileURLToPath(new URL("./histories/", import.meta.url));
/**
 * The release whose histories a recording adds to: its folder under test/histories/. A
 * release that changes workflow code (behind `patched()`) records into a folder of its own.
 */
const RECORDING = "1.0";
let h: Harness;
let agents: AgentClient;
let rig: ThreadRig;
let gatedRig: ThreadRig;
/** Threads whose answers stream out of band, on the in-process transport (no signals). */
let streamRig: ThreadRig;
let plain: AgentClient;
// Agent workflows and a plain deferrable one in one bundle, so every recorded history replays against it.
let bundle: Harness["bundle"];
const expenseMail: Parameters<Outbox>[0][] = [];

beforeAll(async () => {
  h = await startHarness();
  bundle = await plainWorkflowBundle();
  // Deltas by signal, named: the default streams on a transport, and these histories keep the signalled path replayed.
  ({ agents } = await h.worker([weatherAgent, payoutAgent, gatedAgent, longAgent, readerAgent, localAgent, delegatingAgent], {
    deferral: { secret: SECRET },
    threads: { stream: { transport: "workflow" } },
    client: { deferral: { secret: SECRET } },
  }));
  rig = await threadRig(h, undefined, { overrides: { threads: { stream: { transport: "workflow" } } } });
  gatedRig = await threadRig(h, [gatedAgent], { overrides: { client: { deferral: { secret: SECRET } } } });
  streamRig = await threadRig(h, undefined, { overrides: { threads: { stream: { transport: inProcessStreamTransport() } } } });
  ({ agents: plain } = await h.worker([], {
    workflowBundle: bundle,
    deferral: { secret: SECRET },
    activities: createExpenseActivities(SECRET, (m) => expenseMail.push(m)),
    client: { deferral: { secret: SECRET } },
  }));
});
afterAll(() => h?.close());

const waitFor = (check: () => unknown | Promise<unknown>) => vi.waitFor(check, { timeout: 20_000, interval: 50 });

/** A thread is deleted at the end of its scenario, so every run of it is closed. */
async function deleteThread(threadId: string): Promise<void> {
  await rig.threads.deleteThread({ threadId });
  await rig.threads.workflowHandle(threadId).result();
}

/**
 * Each scenario leaves one closed workflow behind, whose id is the scenario's argument and
 * whose histories (one per run, when it continued as new) are replayed.
 */
const scenarios: Record<string, (id: string) => Promise<unknown>> = {
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
  // The definition check after a resume rides on the first model call.
  resumed: async (prompt) => {
    h.model.script(prompt, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 2 } }] }, { text: "paid" }]);
    await agents.run(payoutAgent, { prompt, runId: prompt });
    await agents.resume({ token: linkFor(prompt).token, payload: { approved: true } });
    await agents.result({ runId: prompt });
  },
  "compacted-then-resumed": async (prompt) => {
    h.model.script(prompt, [
      { toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }, { name: "askApproval", arguments: { amount: 2 } }] },
      { errors: ["context_length_exceeded"], text: "paid" },
    ]);
    const ack = await agents.run(payoutAgent, { prompt, runId: prompt });
    if (ack.status !== "deferred") throw new Error("expected a deferral");
    // Tool results shortened in place (vouched for); the approval's own answer stays as it was.
    const shorter = (messages: ChatMessage[], deferral: DeferralView) =>
      messages.map((m) => (m.role === "tool" && m.tool_call_id !== deferral.toolCallId ? { ...m, content: m.content.slice(0, 4) } : m));
    await replaceDeferredThread(agents.deferrals, { deferralId: ack.deferralId, rewrite: shorter, trustTranscript: true });
    await agents.resume({ token: linkFor(prompt).token, payload: { approved: true } });
    await replaceDeferredThread(agents.deferrals, { deferralId: ack.deferralId, rewrite: shorter, trustTranscript: true });
    await agents.result({ runId: prompt });
  },
  "local-model-calls": async (prompt) => {
    h.model.script(prompt, [
      { toolCalls: [{ name: "longRead", arguments: { n: 1 } }] },
      { toolCalls: [{ name: "askApproval", arguments: { amount: 5 } }] },
      { errors: [500], text: "read and approved" },
    ]);
    await agents.run(localAgent, { prompt, runId: prompt });
    await agents.resume({ token: linkFor(prompt).token, payload: { approved: true } });
  },
  // Continues as new before and after a deferral; the resume follows it to the end.
  "continued-deferred-resumed": async (prompt) => {
    h.model.respond(prompt, (_req, turn) =>
      turn === 10
        ? { toolCalls: [{ name: "askApproval", arguments: { amount: 3 } }] }
        : turn < 22
          ? { toolCalls: [{ name: "add", arguments: { a: turn, b: 1 } }] }
          : { text: "added and asked" },
    );
    await agents.run(longAgent, { prompt, runId: prompt, maxHistoryEvents: 100 });
    await agents.resume({ token: linkFor(prompt).token, payload: { approved: true } });
  },
  // Long tool results go by reference in the next model call, a deferred sibling's batch too.
  "tool-result-refs": async (prompt) => {
    h.model.script(prompt, [
      { toolCalls: [{ name: "longRead", arguments: { n: 1 } }] },
      { toolCalls: [{ name: "longRead", arguments: { n: 2 } }, { name: "askApproval", arguments: { amount: 4 } }] },
      { text: "read and approved" },
    ]);
    await agents.run(readerAgent, { prompt, runId: prompt });
    await agents.resume({ token: linkFor(prompt).token, payload: { approved: true } });
  },
  expired: async (prompt) => {
    h.model.script(prompt, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 1, ttl: "1s" } }] }]);
    await agents.run(payoutAgent, { prompt, runId: prompt });
    await agents.result({ runId: prompt }).catch(() => undefined);
  },
  // A run that streams its answers (by signal, as this worker is told to), parks, is resumed and answers.
  "streamed-deferred-resumed": async (prompt) => {
    // Held part-way until the run holds a delta batch, so its history has the signals.
    const hold = h.model.hold();
    h.model.script(prompt, [
      { text: "Let me ask first. ".repeat(8), toolCalls: [{ name: "askApproval", arguments: { amount: 6 } }], hold, holdAfterChars: 40 },
      { text: "Approved and paid, as the stream showed while it was written." },
    ]);
    const parked = agents.run(payoutAgent, { prompt, runId: prompt, stream: true });
    await hold.reached;
    await vi.waitFor(async () => expect((await agents.streamUpdates({ runId: prompt })).updates.some((u) => u.type === "text-delta")).toBe(true), { timeout: 20_000, interval: 20 });
    hold.release();
    await parked;
    await agents.resume({ token: linkFor(prompt).token, payload: { approved: true } });
    await agents.result({ runId: prompt });
  },
  // A sub-agent (a child workflow) that defers: the parent parks with it, the child's token resumes both.
  "sub-agent-deferred-resumed": async (prompt) => {
    h.model.script(prompt, [{ toolCalls: [{ id: "c1", name: "payouts", arguments: { prompt: `${prompt} pay` } }] }, { text: "delegated and paid" }]);
    h.model.script(`${prompt} pay`, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 8 } }] }, { text: "paid 8" }]);
    const ack = await agents.run(delegatingAgent, { prompt, runId: prompt });
    if (ack.status !== "deferred") throw new Error("expected the parent to park with its sub-agent");
    await agents.resume({ token: linkFor(`${prompt}/agent/c1`).token, payload: { approved: true } });
    await agents.result({ runId: prompt });
    return { children: [`${prompt}/agent/c1`] };
  },
  // Two gated calls and a free one in a step: one request, decided per call (one edited, one rejected).
  "approval-gate": async (prompt) => {
    h.model.script(prompt, [
      { toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }, { name: "gatedPayout", arguments: { amount: 2 } }, { name: "gatedPayout", arguments: { amount: 3 } }] },
      { text: "paid what was approved" },
    ]);
    const ack = await agents.run(gatedAgent, { prompt, runId: prompt });
    if (ack.status !== "deferred") throw new Error("expected the run to wait for approval");
    const { calls } = await agents.approvals.get({ approvalId: ack.deferralId });
    await agents.approvals.decide({ approvalId: ack.deferralId, decisions: [
      { toolCallId: calls[0]!.toolCallId, approved: true, input: { amount: 20 } },
      { toolCallId: calls[1]!.toolCallId, approved: false, reason: "twice is once too many" },
    ] });
    await agents.result({ runId: prompt });
  },
};

// Threads live for months: a change to the thread workflow must not break one mid-conversation.
Object.assign(scenarios, {
  // A turn with a tool call, then a second message.
  "thread-tool-turn": async (id: string) => {
    h.model.script(id, [{ toolCalls: [{ name: "lookup", arguments: { word: "durable" } }] }, { text: "seven letters" }, { text: "you are welcome" }]);
    await rig.threads.createThread({ threadId: id, prompt: id });
    await rig.threads.settled({ threadId: id });
    await rig.threads.sendMessage({ threadId: id, prompt: "thanks" });
    await rig.threads.settled({ threadId: id });
    await deleteThread(id);
  },
  // A turn asked not to stream (sendMessage's stream: false), then one that streams again.
  "thread-quiet-turn": async (id: string) => {
    h.model.script(id, [{ text: "ready" }, { text: "answered whole" }, { text: "answered in deltas" }]);
    await rig.threads.createThread({ threadId: id, prompt: id });
    await rig.threads.settled({ threadId: id });
    await rig.threads.sendMessage({ threadId: id, prompt: "no deltas", stream: false });
    await rig.threads.settled({ threadId: id });
    await rig.threads.sendMessage({ threadId: id, prompt: "deltas again" });
    await rig.threads.settled({ threadId: id });
    await deleteThread(id);
  },
  // A stop while a tool runs (the tool is cancelled), then resume runs it again.
  "thread-stop-resume": async (id: string) => {
    h.model.script(id, [{ toolCalls: [{ name: "slowTask", arguments: { job: "report" } }] }, { text: "the report is done" }]);
    await rig.threads.createThread({ threadId: id, prompt: id });
    const events = () => seen.filter((s) => s.threadId === id).map((s) => s.event);
    await waitFor(() => expect(events()).toEqual(["started"]));
    await rig.threads.stopThread({ threadId: id });
    await waitFor(() => expect(events()).toEqual(["started", "aborted"]));
    await rig.threads.resumeThread({ threadId: id });
    await rig.threads.settled({ threadId: id });
    await deleteThread(id);
  },
  // Deltas stream in by signal; a stop aborts the model call mid-answer, and resume answers again.
  "thread-stop-mid-stream": async (id: string) => {
    const story = "A thread streamed this answer, was stopped halfway, and told it again.";
    // The first attempt stops writing part-way and is never let go: only the stop ends it.
    const hold = h.model.hold();
    h.model.respond(id, (req) => (req.attempt === 0 ? { text: story, hold, holdAfterChars: 24 } : { text: story }));
    await rig.threads.createThread({ threadId: id, prompt: id });
    await waitFor(async () => expect((await rig.threads.streamUpdates({ threadId: id })).updates.some((u) => u.type === "text-delta")).toBe(true));
    await rig.threads.stopThread({ threadId: id });
    await rig.threads.resumeThread({ threadId: id });
    await rig.threads.settled({ threadId: id });
    await deleteThread(id);
  },
  // Deltas go out of band (a reserved block of seqs per model call): a tool call, then an
  // answer a reader follows, stopped mid-stream and answered again.
  "thread-streamed-out-of-band": async (id: string) => {
    const story = "A thread streamed this answer on a transport, was stopped halfway, and told it again.";
    const hold = h.model.hold();
    h.model.respond(id, (req) =>
      req.turn === 0 ? { toolCalls: [{ name: "lookup", arguments: { word: "band" } }] } : req.attempt === 0 ? { text: story, hold, holdAfterChars: 24 } : { text: story },
    );
    await streamRig.threads.createThread({ threadId: id });
    const following = (async () => {
      const until = (b: { updates: Array<{ type: string }> }) => b.updates.some((u) => u.type === "text-delta");
      for await (const _batch of streamRig.threads.followUpdates({ threadId: id, pollInterval: 50, until }));
    })();
    await streamRig.threads.sendMessage({ threadId: id, prompt: id });
    await following;
    await streamRig.threads.stopThread({ threadId: id });
    await streamRig.threads.resumeThread({ threadId: id });
    await streamRig.threads.settled({ threadId: id });
    await streamRig.threads.deleteThread({ threadId: id });
    await streamRig.threads.workflowHandle(id).result();
  },
  // An async tool waits for its answer while a message queues behind it.
  "thread-async-tool": async (id: string) => {
    h.model.script(id, [{ toolCalls: [{ name: "askHuman", arguments: { question: "ship it?" } }] }, { text: "shipping" }, { text: "and noted" }]);
    await rig.threads.createThread({ threadId: id, prompt: id });
    await waitFor(async () => expect((await rig.threads.state({ threadId: id })).toolCalls).toMatchObject([{ state: "waiting" }]));
    await rig.threads.sendMessage({ threadId: id, prompt: "one more thing" });
    const toolCallId = seen.find((s) => s.threadId === id && s.tool === "askHuman")!.toolCallId;
    await rig.threads.addToolResult({ threadId: id, toolCallId, result: { approved: true }, answerToken: answerTokenOf(id, toolCallId) });
    await rig.threads.settled({ threadId: id });
    await deleteThread(id);
  },
  // A batch of tool calls sharing the transcript's room, then an answer.
  "thread-batch-budget": async (id: string) => {
    h.model.script(id, [{ toolCalls: [1, 2, 3].map((n) => ({ name: "lookup", arguments: { word: `w${n}` } })) }, { text: "three words" }]);
    await rig.threads.createThread({ threadId: id, prompt: id });
    await rig.threads.settled({ threadId: id });
    await deleteThread(id);
  },
  // A gated call waits for its decision through a stop, and is approved with an edit.
  "thread-approval": async (id: string) => {
    h.model.script(id, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }, { name: "gatedPayout", arguments: { amount: 2 } }] }, { text: "paid" }]);
    await gatedRig.threads.createThread({ threadId: id, prompt: id });
    await waitFor(async () => expect((await gatedRig.threads.state({ threadId: id })).approvals).toHaveLength(1));
    const [request] = (await gatedRig.threads.state({ threadId: id })).approvals;
    await gatedRig.threads.stopThread({ threadId: id });
    await gatedRig.threads.decide({ threadId: id, approvalId: request!.approvalId, decisions: [{ toolCallId: request!.calls[0]!.toolCallId, approved: true, input: { amount: 3 } }] });
    await gatedRig.threads.resumeThread({ threadId: id });
    await gatedRig.threads.settled({ threadId: id });
    await gatedRig.threads.deleteThread({ threadId: id });
    await gatedRig.threads.workflowHandle(id).result();
  },
  // A turn the model refuses for good, resumed.
  "thread-failed-then-resumed": async (id: string) => {
    h.model.script(id, [{ errors: [401], text: "works now" }]);
    await rig.threads.createThread({ threadId: id, prompt: id });
    await rig.threads.settled({ threadId: id });
    await rig.threads.resumeThread({ threadId: id });
    await rig.threads.settled({ threadId: id });
    await deleteThread(id);
  },
  // A thread that continues as new between turns, carrying its transcript and stream.
  "thread-rollover": async (id: string) => {
    h.model.respond(id, (req) =>
      req.messages.at(-1)?.role === "user" ? { toolCalls: [{ name: "lookup", arguments: { word: `w${req.turn}` } }] } : { text: `answer ${req.turn}` },
    );
    await rig.threads.createThread({ threadId: id, prompt: id, maxHistoryEvents: 30 });
    for (let i = 1; (await rig.threads.state({ threadId: id })).generation < 2; i++) {
      expect(i).toBeLessThan(20);
      await rig.threads.settled({ threadId: id });
      await rig.threads.sendMessage({ threadId: id, prompt: `message ${i}` });
    }
    await rig.threads.settled({ threadId: id });
    await deleteThread(id);
  },
  // defer() in a plain workflow, a refused payload, then the resume.
  "plain-deferred-then-resumed": async (id: string) => {
    const handle = await plain.client.workflow.start<typeof expenseApproval>("expenseApproval", {
      workflowId: id,
      taskQueue: plain.taskQueue,
      args: [{ expenseId: id, amount: 120, approver: "carol" }],
    });
    await plain.handle(id).settled();
    const { token } = expenseMail.find((m) => m.expenseId === id)!;
    await plain.resume({ token, payload: { approved: "yes" } }).catch(() => undefined);
    await plain.resume({ token, payload: { approved: true, note: "fine" } });
    await handle.result();
  },
});


describe("replay", () => {
  it("replays the histories of fresh runs against the current workflow code", async () => {
    // Scenarios run side by side: each has its own ids, and most of their time is waiting on the server.
    const recordedRuns = await Promise.all(
      Object.entries(scenarios).map(async ([name, scenario]) => {
        const workflowId = uid(name);
        // A scenario with child workflows names them: their histories are replayed (and recorded) too.
        const outcome = (await scenario(workflowId)) as { children?: string[] } | undefined;
        const ids = [{ id: workflowId, suffix: "" }, ...(outcome?.children ?? []).map((id, j) => ({ id, suffix: `.child${j + 1}` }))];
        return Promise.all(ids.map(async ({ id, suffix }) => ({ name, id, suffix, runs: await historiesOf(id) })));
      }),
    );
    const histories = [];
    for (const { name, id, suffix, runs } of recordedRuns.flat()) {
      for (const [i, history] of runs.entries()) {
        histories.push({ workflowId: id, history });
        const file = `${dir}${RECORDING}/${name}${suffix}${runs.length > 1 ? `.run${i + 1}` : ""}.json`;
        // Recording adds new scenarios only: an existing file is a history some deployed code produced.
        if (process.env.RECORD_HISTORIES && !existsSync(file)) {
          mkdirSync(`${dir}${RECORDING}`, { recursive: true });
          // The workflow id is part of what the code computed (deferral ids), so it is kept with the history.
          writeFileSync(file, JSON.stringify({ workflowId: id, history: JSON.parse(historyToJSON(history)) }));
        }
      }
    }
    await expectReplays(histories);
  });

  it("replays every recorded history under test/histories/, of every release", async () => {
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json"));
    // The release being made has a history of every scenario (each run of one that continued as new, each child).
    for (const name of Object.keys(scenarios)) expect(files.some((f) => f.startsWith(`${RECORDING}/${name}.`)), `test/histories/${RECORDING}/${name}`).toBe(true);
    await expectReplays(
      files.map((f) => {
        const { workflowId, history } = JSON.parse(readFileSync(`${dir}${f}`, "utf8"));
        return { workflowId, history: historyFromJSON(history) };
      }),
    );
  });
});

/** Every run of a workflow, oldest first, following continue-as-new. */
async function historiesOf(workflowId: string): Promise<temporal.api.history.v1.IHistory[]> {
  const { namespace, connection } = h;
  const described = await connection.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId } });
  const runs = [];
  for (let runId = described.workflowExecutionInfo?.firstRunId ?? undefined; runId; ) {
    const events = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await connection.workflowService.getWorkflowExecutionHistory({ namespace, execution: { workflowId, runId }, nextPageToken });
      events.push(...(page.history?.events ?? []));
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    runs.push({ events });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
}

async function expectReplays(histories: Array<{ workflowId: string; history: unknown }>): Promise<void> {
  const failures: string[] = [];
  // A replay on the bare bundle, as a user's CI does it: the workflows make no sink calls while
  // replaying, so it has nothing to log (it used to log "unregistered external sink" per call).
  const logged: string[] = [];
  const stopListening = onRuntimeLog((entry) => {
    if (entry.meta?.["taskQueue"]?.toString().includes("replay")) logged.push(`${entry.level} ${entry.message}`);
  });
  try {
    for await (const result of Worker.runReplayHistories({ workflowBundle: bundle, replayName: "replay" }, histories as never)) {
      if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
    }
  } finally {
    stopListening();
  }
  expect(failures).toEqual([]);
  expect(logged).toEqual([]);
}
