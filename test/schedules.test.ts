/**
 * Agents on a schedule (`agents.schedules`, on Temporal Schedules), on the dev server with a
 * one-second interval: the runs a schedule starts are ordinary runs (they park on approvals,
 * show in the inbox, act for the creator's principal); the overlap policy decides what a tick
 * does while a run is parked; bad input, unknown ids and refused callers change nothing.
 * Every wait is on the schedule's own record (its recent runs and counters) or a run's status.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  AgentClient,
  AgentNotRegisteredError,
  directStreamTransport,
  InvalidDefinitionError,
  PayloadTooLargeError,
  ScheduleAlreadyExistsError,
  ScheduleNotFoundError,
  ScheduleSpecInvalidError,
  ScheduleUnauthorizedError,
  type AgentScheduleDescription,
  type AuthorizeRequest,
  type StreamUpdate,
} from "../src/index.js";
import { STREAM_KEY_MEMO } from "../src/core/stream-key.js";
import { gatedFixtures } from "./gated-fixtures.js";
import { deltaText } from "./stream-entries.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
let taskQueue: string;
const { payouts } = gatedFixtures("sched");
const alice = { id: "alice", roles: ["payouts:approve"] };

/** A prompt whose runs park on a gated payout, then answer once it is decided. */
function parkingPrompt(): string {
  const prompt = uid("pay the contractors");
  h.model.respond(prompt, (_req, turn) => (turn === 0 ? { toolCalls: [{ name: "sendPayout", arguments: { amount: 10, to: "acme" } }] } : { text: "paid" }));
  return prompt;
}

/** The schedule once `until` holds for it: the schedule's own record is what the test waits on. */
function described(scheduleId: string, until: (d: AgentScheduleDescription) => boolean, client = agents): Promise<AgentScheduleDescription> {
  return vi.waitFor(
    async () => {
      const d = await client.schedules.describe({ scheduleId });
      if (!until(d)) throw new Error(`schedule not there yet: ${JSON.stringify({ runs: d.recentRuns, skipped: d.skippedOverlap })}`);
      return d;
    },
    { timeout: 20_000, interval: 100 },
  );
}

/** A run that is parked on its approval, per its own status line. */
const parked = (runId: string) => vi.waitFor(async () => expect((await agents.state({ runId })).status).toBe("deferred"), { timeout: 20_000, interval: 50 });

