import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AgentClient, defineAgent, DeferralExpiredError, type DeferralEvent } from "../src/index.js";
import { openaiModel, createAgentWorker } from "../src/worker.js";
import { approvalOptions, linkFor, outbox, payoutAgent } from "./fixtures/approvals.js";
import type { LogEntry } from "@temporalio/worker";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { onRuntimeLog } from "./test-runtime.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const withSecret = { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } };

describe("expiry", () => {
  it("fails the run with RC5047 when the TTL runs out, fires one expired event, and refuses later resumes", async () => {
    const events: DeferralEvent[] = [];
    const { agents } = await h.worker([payoutAgent], { ...withSecret, on: { expired: (e) => events.push(e) } });
    const runId = uid("expire");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 9, ttl: "1500ms" } }] }]);
    const ack = await agents.run(payoutAgent, { prompt: runId, runId });
    expect(ack.status).toBe("deferred");
    const err = await agents.result({ runId }).catch((e: unknown) => e);
    expect(DeferralExpiredError.isInstance(err)).toBe(true);
    await vi.waitFor(() => expect(events.map((e) => e.type)).toEqual(["expired"]));
    expect(events[0]).toMatchObject({ runId, deferralId: linkFor(runId).deferralId });
    expect((await agents.deferrals.get({ deferralId: linkFor(runId).deferralId })).status).toBe("expired");
    await expect(agents.resume({ token: linkFor(runId).token, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5047" });
  });

  it("is an outcome, not a fault: the worker logs no warning with a stack for it, as it does for a run that fails", async () => {
    const short = defineAgent({ ...approvalOptions, id: "payouts-short", maxTurns: 1 });
    const { agents } = await h.worker([payoutAgent, short], withSecret);
    const logged: LogEntry[] = [];
    const stop = onRuntimeLog((entry) => logged.push(entry));
    try {
      const expiring = uid("expire-quiet");
      h.model.script(expiring, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 9, ttl: "1s" } }] }]);
      await agents.run(payoutAgent, { prompt: expiring, runId: expiring });
      await expect(agents.result({ runId: expiring })).rejects.toMatchObject({ code: "RC5047" });
      // A fault (AI1004) still is one: Temporal's warning, with the error, for that run.
      const failing = uid("max-turns-loud");
      h.model.script(failing, [{ toolCalls: [{ name: "nothing", arguments: {} }] }]);
      await expect(agents.run(short, { prompt: failing, runId: failing })).rejects.toMatchObject({ code: "AI1004" });
      // The worker logs a workflow's failure before it reports it to Temporal, so both lines are in by now.
      const about = (runId: string) => logged.filter((e) => e.meta?.workflowId === runId).map((e) => `${e.level} ${e.message}`);
      expect(about(failing)).toContain("WARN Workflow failed");
      expect(about(expiring)).toEqual([]);
    } finally {
      stop();
    }
  });

  it("runs onExpired instead: it can re-ask with a fresh deferral, whose new token resumes the run", async () => {
    const reasked: string[] = [];
    const patient = defineAgent({
      ...approvalOptions,
      id: "payouts-patient",
      onExpired: (expired, ctx) => {
        reasked.push(expired.deferralId);
        outbox.push({ runId: ctx.runId, tool: "reask", toolCallId: ctx.toolCallId, deferralId: ctx.deferralId, token: ctx.deferral.token, restored: ctx.restored });
        return ctx.defer({ meta: { ...expired.meta, reasked: true }, ttl: "1h" });
      },
    });
    const { agents } = await h.worker([patient], withSecret);
    const runId = uid("reask");
    h.model.script(runId, [
      { toolCalls: [{ name: "askApproval", arguments: { amount: 3, ttl: "1s" } }] },
      { check: (req) => expect(req.messages.at(-1)!.content).toBe('{"approved":true}'), text: "approved the second time" },
    ]);
    await agents.run(patient, { prompt: runId, runId });
    await vi.waitFor(() => expect(linkFor(runId, "reask")).toBeDefined(), { timeout: 15_000 });
    const fresh = linkFor(runId, "reask");
    expect(fresh.deferralId).not.toBe(linkFor(runId).deferralId);
    expect(reasked).toEqual([linkFor(runId).deferralId]);
    // The link exists once onExpired returns; the record once its activity has reported back (RC5046 until then).
    const record = await vi.waitFor(() => agents.deferrals.get({ deferralId: fresh.deferralId }), { timeout: 15_000 });
    expect(record.meta).toMatchObject({ reasked: true, amount: 3 });
    await expect(agents.resume({ token: linkFor(runId).token, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5047" });
    const resumed = await agents.resume({ token: fresh.token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "approved the second time" } });
  });

  it("hands what onExpired returns to the model as the deferred call's result", async () => {
    const lenient = defineAgent({ ...approvalOptions, id: "payouts-lenient", onExpired: () => ({ approved: false, note: "nobody answered" }) });
    const { agents } = await h.worker([lenient], withSecret);
    const runId = uid("lenient");
    h.model.script(runId, [
      { toolCalls: [{ name: "askApproval", arguments: { amount: 3, ttl: "1s" } }] },
      { check: (req) => expect(req.messages.at(-1)!.content).toBe('{"approved":false,"note":"nobody answered"}'), text: "not paid" },
    ]);
    await agents.run(lenient, { prompt: runId, runId });
    await expect(agents.result({ runId })).resolves.toMatchObject({ text: "not paid" });
  });
});

