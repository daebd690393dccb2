/**
 * `modelCalls: "local"`: a run's model calls as local activities. The run behaves as with
 * activities (defer, resume, retries, cancel), its history holds markers instead of
 * model activities, and it replays.
 */
import proto from "@temporalio/proto";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type AgentClient, defineAgent, defineTool, MAX_APPROVAL_BYTES, RunCancelledError } from "../src/index.js";
import { approvalOptions, linkFor } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

const { EventType } = proto.temporal.api.enums.v1;

const localPayouts = defineAgent({ ...approvalOptions, id: "payouts-local", modelCalls: "local" });
const localWalker = defineAgent({ ...approvalOptions, id: "walker-local", maxTurns: 40, modelCalls: "local" });

/** Publishes a text once a person approves it: its arguments are what the approver reads. */
const publish = defineTool({
  name: "publish",
  description: "Publish a text",
  input: z.object({ text: z.string() }),
  needsApproval: true,
  approval: { meta: { requires: ["editor"] } },
  handler: ({ text }) => `published ${text.length} characters`,
});
const localPublisher = defineAgent({ id: "publisher-local", model: "gpt-4.1-mini", system: "You publish.", tools: [publish], maxTurns: 4, modelCalls: "local" });
const publisher = defineAgent({ id: "publisher", model: "gpt-4.1-mini", system: "You publish.", tools: [publish], maxTurns: 4 });

let h: Harness;
let agents: AgentClient;

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([localPayouts, localWalker, localPublisher, publisher], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
});
afterAll(() => h?.close());

/** What a run's history holds of its model and tool calls. */
async function callsIn(runId: string) {
  const { events } = await agents.client.workflow.getHandle(runId).fetchHistory();
  const scheduled = (events ?? []).filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
  const local = (events ?? [])
    .filter((e) => e.markerRecordedEventAttributes?.markerName === "core_local_activity")
    .map((e) => JSON.parse(Buffer.from(e.markerRecordedEventAttributes!.details!.data!.payloads![0]!.data!).toString()).activity_type as string);
  return { scheduled, local, events: events ?? [] };
}

describe("a gated call whose arguments are too large for an approval request", () => {
  for (const agent of [localPublisher, publisher]) {
    it(`fails the run with AI1016 naming the size, never terminated nor AI1003 (${agent.modelCalls === "local" ? "local model calls" : "model activities"})`, async () => {
      const runId = uid(`huge-gated-${agent.id}`);
      // 1.1 MB: one answer may weigh 1.5 MiB, but an approval request is copied to whoever decides it.
      h.model.script(runId, [{ toolCalls: [{ name: "publish", arguments: { text: "w".repeat(1_100_000) } }] }]);
      const err = await agents.run(agent, { prompt: runId, runId }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "AI1016", fields: { limitBytes: MAX_APPROVAL_BYTES, bytes: expect.any(Number) } });
      expect((err as { fields: { bytes: number } }).fields.bytes).toBeGreaterThan(1_100_000);
      expect((err as Error).message).toMatch(/approval request/);
      const { status } = await agents.client.workflow.getHandle(runId).describe();
      expect(status.name).toBe("FAILED");
      // Not retried: the same answer would come back.
      expect(h.model.requests.filter((r) => r.conversation === runId)).toHaveLength(1);
    });
  }
});

describe('modelCalls: "local"', () => {
  it("defers and resumes like a run with model activities, records markers instead, and replays", async () => {
    const runId = uid("local-payout");
    h.model.script(runId, [
      { toolCalls: [{ name: "askApproval", arguments: { amount: 40 } }] },
      {
        // The whole transcript reaches the model, tool results in full.
        check: (req) => expect(JSON.parse(req.messages.at(-1)!.content as string)).toEqual({ approved: true }),
        toolCalls: [{ name: "sendPayout", arguments: { amount: 40 } }],
      },
      { check: (req) => expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: "sent 40" }), text: "Paid 40." },
    ]);
    const ack = await agents.run(localPayouts, { prompt: runId, runId });
    expect(ack).toMatchObject({ status: "deferred" });
    const resumed = await agents.resume({ token: linkFor(runId).token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "Paid 40.", turnsUsed: 3 } });

    const { scheduled, local, events } = await callsIn(runId);
    expect(scheduled).toEqual(["callAgentTool", "callAgentTool"]);
    expect(local.filter((t) => t === "callAgentModel")).toHaveLength(3);
    const replayed = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: h.bundle, replayName: "local-model" }, [{ workflowId: runId, history: { events } }] as never)) {
      replayed.push(result.error ? String(result.error) : "ok");
    }
    expect(replayed).toEqual(["ok"]);
    h.model.assertNoFailures();
  });

  it("retries a failing model call inside the run and records only the answer", async () => {
    const runId = uid("local-retry");
    h.model.script(runId, [{ errors: [500], text: "after one failure" }]);
    const done = await agents.run(localPayouts, { prompt: runId, runId });
    expect(done).toMatchObject({ status: "completed", text: "after one failure" });
    expect(h.model.requests.filter((r) => r.conversation === runId)).toHaveLength(2);
    expect((await callsIn(runId)).local.filter((t) => t === "callAgentModel")).toHaveLength(1);
  });

  it("is cancelled mid call: the model request is aborted and the run ends cancelled", async () => {
    const runId = uid("local-cancel");
    const hold = h.model.hold();
    h.model.script(runId, [{ hold, text: "too slow" }]);
    await agents.start(localPayouts, { prompt: runId, runId });
    await hold.reached;
    await agents.cancel({ runId, reason: "user left" });
    const err = await agents.result({ runId }).catch((e: unknown) => e);
    expect(RunCancelledError.isInstance(err)).toBe(true);
    expect((err as RunCancelledError).fields).toMatchObject({ reason: "user left", turnsUsed: 0 });
    await vi.waitFor(() => expect(h.model.aborted.map((a) => a.conversation)).toContain(runId), { timeout: 15_000 });
  });

  it("continues as new with its transcript carried, every model call seeing the whole of it, and every execution replays", async () => {
    const runId = uid("local-long");
    // Each call sees every earlier answer: the carried transcript reached the model after each continue.
    h.model.respond(runId, (req, turn) => {
      expect(req.messages.filter((m) => m.role === "tool")).toHaveLength(turn);
      return turn < 30 ? { toolCalls: [{ name: "sendPayout", arguments: { amount: turn } }] } : { text: "paid thirty" };
    });
    const done = await agents.run(localWalker, { prompt: runId, runId, maxHistoryEvents: 100 });
    expect(done).toMatchObject({ status: "completed", text: "paid thirty", turnsUsed: 31 });
    const histories = [];
    for await (const execution of agents.client.workflow.list({ query: `WorkflowId = "${runId}"` })) {
      histories.push({ workflowId: runId, history: await agents.client.workflow.getHandle(runId, execution.runId).fetchHistory() });
    }
    expect(histories.length).toBeGreaterThanOrEqual(2);
    const failures = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: h.bundle, replayName: "local-long" }, histories as never)) {
      if (result.error) failures.push(String(result.error));
    }
    expect(failures).toEqual([]);
    h.model.assertNoFailures();
  });

  it("refuses any other value with AI1001", () => {
    for (const modelCalls of ["remote", "", 1, null]) {
      expect(() => defineAgent({ ...approvalOptions, id: "bad-calls", modelCalls: modelCalls as never })).toThrow(expect.objectContaining({ code: "AI1001" }));
    }
  });
});
