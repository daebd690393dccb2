import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type AgentClient, defineAgent, RunCancelledError } from "../src/index.js";
import { linkFor, payoutAgent } from "./fixtures/approvals.js";
import { cancellableAgent, control, finishTasks, seen } from "./fixtures/cancellable.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

/**
 * An agent whose calls heartbeat at most every 8 minutes (80% of a 10-minute heartbeat
 * timeout): a cancellation that waited for a heartbeat's answer would take that long.
 */
const slowModelAgent = defineAgent({ id: "slow-model", model: "gpt-4.1-mini", system: "You think for a long time.", tools: [], maxTurns: 2, timeouts: { heartbeat: "10m" } });

let h: Harness;
let agents: AgentClient;
const secretOptions = { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } };

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([cancellableAgent, payoutAgent, slowModelAgent], secretOptions));
  control.agents = agents;
});
afterAll(() => h?.close());

const events = (runId: string, tool?: string) => seen.filter((s) => s.runId === runId && (!tool || s.tool === tool)).map((s) => s.event);
const requestsOf = (runId: string) => h.model.requests.filter((r) => r.conversation === runId);

async function cancelled(runId: string): Promise<RunCancelledError> {
  const err = await agents.result({ runId }).catch((e: unknown) => e);
  expect(RunCancelledError.isInstance(err)).toBe(true);
  return err as RunCancelledError;
}

describe("cancel()", () => {
  it("between turns: a tool that finishes anyway keeps its result, and no further model call is made", async () => {
    const runId = uid("between");
    h.model.script(runId, [
      { toolCalls: [{ name: "stubbornTask", arguments: {} }], usage: { promptTokens: 5, completionTokens: 1 } },
      { text: "never reached" },
    ]);
    await agents.start(cancellableAgent, { prompt: runId, runId });
    await vi.waitFor(() => expect(events(runId)).toContain("started"), { timeout: 20_000, interval: 20 });
    await agents.cancel({ runId, reason: "between turns" });
    // The tool finishes only once the cancel is recorded.
    finishTasks(runId);
    const err = await cancelled(runId);
    expect(err.fields).toEqual({ reason: "between turns", turnsUsed: 1, usage: { promptTokens: 5, completionTokens: 1, totalTokens: 6 } });
    expect(events(runId)).toEqual(["started", "finished"]);
    expect(requestsOf(runId)).toHaveLength(1);
    expect((await agents.state({ runId })).recentMessages.at(-1)).toMatchObject({ role: "tool", content: "stubborn done" });
  });

  it("mid model call: the HTTP request to the model is aborted", async () => {
    const runId = uid("mid-model");
    const hold = h.model.hold();
    h.model.script(runId, [{ hold, text: "too slow" }]);
    await agents.start(cancellableAgent, { prompt: runId, runId });
    await hold.reached;
    await agents.cancel({ runId, reason: "user left" });
    const err = await cancelled(runId);
    expect(err.fields).toMatchObject({ reason: "user left", turnsUsed: 0 });
    await vi.waitFor(() => expect(h.model.aborted.map((a) => a.conversation)).toContain(runId), { timeout: 20_000, interval: 20 });
  });

  it("reaches the model call in flight without waiting for a heartbeat, whatever the agent's heartbeat timeout", async () => {
    const runId = uid("cancel-latency");
    const hold = h.model.hold();
    h.model.script(runId, [{ hold, text: "too slow" }]);
    await agents.start(slowModelAgent, { prompt: runId, runId });
    await hold.reached;
    await agents.cancel({ runId, reason: "user left" });
    // The heartbeat its timeout asks for is 8 minutes away: an abort seen within a minute did
    // not wait for it. How fast it comes is `npm run bench -- cancel`'s number, not a test's.
    await vi.waitFor(() => expect(h.model.aborted.map((a) => a.conversation)).toContain(runId), { timeout: 60_000, interval: 10 });
    expect((await cancelled(runId)).fields).toMatchObject({ reason: "user left", turnsUsed: 0 });
  });

  it("mid tool: the tool's AbortSignal fires", async () => {
    const runId = uid("mid-tool");
    h.model.script(runId, [{ toolCalls: [{ name: "longTask", arguments: {} }] }, { text: "never" }]);
    await agents.start(cancellableAgent, { prompt: runId, runId });
    await vi.waitFor(() => expect(events(runId)).toContain("started"), { timeout: 20_000, interval: 20 });
    await agents.cancel({ runId });
    const err = await cancelled(runId);
    expect(err.fields).toMatchObject({ reason: "cancelled", turnsUsed: 1 });
    expect(events(runId)).toEqual(["started", "aborted"]);
    expect(requestsOf(runId)).toHaveLength(1);
  });

  it("while deferred: the deferral is denied and its token reads RC5050", async () => {
    const runId = uid("deferred");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 1 } }] }]);
    const ack = await agents.run(cancellableAgent, { prompt: runId, runId });
    expect(ack.status).toBe("deferred");
    await agents.cancel({ runId, reason: "no longer needed" });
    await cancelled(runId);
    expect(await agents.deferrals.get({ deferralId: linkFor(runId).deferralId })).toMatchObject({ status: "denied", deniedReason: "AI1005" });
    await expect(agents.resume({ token: linkFor(runId).token, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5050" });
  });

  it("after a resume: AI1005 reports the whole run's spend, before and after the deferral", async () => {
    const runId = uid("resumed");
    h.model.script(runId, [
      { toolCalls: [{ name: "askApproval", arguments: { amount: 1 } }], usage: { promptTokens: 10, completionTokens: 2 } },
      { toolCalls: [{ name: "longTask", arguments: {} }], usage: { promptTokens: 20, completionTokens: 3 } },
      { text: "never" },
    ]);
    await agents.run(cancellableAgent, { prompt: runId, runId });
    const resumed = agents.resume({ token: linkFor(runId).token, payload: { approved: true } });
    await vi.waitFor(() => expect(events(runId, "longTask")).toContain("started"), { timeout: 20_000, interval: 20 });
    await agents.cancel({ runId, reason: "changed my mind" });
    expect((await resumed).outcome).toMatchObject({ status: "failed", error: { code: "AI1005" } });
    const err = await cancelled(runId);
    expect(err.fields).toEqual({ reason: "changed my mind", turnsUsed: 2, usage: { promptTokens: 30, completionTokens: 5, totalTokens: 35 } });
  });

  it("a per-run timeout cancels the run the same way", async () => {
    const runId = uid("timeout");
    h.model.script(runId, [{ toolCalls: [{ name: "longTask", arguments: {} }] }, { text: "never" }]);
    await agents.start(cancellableAgent, { prompt: runId, runId, timeout: "1500ms" });
    const err = await cancelled(runId);
    expect(err.fields.reason).toMatch(/timed out after 1500ms/);
    expect(events(runId)).toEqual(["started", "aborted"]);
  });

  it("does nothing to a finished run, and says AI1010 for an unknown one", async () => {
    const runId = uid("finished");
    h.model.script(runId, [{ text: "done" }]);
    await agents.run(cancellableAgent, { prompt: runId, runId });
    await agents.cancel({ runId });
    await expect(agents.result({ runId })).resolves.toMatchObject({ text: "done" });
    await expect(agents.cancel({ runId: uid("nobody") })).rejects.toMatchObject({ code: "AI1010" });
  });
});

