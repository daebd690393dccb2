/**
 * With the codec on, everything still works end to end, and nothing a user wrote reaches
 * what Temporal stores: threads streaming (to a ThreadsClient follower and through the
 * HTTP front door's event stream), replacing a parked run's transcript, a run that
 * continues as new, runs started over HTTP. Search attributes are never encrypted: ours
 * hold none of it. Summaries and details the Temporal UI shows go through the codec too.
 */
import { randomBytes } from "node:crypto";
import { defaultPayloadConverter } from "@temporalio/common";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { aesGcmCodec, defineAgent, defineTool, replaceDeferredThread, type AgentClient, type StreamUpdate } from "../src/index.js";
import { encryptedWorker, rawClient, rawHistory, storedBytes } from "./codec-support.js";
import { approvalOptions, askApproval, linkFor, payoutAgent } from "./fixtures/approvals.js";
import { completed, startHarness, uid, type Harness } from "./harness.js";
import { authenticate, openEvents, startHttp, type HttpServer, type SseEvent } from "./http-support.js";
import { chatAgent } from "./thread-support.js";

const step = defineTool({ name: "step", description: "One small step", input: z.object({ i: z.number(), note: z.string() }), handler: ({ i, note }) => `ok ${i} ${note}` });
const walker = defineAgent({ ...approvalOptions, id: "walker", tools: [step, askApproval], maxTurns: 200 });
const codec = aesGcmCodec({ keys: { k: randomBytes(32) }, current: "k" });

let h: Harness;
let agents: AgentClient;
let http: HttpServer;
beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await encryptedWorker(h, [payoutAgent, walker, chatAgent], codec, { client: { threads: { agent: chatAgent } } }));
  http = await startHttp({ agents, authenticate });
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

const markerOf = (prefix: string) => `${prefix}${randomBytes(5).toString("hex")}`;
const updatesOf = (events: SseEvent[]) => events.filter((e) => e.event === "message").map((e) => JSON.parse(e.data) as StreamUpdate);