beforeAll(async () => {
  h = await startHarness();
  ({ agents, taskQueue } = await h.worker([payouts], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
});
afterAll(() => h?.close());

describe("a schedule's runs", () => {
  it("are ordinary runs: they park on an approval, show in the inbox as the creator's, and with SKIP the next time is skipped while one is parked", async () => {
    const scheduleId = uid("nightly-payouts");
    const prompt = parkingPrompt();
    await agents.schedules.create({ scheduleId, agent: payouts, spec: { every: "1s" }, prompt, principal: alice, overlap: "SKIP" });
    try {
      const withSkip = await described(scheduleId, (d) => d.recentRuns.length >= 1 && d.skippedOverlap >= 1);
      // One run, parked, while later times came and were skipped.
      expect(withSkip.runsStarted).toBe(1);
      const [run] = withSkip.recentRuns;
      expect(run!.runId.startsWith(`${scheduleId}-`)).toBe(true);
      await parked(run!.runId);
      expect((await agents.schedules.describe({ scheduleId })).recentRuns[0]).toMatchObject({ runId: run!.runId, status: "parked" });
      expect(withSkip).toMatchObject({ agentId: payouts.id, taskQueue, prompt, runsAs: alice, overlap: "SKIP", paused: false });

      // The run Temporal started carries what agents.start gives a run: agent search attribute, stream key, principal.
      const wf = await agents.client.workflow.getHandle(run!.runId).describe();
      expect(wf.typedSearchAttributes.getAll().find((p) => p.key.name === "AgentId")?.value).toBe(payouts.id);
      expect(wf.memo?.[STREAM_KEY_MEMO]).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const request = await vi.waitFor(
        async () => {
          const row = (await agents.approvals.list()).approvals.find((a) => a.runId === run!.runId);
          expect(row).toBeDefined();
          return row!;
        },
        { timeout: 20_000, interval: 50 },
      );
      const record = await agents.deferrals.getRecord({ deferralId: request.approvalId });
      expect(record.principal).toMatchObject({ id: "alice" });

      // A trigger starts a run whatever the schedule's policy (ALLOW_ALL, Temporal's default for it).
      await agents.schedules.trigger({ scheduleId });
      const triggered = (await described(scheduleId, (d) => d.recentRuns.length === 2)).recentRuns[1]!;
      await parked(triggered.runId);
      // Deleting the schedule leaves its runs going: the first is decided afterwards and completes.
      await agents.schedules.delete({ scheduleId });
      const [call] = record.approval!.calls;
      await agents.approvals.decide({ approvalId: request.approvalId, decisions: [{ toolCallId: call!.toolCallId, approved: true }], principal: alice });
      expect(await agents.result({ runId: run!.runId })).toMatchObject({ status: "completed", text: "paid" });
      await agents.cancel({ runId: triggered.runId });
    } finally {
      await agents.schedules.delete({ scheduleId }).catch(() => undefined);
    }
  });

  it("with ALLOW_ALL start again while the first is parked: two runs wait side by side", async () => {
    const scheduleId = uid("allow-all");
    const prompt = parkingPrompt();
    await agents.schedules.create({ scheduleId, agent: payouts.id, spec: { every: "1s" }, prompt, principal: alice, overlap: "ALLOW_ALL" });
    let runIds: string[] = [];
    try {
      const d = await described(scheduleId, (s) => s.recentRuns.length >= 2);
      await agents.schedules.pause({ scheduleId, note: "enough" });
      runIds = d.recentRuns.map((r) => r.runId);
      expect(new Set(runIds).size).toBe(runIds.length);
      for (const runId of runIds.slice(0, 2)) await parked(runId);
      expect(d.skippedOverlap).toBe(0);
      // Both wait at once: the second did not wait for the first.
      expect((await agents.schedules.describe({ scheduleId })).recentRuns.filter((r) => r.status === "parked").length).toBeGreaterThanOrEqual(2);
    } finally {
      await agents.schedules.delete({ scheduleId });
      const left = (await agents.schedules.describe({ scheduleId }).catch(() => undefined)) ?? { recentRuns: [] };
      for (const runId of [...runIds, ...left.recentRuns.map((r) => r.runId)]) await agents.cancel({ runId }).catch(() => undefined);
    }
  });

  it("stream like any run: a reader in another process has the deltas from the worker's endpoint, proving the schedule's stream key, while the model still writes", async () => {
    // The worker serves its runs' streams from an endpoint; the reader has a transport of its own, as another process would.
    const served = directStreamTransport({ host: "127.0.0.1" });
    const reading = directStreamTransport();
    const { agents: own, taskQueue: queue } = await h.worker([payouts], { deferral: { secret: SECRET }, threads: { stream: { transport: served } }, client: { stream: { transport: served } } });
    const reader = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue: queue, stream: { transport: reading } });
    const scheduleId = uid("streamed");
    const prompt = uid("write the morning report");
    const story = "The payouts of yesterday all reconciled except two, which wait on finance.";
    const mid = h.model.hold();
    h.model.script(prompt, [{ text: story, holds: [{ hold: mid, afterChars: 40 }] }]);
    await own.schedules.create({ scheduleId, agent: payouts, spec: { cron: "0 0 1 1 *" }, prompt, stream: true, paused: true });
    try {
      await own.schedules.trigger({ scheduleId });
      const { runId } = (await described(scheduleId, (d) => d.recentRuns.length === 1, own)).recentRuns[0]!;
      const updates: StreamUpdate[] = [];
      const following = (async () => {
        for await (const batch of reader.followUpdates({ runId, until: (b) => b.updates.some((u) => u.type === "status" && u.status === "completed") })) updates.push(...batch.updates);
      })();
      await mid.reached;
      // Held mid-answer: deltas live only on the endpoint, so what the reader has came from it.
      await vi.waitFor(() => expect(deltaText(updates).length).toBeGreaterThanOrEqual(40), { timeout: 20_000, interval: 20 });
      expect(updates.some((u) => u.type === "message" && u.message.role === "assistant")).toBe(false);
      mid.release();
      await following;
      expect(await own.result({ runId })).toMatchObject({ text: story });
    } finally {
      mid.release();
      await own.schedules.delete({ scheduleId });
      await Promise.all([reading.close(), served.close()]);
    }
  });

  it("of an agent no worker serves fail with AI1002, which describe and the run's result show", async () => {
    const scheduleId = uid("orphan");
    await agents.schedules.create({ scheduleId, agent: "nobody-serves-this", spec: { cron: "0 0 1 1 *" }, prompt: "reconcile", paused: true });
    try {
      await agents.schedules.trigger({ scheduleId });
      const d = await described(scheduleId, (s) => s.recentRuns.length === 1 && s.recentRuns[0]!.status === "failed");
      expect(d.paused).toBe(true);
      await expect(agents.result({ runId: d.recentRuns[0]!.runId })).rejects.toBeInstanceOf(AgentNotRegisteredError);
    } finally {
      await agents.schedules.delete({ scheduleId });
    }
  });
});