describe("events", () => {
  it("fire once per transition: a worker that replays the run does not fire them again", async () => {
    const firstEvents: DeferralEvent[] = [];
    const secondEvents: DeferralEvent[] = [];
    const record = (into: DeferralEvent[]) => ({ deferred: (e: DeferralEvent) => into.push(e), resumed: (e: DeferralEvent) => into.push(e) });
    const first = await h.worker([payoutAgent], { ...withSecret, on: record(firstEvents) });
    const runId = uid("events");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 1 } }] }, { text: "done" }]);
    await first.agents.run(payoutAgent, { prompt: runId, runId });
    first.worker.shutdown();
    await first.running;

    // The second worker has no cached copy: it replays the whole history before resuming.
    const second = await h.worker([payoutAgent], { ...withSecret, taskQueue: first.taskQueue, on: record(secondEvents) });
    await second.agents.resume({ token: linkFor(runId).token, payload: { approved: true } });
    await second.agents.result({ runId });
    expect(firstEvents.map((e) => e.type)).toEqual(["deferred"]);
    expect(secondEvents.map((e) => e.type)).toEqual(["resumed"]);
  });
});

describe("a definition that changes while deferred", () => {
  it("refuses the resume with RC5048, denies the record (RC5050 afterwards) and fails the run", async () => {
    const first = await h.worker([payoutAgent], withSecret);
    const runId = uid("edited");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 1 } }] }]);
    await first.agents.run(payoutAgent, { prompt: runId, runId });
    first.worker.shutdown();
    await first.running;

    const edited = defineAgent({ ...approvalOptions, system: "You pay out money. Be generous." });
    const { agents } = await h.worker([edited], { ...withSecret, taskQueue: first.taskQueue });
    const { token, deferralId } = linkFor(runId);
    // The refusal names what changed, and only that.
    await expect(agents.resume({ token, payload: { approved: true } })).rejects.toMatchObject({
      code: "RC5048",
      message: expect.stringMatching(/^\[RC5048\] Agent "payouts" changed \(its system prompt\) while deferral/),
      fields: { changed: ["system"] },
    });
    expect(await agents.deferrals.get({ deferralId })).toMatchObject({ status: "denied", deniedReason: "RC5048" });
    await expect(agents.resume({ token, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5050" });
    await expect(agents.result({ runId })).rejects.toMatchObject({ code: "RC5048" });
  });

  /** Parks a run on a first worker running `before`, then serves the same queue with `after`. */
  async function parkThenSwap(before: ReturnType<typeof defineAgent>, after: ReturnType<typeof defineAgent>, runId: string) {
    const first = await h.worker([before], withSecret);
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 1 } }] }, { text: "paid" }]);
    await first.agents.run(before, { prompt: runId, runId });
    first.worker.shutdown();
    await first.running;
    return (await h.worker([after], { ...withSecret, taskQueue: first.taskQueue })).agents;
  }

  it("resumes a function system prompt built another way: its source text is not fingerprinted", async () => {
    // The same prompt as two builds would emit it: an arrow function and a transpiled one.
    const built = defineAgent({ ...approvalOptions, id: "payouts-fn", system: (info) => `You pay out money for ${info.principal?.id ?? "anyone"}.` });
    const rebuilt = defineAgent({
      ...approvalOptions,
      id: "payouts-fn",
      system: function (info) {
        const who = info.principal ? info.principal.id : "anyone";
        return "You pay out money for " + who + ".";
      },
    });
    const runId = uid("rebuilt");
    const agents = await parkThenSwap(built, rebuilt, runId);
    const resumed = await agents.resume({ token: linkFor(runId).token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "paid" } });
  });

  it("denies with RC5048 when the agent's declared version changed", async () => {
    const v1 = defineAgent({ ...approvalOptions, id: "payouts-versioned", version: "1", system: () => "You pay out money." });
    const v2 = defineAgent({ ...approvalOptions, id: "payouts-versioned", version: "2", system: () => "You pay out money." });
    const runId = uid("versioned");
    const agents = await parkThenSwap(v1, v2, runId);
    await expect(agents.resume({ token: linkFor(runId).token, payload: { approved: true } })).rejects.toMatchObject({
      code: "RC5048",
      message: expect.stringContaining('Agent "payouts-versioned" changed (its version) while'),
      fields: { changed: ["version"] },
    });
  });

  it("denies with RC5048 when the agent's model settings changed; the same settings resume", async () => {
    const cool = defineAgent({ ...approvalOptions, id: "payouts-tuned", temperature: 0 });
    const warm = defineAgent({ ...approvalOptions, id: "payouts-tuned", temperature: 1 });
    const changed = uid("tuned");
    await expect((await parkThenSwap(cool, warm, changed)).resume({ token: linkFor(changed).token, payload: { approved: true } })).rejects.toMatchObject({
      code: "RC5048",
      message: expect.stringContaining('Agent "payouts-tuned" changed (its model settings) while'),
      fields: { changed: ["settings"] },
    });
    // Two parts at once are both named.
    const typed = uid("tuned-typed");
    const retyped = defineAgent({ ...approvalOptions, id: "payouts-tuned", temperature: 1, output: z.object({ paid: z.boolean() }) });
    await expect((await parkThenSwap(cool, retyped, typed)).resume({ token: linkFor(typed).token, payload: { approved: true } })).rejects.toMatchObject({
      message: expect.stringContaining("changed (its model settings and output schema) while"),
      fields: { changed: ["settings", "output"] },
    });
    const same = uid("tuned-same");
    const resumed = await (await parkThenSwap(cool, defineAgent({ ...approvalOptions, id: "payouts-tuned", temperature: 0 }), same)).resume({ token: linkFor(same).token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed" });
  });

  it("refuses an empty or non-string version with AI1001", () => {
    expect(() => defineAgent({ ...approvalOptions, version: "" })).toThrow(/AI1001.*version/);
    expect(() => defineAgent({ ...approvalOptions, version: 2 as unknown as string })).toThrow(/AI1001.*version/);
  });

  it("refuses with AI1007 when the agent is no longer registered", async () => {
    const first = await h.worker([payoutAgent], withSecret);
    const runId = uid("gone");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 1 } }] }]);
    await first.agents.run(payoutAgent, { prompt: runId, runId });
    first.worker.shutdown();
    await first.running;

    const other = defineAgent({ ...approvalOptions, id: "someone-else" });
    const { agents } = await h.worker([other], { ...withSecret, taskQueue: first.taskQueue });
    await expect(agents.resume({ token: linkFor(runId).token, payload: { approved: true } })).rejects.toMatchObject({ code: "AI1007" });
    await expect(agents.resume({ token: linkFor(runId).token, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5050" });
  });
});