/** Every execution of a workflow, oldest first, following the continue-as-new chain. */
async function executionsOf(workflowId: string): Promise<string[]> {
  const raw = rawClient(h).client;
  // The service's answer itself: the client's describe() would decode the memo (the stream key), which the codec encrypted.
  const described = await raw.workflowService.describeWorkflowExecution({ namespace: h.namespace, execution: { workflowId } });
  let runId: string | undefined = described.workflowExecutionInfo?.firstRunId ?? undefined;
  const runs: string[] = [];
  while (runId) {
    runs.push(runId);
    const history = await raw.workflow.getHandle(workflowId, runId).fetchHistory();
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
}

describe("with the codec on", () => {
  it("streams a thread's answer to a follower and through the front door's event stream, and stores none of it in the clear", async () => {
    const marker = markerOf("THREAD");
    const text = `Once upon a time ${marker} the thread streamed its answer in small pieces to every reader.`;
    const prompt = `${uid("story")} ${marker}`;
    // The model stops after the marker until both readers have seen part of the answer.
    const hold = h.model.hold();
    h.model.script(prompt, [{ text, hold, holdAfterChars: text.indexOf(marker) + marker.length }]);
    const threadId = uid("enc-thread");
    await agents.threads.createThread({ threadId, prompt });
    const reader = await openEvents(`${http.url}/threads/${threadId}/events`);
    expect(reader.status).toBe(200);
    const deltas: string[] = [];
    const following = (async () => {
      for await (const batch of agents.threads.followUpdates({ threadId, until: (b) => b.updates.some((u) => u.type === "message" && u.message.role === "assistant") })) {
        for (const u of batch.updates) if (u.type === "text-delta") deltas.push(u.text);
      }
    })();
    await vi.waitFor(() => expect(updatesOf(reader.events).some((u) => u.type === "text-delta")).toBe(true), { timeout: 30_000, interval: 20 });
    // What the follower saw before the model went on: the answer up to the marker, decrypted on the way.
    await vi.waitFor(() => expect(deltas.join("")).toContain(marker), { timeout: 30_000, interval: 20 });
    expect(text.startsWith(deltas.join(""))).toBe(true);
    hold.release();
    await following;
    expect(text.startsWith(deltas.join(""))).toBe(true);
    await reader.until((_e, all) => updatesOf(all).some((u) => u.type === "message" && u.message.role === "assistant"));
    reader.close();
    expect(updatesOf(reader.events).find((u) => u.type === "message" && u.message.role === "assistant")).toMatchObject({ message: { content: text } });
    const view = await agents.threads.settled({ threadId });
    expect(view.status).toBe("completed");
    expect((await agents.threads.listMessages({ threadId })).messages.at(-1)).toMatchObject({ role: "assistant", content: text });
    expect(await storedBytes(h, threadId)).not.toContain(marker);
  });

  it("replaces a parked run's transcript, then resumes it, and the rewrite is stored encrypted", async () => {
    const marker = markerOf("REWRITE");
    const runId = uid("enc-rewrite");
    h.model.script(`${runId} ${marker}`, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 9 } }] }]);
    // The model keys conversations by the first user message: after the rewrite, that is the compacted one.
    h.model.script(`compacted ${marker} request`, [{ text: "(never asked)" }, { text: `done ${marker}` }]);
    const ack = await agents.run(payoutAgent, { prompt: `${runId} ${marker}`, runId });
    expect(ack).toMatchObject({ status: "deferred" });
    const { deferralId } = ack as { deferralId: string };
    const swap = await replaceDeferredThread(agents.deferrals, { deferralId, rewrite: (messages) =>
      messages.map((m) => (m.role === "user" ? { ...m, content: `compacted ${marker} request` } : m)) }
    );
    expect(swap.won).toBe(true);
    expect(swap.deferral.stepState!.messages[0]).toMatchObject({ role: "user", content: `compacted ${marker} request` });
    const resumed = await agents.resume({ token: linkFor(runId).token, payload: { approved: true, note: marker } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: `done ${marker}` } });
    // The model saw the rewritten transcript.
    expect(h.model.requests.filter((r) => r.conversation === `compacted ${marker} request`)).toHaveLength(1);
    const stored = await storedBytes(h, runId);
    expect(stored).not.toContain(marker);
    expect(stored).not.toContain("compacted");
  });

  it("continues a long run as new, carrying its encrypted transcript, and completes", async () => {
    const marker = markerOf("LONG");
    const runId = uid("enc-walk");
    h.model.respond(`${runId} ${marker}`, (_req, turn) =>
      turn < 30 ? { toolCalls: [{ name: "step", arguments: { i: turn, note: marker } }] } : { text: `walked ${marker}` },
    );
    const result = await completed(agents.run(walker, { prompt: `${runId} ${marker}`, runId, maxHistoryEvents: 100 }));
    expect(result).toMatchObject({ text: `walked ${marker}`, turnsUsed: 31 });
    const runs = await executionsOf(runId);
    expect(runs.length).toBeGreaterThan(1);
    for (const run of runs) expect(await storedBytes(h, runId, run)).not.toContain(marker);
    // The last execution's transcript holds the first execution's tool results: carried, decrypted where read.
    const page = await agents.listMessages({ runId, limit: 5 });
    expect(page.messages[0]).toMatchObject({ role: "user", content: `${runId} ${marker}` });
  });

  it("starts and reads a run through the HTTP front door", async () => {
    const marker = markerOf("HTTP");
    const runId = uid("enc-http");
    h.model.script(`${runId} ${marker}`, [{ text: `hello ${marker}` }]);
    const started = await http.call("POST", "/runs", { user: "fiona", body: { agent: "payouts", prompt: `${runId} ${marker}`, runId, wait: true } });
    expect(started.status).toBe(200);
    expect(started.body.settled).toMatchObject({ status: "completed", text: `hello ${marker}` });
    const messages = await http.call("GET", `/runs/${runId}/messages`, { user: "fiona" });
    expect(messages.body.messages.at(-1)).toMatchObject({ role: "assistant", content: `hello ${marker}` });
    expect(await storedBytes(h, runId)).not.toContain(marker);
  });

  it("keeps personal data out of search attributes, which no codec encrypts", async () => {
    const marker = markerOf("PERSONAL");
    const runId = uid("enc-attrs");
    h.model.script(`${runId} ${marker}`, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 3 } }] }]);
    expect(await agents.run(payoutAgent, { prompt: `${runId} ${marker}`, runId, principal: { id: `user-${marker}`, email: `${marker}@example.com` } })).toMatchObject({ status: "deferred" });
    const threadId = uid("enc-attrs-thread");
    h.model.script(`hi ${marker}`, [{ text: `hello ${marker}` }]);
    await agents.threads.createThread({ threadId, prompt: `hi ${marker}`, principal: { id: `user-${marker}` } });
    await agents.threads.settled({ threadId });
    for (const id of [runId, threadId]) {
      // The service's answer itself: the client's describe() would decode the memo, which the codec encrypted.
      const described = { raw: await rawClient(h).client.workflowService.describeWorkflowExecution({ namespace: h.namespace, execution: { workflowId: id } }) };
      const attributes = described.raw.workflowExecutionInfo?.searchAttributes?.indexedFields ?? {};
      // Search attribute values are plain JSON payloads: decoded, they are what the visibility store indexes.
      const values = Object.entries(attributes).map(([key, payload]) => `${key}=${JSON.stringify(defaultPayloadConverter.fromPayload(payload))}`);
      expect(values.length, id).toBeGreaterThan(0);
      expect(values.join("\n")).not.toContain(marker);
      const memo = Object.values(described.raw.workflowExecutionInfo?.memo?.fields ?? {}).map((p) => Buffer.from(p.data ?? []).toString("latin1"));
      expect(memo.join("\n")).not.toContain(marker);
    }
    // What they do hold: the agent, and for a parked run its deferral's status, id and expiry.
    const parked = { raw: await rawClient(h).client.workflowService.describeWorkflowExecution({ namespace: h.namespace, execution: { workflowId: runId } }) };
    expect(Object.keys(parked.raw.workflowExecutionInfo!.searchAttributes!.indexedFields!)).toEqual(expect.arrayContaining(["AgentId", "DeferralStatus", "DeferralId", "DeferralExpiresAt"]));
  });

  it("encrypts what the Temporal UI shows (static summary, activity summaries), which a client with the codec reads back", async () => {
    const marker = markerOf("SUMMARY");
    const runId = uid("enc-summary");
    h.model.script(`${marker} please pay`, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 4 } }] }]);
    expect(await agents.run(payoutAgent, { prompt: `${marker} please pay`, runId })).toMatchObject({ status: "deferred" });
    const raw = await rawClient(h).client.workflowService.describeWorkflowExecution({ namespace: h.namespace, execution: { workflowId: runId } });
    const summary = raw.executionConfig?.userMetadata?.summary;
    expect(Buffer.from(summary?.metadata?.encoding ?? []).toString()).toBe("binary/encrypted");
    expect(Buffer.from(summary?.data ?? []).toString("latin1")).not.toContain(marker);
    expect(await (await agents.client.workflow.getHandle(runId).describe()).staticSummary()).toBe(`agent payouts: "${marker} please pay"`);

    const scheduled = ((await rawHistory(h, runId)).events ?? []).filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled.length).toBeGreaterThan(0);
    const summaries: string[] = [];
    for (const event of scheduled) {
      const sealed = event.userMetadata?.summary;
      expect(Buffer.from(sealed?.metadata?.encoding ?? []).toString()).toBe("binary/encrypted");
      const [opened] = await codec.decode([sealed!]);
      summaries.push(defaultPayloadConverter.fromPayload<string>(opened!));
    }
    expect(summaries).toEqual(["model gpt-4.1-mini · step 1", "tool askApproval"]);
    await vi.waitFor(async () => expect(await agents.state({ runId })).toMatchObject({ status: "deferred" }));
  });
});