describe("cancellation racing a deferral (RC5054)", () => {
  it("denies a deferral that arrives after the cancel: the link the handler sent reads RC5050", async () => {
    const runId = uid("race-deny");
    h.model.script(runId, [{ toolCalls: [{ name: "racingApproval", arguments: { deferFirst: true } }] }]);
    await agents.start(cancellableAgent, { prompt: runId, runId });
    const err = await cancelled(runId);
    expect(err.fields.reason).toBe("caller gave up");
    const token = seen.find((s) => s.runId === runId && s.event === "token")!.detail!;
    const record = await agents.deferrals.get({ deferralId: `dfr:1:${runId}` });
    expect(record).toMatchObject({ status: "denied", deniedReason: "RC5054", meta: { race: true } });
    await expect(agents.resume({ token, payload: {} })).rejects.toMatchObject({ code: "RC5050" });
  });

  it("refuses ctx.defer() once the cancel reached the call: nothing is recorded", async () => {
    const runId = uid("race-refuse");
    h.model.script(runId, [{ toolCalls: [{ name: "racingApproval", arguments: { deferFirst: false } }] }]);
    await agents.start(cancellableAgent, { prompt: runId, runId });
    await cancelled(runId);
    expect(seen.find((s) => s.runId === runId && s.event === "refused")?.detail).toBe("RC5054");
    const token = seen.find((s) => s.runId === runId && s.event === "token")!.detail!;
    await expect(agents.resume({ token, payload: {} })).rejects.toMatchObject({ code: "RC5046" });
  });
});

describe("worker shutdown is not cancellation", () => {
  it("leaves deferred runs deferred and moves in-flight calls to another worker", async () => {
    const first = await h.worker([cancellableAgent], secretOptions);
    const deferredRun = uid("sd-deferred");
    const busyRun = uid("sd-busy");
    h.model.script(deferredRun, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 1 } }] }, { text: "approved later" }]);
    h.model.script(busyRun, [{ toolCalls: [{ name: "longTask", arguments: {} }] }, { text: "finished on the second worker" }]);
    await first.agents.run(cancellableAgent, { prompt: deferredRun, runId: deferredRun });
    await first.agents.start(cancellableAgent, { prompt: busyRun, runId: busyRun });
    await vi.waitFor(() => expect(events(busyRun)).toContain("started"), { timeout: 20_000, interval: 20 });

    first.worker.shutdown();
    await first.running;
    const second = await h.worker([cancellableAgent], { ...secretOptions, taskQueue: first.taskQueue });
    // The call moved: it starts again on the second worker, which is let finish it.
    const attempts = () => seen.filter((s) => s.runId === busyRun && s.event === "started").map((s) => s.attempt);
    await vi.waitFor(() => expect(attempts()).toEqual([1, 2]), { timeout: 30_000, interval: 20 });
    finishTasks(busyRun);
    await expect(second.agents.result({ runId: busyRun })).resolves.toMatchObject({ text: "finished on the second worker" });
    expect(await second.agents.state({ runId: deferredRun })).toMatchObject({ status: "deferred" });
    const resumed = await second.agents.resume({ token: linkFor(deferredRun).token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "approved later" } });
  });
});