describe("configuration", () => {
  it("refuses a missing or short secret with RC5040 on worker and client", async () => {
    expect(() => new AgentClient({ taskQueue: "x", connection: h.connection, deferral: { secret: "short" } })).toThrow(/RC5040.*5 bytes/);
    await expect(
      createAgentWorker({
        connection: h.native,
        taskQueue: "x",
        agents: [payoutAgent],
        model: openaiModel({ baseURL: h.model.url }),
        deferral: { secret: "" },
        workflowBundle: h.bundle,
      }),
    ).rejects.toMatchObject({ code: "RC5040" });
    const noSecret = new AgentClient({ taskQueue: "x", connection: h.connection });
    await expect(noSecret.resume({ token: "v1.a.b", payload: {} })).rejects.toMatchObject({ code: "RC5040" });
  });

  it("fails the run with RC5052, naming the setting to add, when a tool defers on a worker without deferral config", async () => {
    const { agents } = await h.worker([payoutAgent]);
    const runId = uid("noconfig");
    h.model.script(runId, [{ toolCalls: [{ name: "askManager", arguments: { question: "?" } }] }]);
    const err = await agents.run(payoutAgent, { prompt: runId, runId }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "RC5052" });
    expect((err as Error).message).toMatch(/deferral: \{ secret \}.*createAgentWorker/);
  });
});

describe("visibility", () => {
  it("lists deferred runs by search attributes", async () => {
    const { agents } = await h.worker([payoutAgent], withSecret);
    const runId = uid("visible");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 1 } }] }]);
    await agents.run(payoutAgent, { prompt: runId, runId });
    const list = async (query: string) => {
      const ids: string[] = [];
      for await (const wf of agents.client.workflow.list({ query })) ids.push(wf.workflowId);
      return ids;
    };
    await vi.waitFor(async () => expect(await list(`DeferralStatus = "deferred" AND AgentId = "payouts" AND WorkflowId = "${runId}"`)).toEqual([runId]), {
      timeout: 15_000,
    });
    await vi.waitFor(async () => expect(await list(`DeferralExpiresAt > "${new Date().toISOString()}" AND WorkflowId = "${runId}"`)).toEqual([runId]), {
      timeout: 15_000,
    });
    await agents.resume({ token: linkFor(runId).token, payload: { approved: true } });
    await vi.waitFor(async () => expect(await list(`DeferralStatus = "resumed" AND WorkflowId = "${runId}"`)).toEqual([runId]), { timeout: 15_000 });
  });
});