describe("managing a schedule", () => {
  it("pause, unpause, update and list keep what they do not change; delete leaves nothing", async () => {
    const scheduleId = uid("managed");
    await agents.schedules.create({ scheduleId, agent: payouts, spec: { cron: "0 9 * * MON-FRI", timezone: "Europe/Paris" }, prompt: "morning", principal: alice, paused: true, note: "not yet" });
    const first = await agents.schedules.describe({ scheduleId });
    expect(first).toMatchObject({ paused: true, note: "not yet", prompt: "morning", runsAs: alice, spec: { timezone: "Europe/Paris" } });
    expect(first.nextRunTimes.length).toBeGreaterThan(0);
    const streamKey = async () => (await agents.client.schedule.getHandle(scheduleId).describe()).action.memo?.[STREAM_KEY_MEMO];
    const keyBefore = await streamKey();
    expect(keyBefore).toMatch(/^[A-Za-z0-9_-]{43}$/);

    await agents.schedules.update({ scheduleId, prompt: "evening", spec: { every: "1h" }, overlap: "BUFFER_ONE", principal: { id: "ops" } });
    const updated = await agents.schedules.describe({ scheduleId });
    // Who the runs act for never changes; the stream key neither (readers of older and newer runs prove the same one).
    expect(updated).toMatchObject({ paused: true, note: "not yet", prompt: "evening", runsAs: alice, overlap: "BUFFER_ONE", spec: { intervals: [{ every: 3_600_000 }] } });
    expect(await streamKey()).toBe(keyBefore);

    await agents.schedules.unpause({ scheduleId });
    expect((await agents.schedules.describe({ scheduleId })).paused).toBe(false);
    await agents.schedules.pause({ scheduleId });
    expect((await agents.schedules.describe({ scheduleId })).paused).toBe(true);

    const listed = await vi.waitFor(
      async () => {
        const row = (await agents.schedules.list({ agentId: payouts.id })).schedules.find((s) => s.scheduleId === scheduleId);
        expect(row).toBeDefined();
        return row!;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(listed).toMatchObject({ agentId: payouts.id, recentRuns: [] });
    expect((await agents.schedules.list({ agentId: "another-agent" })).schedules.find((s) => s.scheduleId === scheduleId)).toBeUndefined();

    await agents.schedules.delete({ scheduleId });
    await expect(agents.schedules.describe({ scheduleId })).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });
});

describe("hostile input changes nothing", () => {
  it("a cron that does not parse, a sub-second interval, two specs at once, an unknown overlap: AI1092, nothing created", async () => {
    const bad: Array<{ spec: unknown; overlap?: unknown; catchupWindow?: unknown }> = [
      { spec: { cron: "every tuesday-ish" } },
      { spec: { cron: "61 * * * *" } },
      { spec: { every: "500ms" } },
      { spec: { every: "soon" } },
      { spec: { every: "1h", cron: "0 * * * *" } },
      { spec: {} },
      { spec: "0 9 * * *" },
      { spec: { every: "1h" }, overlap: "SOMETIMES" },
      { spec: { every: "1h" }, catchupWindow: "1s" },
    ];
    for (const { spec, ...rest } of bad) {
      const scheduleId = uid("bad-spec");
      const err = await agents.schedules.create({ scheduleId, agent: payouts, prompt: "x", spec: spec as never, ...(rest as object) }).catch((e: unknown) => e);
      expect(err, JSON.stringify(spec)).toBeInstanceOf(ScheduleSpecInvalidError);
      await expect(agents.schedules.describe({ scheduleId })).rejects.toBeInstanceOf(ScheduleNotFoundError);
    }
  });

  it("malformed options are AI1001 before anything is asked or created: ids, principal, prompt, limit", async () => {
    const scheduleId = uid("malformed");
    const bad: Array<Record<string, unknown>> = [
      { scheduleId: "" },
      { scheduleId: "a\u0000b" },
      { scheduleId: "x".repeat(901) },
      { principal: { id: "p", when: new Date() } },
      { prompt: 42 },
      { agent: "" },
      { paused: "yes" },
    ];
    for (const override of bad) {
      const err = await agents.schedules.create({ scheduleId, agent: payouts, prompt: "x", spec: { every: "1h" }, ...override } as never).catch((e: unknown) => e);
      expect(err, JSON.stringify(Object.keys(override))).toBeInstanceOf(InvalidDefinitionError);
    }
    await expect(agents.schedules.describe({ scheduleId })).rejects.toBeInstanceOf(ScheduleNotFoundError);
    await expect(agents.schedules.list({ limit: 0 })).rejects.toBeInstanceOf(InvalidDefinitionError);
    await expect(agents.schedules.describe({ scheduleId: "" })).rejects.toBeInstanceOf(InvalidDefinitionError);
  });

  it("an oversized prompt is AI1016 and creates nothing", async () => {
    const scheduleId = uid("huge");
    await expect(agents.schedules.create({ scheduleId, agent: payouts, prompt: "x".repeat(3 * 1024 * 1024), spec: { every: "1h" } })).rejects.toBeInstanceOf(PayloadTooLargeError);
    await expect(agents.schedules.describe({ scheduleId })).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });

  it("a taken id is AI1091 and the schedule that has it is unchanged", async () => {
    const scheduleId = uid("taken");
    await agents.schedules.create({ scheduleId, agent: payouts, prompt: "first", spec: { every: "1h" }, paused: true });
    try {
      await expect(agents.schedules.create({ scheduleId, agent: payouts, prompt: "second", spec: { every: "2h" } })).rejects.toBeInstanceOf(ScheduleAlreadyExistsError);
      expect(await agents.schedules.describe({ scheduleId })).toMatchObject({ prompt: "first", paused: true, spec: { intervals: [{ every: 3_600_000 }] } });
    } finally {
      await agents.schedules.delete({ scheduleId });
    }
  });

  it("an unknown schedule is AI1090 for every operation, and so is a Temporal schedule that starts something else (left untouched)", async () => {
    const missing = uid("missing");
    const foreign = uid("foreign");
    await agents.client.schedule.create({ scheduleId: foreign, spec: { intervals: [{ every: "1h" }] }, action: { type: "startWorkflow", workflowType: "somethingElse", taskQueue, args: [] }, state: { paused: true } });
    try {
      for (const scheduleId of [missing, foreign]) {
        await expect(agents.schedules.describe({ scheduleId })).rejects.toBeInstanceOf(ScheduleNotFoundError);
        await expect(agents.schedules.pause({ scheduleId })).rejects.toBeInstanceOf(ScheduleNotFoundError);
        await expect(agents.schedules.unpause({ scheduleId })).rejects.toBeInstanceOf(ScheduleNotFoundError);
        await expect(agents.schedules.trigger({ scheduleId })).rejects.toBeInstanceOf(ScheduleNotFoundError);
        await expect(agents.schedules.update({ scheduleId, prompt: "x" })).rejects.toBeInstanceOf(ScheduleNotFoundError);
        await expect(agents.schedules.delete({ scheduleId })).rejects.toBeInstanceOf(ScheduleNotFoundError);
      }
      const untouched = await agents.client.schedule.getHandle(foreign).describe();
      expect(untouched.state.paused).toBe(true);
      expect(untouched.info.recentActions).toEqual([]);
    } finally {
      await agents.client.schedule.getHandle(foreign).delete();
    }
  });
});

describe("authorize", () => {
  it("is asked about each schedule operation; a refusal is AI1093 and changes nothing", async () => {
    const asked: AuthorizeRequest[] = [];
    const guarded = new AgentClient({
      connection: h.connection,
      namespace: h.namespace,
      taskQueue,
      authorize: (request) => {
        asked.push(request);
        return request.principal?.id === "ops";
      },
    });
    const ops = { id: "ops" };
    const mallory = { id: "mallory" };
    const scheduleId = uid("guarded");
    await expect(guarded.schedules.create({ scheduleId, agent: payouts, prompt: "x", spec: { every: "1h" }, principal: mallory })).rejects.toBeInstanceOf(ScheduleUnauthorizedError);
    await expect(agents.schedules.describe({ scheduleId })).rejects.toBeInstanceOf(ScheduleNotFoundError);

    await guarded.schedules.create({ scheduleId, agent: payouts, prompt: "x", spec: { every: "1h" }, principal: ops, paused: true });
    try {
      expect(asked.at(-1)).toEqual({ operation: "schedule.create", principal: ops, scheduleId, agentId: payouts.id, runsAs: ops });
      const refused = [
        ["schedule.get", () => guarded.schedules.describe({ scheduleId, principal: mallory })],
        ["schedule.pause", () => guarded.schedules.pause({ scheduleId, principal: mallory })],
        ["schedule.unpause", () => guarded.schedules.unpause({ scheduleId, principal: mallory })],
        ["schedule.trigger", () => guarded.schedules.trigger({ scheduleId, principal: mallory })],
        ["schedule.update", () => guarded.schedules.update({ scheduleId, prompt: "mine now", principal: mallory })],
        ["schedule.delete", () => guarded.schedules.delete({ scheduleId, principal: mallory })],
      ] as const;
      for (const [operation, call] of refused) {
        await expect(call(), operation).rejects.toMatchObject({ code: "AI1093", fields: { operation, scheduleId } });
        expect(asked.at(-1)).toMatchObject({ operation, scheduleId, principal: mallory });
      }
      expect(asked.find((r) => r.operation === "schedule.update")).toMatchObject({ agentId: payouts.id, runsAs: ops });
      // Nothing changed: still paused, same prompt, no run started.
      expect(await guarded.schedules.describe({ scheduleId, principal: ops })).toMatchObject({ paused: true, prompt: "x", runsStarted: 0 });
      // A listing leaves out the rows the hook refuses.
      await vi.waitFor(async () => expect((await guarded.schedules.list({ principal: ops })).schedules.map((s) => s.scheduleId)).toContain(scheduleId), { timeout: 20_000, interval: 100 });
      expect((await guarded.schedules.list({ principal: mallory })).schedules).toEqual([]);
      expect(asked.at(-1)).toMatchObject({ operation: "schedule.list", principal: mallory });
    } finally {
      await guarded.schedules.delete({ scheduleId, principal: ops });
    }
  });
});
