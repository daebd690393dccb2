/**
 * Deciding an approval request's calls one at a time: a resume (or `approvals.decide`,
 * `threads.decide`) may decide any non-empty subset of the calls still undecided, in any
 * order, by different principals. An approved call runs as soon as it is decided, the run
 * stays parked on the same request (a thread's turn keeps holding) for the rest, and the
 * model goes on once every call of the step has a result. The same token decides the rest;
 * a second decision for a call reads `duplicate` with that call's outcome.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import { AgentClient, defineAgent, defineTool, type ApprovalRequestInfo, type AuthorizeRequest } from "../src/index.js";
import { SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
let guarded: AgentClient;
let taskQueue: string;

/** Every payout a handler made, in order: each approved call must appear exactly once. */
const paid: Array<{ key: string; to: string; by: string | undefined }> = [];
const notified: ApprovalRequestInfo[] = [];
const asked: AuthorizeRequest[] = [];

const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send money to someone",
  input: z.object({ amount: z.number().positive(), to: z.string() }),
  needsApproval: true,
  approval: { ttl: "1h", meta: { requires: ["payouts:approve"] }, notify: (request) => void notified.push(request) },
  handler: ({ amount, to }, ctx) => {
    paid.push({ key: ctx.runId ?? ctx.threadId ?? "", to, by: ctx.resumedBy?.id });
    return `sent ${amount} to ${to}`;
  },
});

/** Its request expires in a few seconds: long enough for one decision to come first. */
const quickPayout = defineTool({
  name: "quickPayout",
  description: "Send money now",
  input: z.object({ to: z.string() }),
  needsApproval: true,
  approval: { ttl: "4s", notify: (request) => void notified.push(request) },
  handler: ({ to }, ctx) => {
    paid.push({ key: ctx.runId ?? ctx.threadId ?? "", to, by: ctx.resumedBy?.id });
    return `sent quickly to ${to}`;
  },
});

const payouts = defineAgent({ id: "per-call-payouts", model: "gpt-4.1-mini", system: "You pay invoices.", tools: [sendPayout, quickPayout], maxTurns: 6 });

const payoutCall = (to: string) => ({ name: "sendPayout", arguments: { amount: 10, to } });
const paidTo = (key: string) => paid.filter((p) => p.key === key).map((p) => p.to);
const modelCalls = (conversation: string) => h.model.requests.filter((r) => r.conversation === conversation).length;

beforeAll(async () => {
  h = await startHarness();
  ({ agents, taskQueue } = await h.worker([payouts], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, threads: { agent: payouts } } }));
  guarded = new AgentClient({
    connection: h.connection,
    namespace: h.namespace,
    taskQueue,
    deferral: { secret: SECRET },
    authorize: (req) => {
      asked.push(req);
      return true;
    },
  });
});
afterAll(() => h?.close());

/** Starts a run whose model asks for three payouts in one step; returns the request once the approvers were told. */
async function parkedOnThree(runId: string) {
  h.model.script(runId, [
    { toolCalls: [payoutCall("ann"), payoutCall("bob"), payoutCall("cy")] },
    {
      // The model is called again only once every call has its result.
      check: (req) => expect(req.messages.filter((m) => m.role === "tool").map((m) => m.content).sort()).toEqual(["sent 10 to ann", "sent 10 to bob", "sent 10 to cy"]),
      text: "all paid",
    },
  ]);
  const ack = await agents.run(payouts, { prompt: runId, runId, principal: { id: "clerk" } });
  expect(ack).toMatchObject({ status: "deferred" });
  return vi.waitFor(() => notified.find((n) => n.runId === runId) ?? expect.fail("not told yet"), { timeout: 10_000, interval: 20 });
}

describe("a run's request decided call by call", () => {
  it("runs each approved call right after its decision, by three principals in reverse order, and calls the model once, after the last", async () => {
    const runId = uid("per-call-run");
    const request = await parkedOnThree(runId);
    const ids = request.calls.map((c) => c.toolCallId);
    expect(modelCalls(runId)).toBe(1);
    const deciders = ["carol", "bea", "al"];
    for (const [i, toolCallId] of [...ids].reverse().entries()) {
      const reply = await guarded.approvals.decide({ approvalId: request.approvalId, decisions: [{ toolCallId, approved: true }], principal: { id: deciders[i]! } });
      // The authorize hook is told which call this decision decides.
      expect(asked.filter((a) => a.operation === "resume" && a.deferralId === request.approvalId).at(-1)).toMatchObject({ decides: [toolCallId], principal: { id: deciders[i] } });
      if (i < 2) {
        // Still parked on the same request: its handler ran once, before the next decision; the model waits.
        expect(reply).toMatchObject({ status: "resumed", deferralId: request.approvalId, outcome: { status: "deferred", deferralId: request.approvalId } });
        expect(paidTo(runId)).toEqual(["cy", "bob", "ann"].slice(0, i + 1));
        expect(modelCalls(runId)).toBe(1);
        expect(await agents.approvals.get({ approvalId: request.approvalId })).toMatchObject({ status: "deferred" });
      } else {
        expect(reply).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
      }
    }
    expect(paidTo(runId)).toEqual(["cy", "bob", "ann"]);
    // Each handler acted for whoever approved its call.
    expect(paid.filter((p) => p.key === runId).map((p) => p.by)).toEqual(deciders);
    expect(modelCalls(runId)).toBe(2);
    // The trail says who decided each call, in the order they did.
    const { entries } = await agents.approvals.history({ approvalId: request.approvalId });
    expect(entries.filter((e) => e.type === "decided").map((e) => e.type === "decided" && [e.toolCallId, e.by?.id, e.decision])).toEqual([...ids].reverse().map((id, i) => [id, deciders[i], "approved"]));
    h.model.assertNoFailures();
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("answers a second decision for a decided call as a duplicate with that call's outcome, keeps the first, and lets the same token decide the rest", async () => {
    const runId = uid("per-call-dup");
    const request = await parkedOnThree(runId);
    const [a, b, c] = request.calls.map((x) => x.toolCallId) as [string, string, string];
    const first = await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: a, approved: true }] }, principal: { id: "ann" } });
    expect(first).toMatchObject({ status: "resumed", outcome: { status: "deferred" } });
    // The same call again, rejected this time: the first decision stands, nothing runs twice.
    const again = await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: a, approved: false, reason: "changed my mind" }] }, principal: { id: "bob" } });
    expect(again).toEqual({ ...first, status: "duplicate" });
    expect(paidTo(runId)).toEqual(["ann"]);
    // The rest in one resume with the same token; a decision for the decided call beside them is left out.
    const last = await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: a, approved: false }, { toolCallId: c, approved: true }, { toolCallId: b, approved: true }] } });
    expect(last).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
    expect(paidTo(runId).sort()).toEqual(["ann", "bob", "cy"]);
    // Once the request is over, each call's duplicate still reads its own decision's outcome.
    expect(await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: a, approved: true }] } })).toMatchObject({ status: "duplicate", outcome: { status: "deferred" } });
    expect(await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: b, approved: true }] } })).toMatchObject({ status: "duplicate", outcome: { status: "completed" } });
  });

  it("lands a rejection at once with its decider's name and reason, runs nothing for it, and the model reads it beside the approved call's result", async () => {
    const runId = uid("per-call-reject");
    h.model.script(runId, [
      { toolCalls: [payoutCall("ann"), payoutCall("bob")] },
      {
        check: (req) => {
          const results = req.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
          expect(results).toHaveLength(2);
          expect(results).toContainEqual(expect.stringMatching(/^Rejected by dora: "sendPayout" was not run\. Reason: not a customer/));
          expect(results).toContain("sent 10 to bob");
        },
        text: "done",
      },
    ]);
    await agents.run(payouts, { prompt: runId, runId });
    const request = await vi.waitFor(() => notified.find((n) => n.runId === runId) ?? expect.fail("not told yet"), { timeout: 10_000, interval: 20 });
    const [a, b] = request.calls.map((x) => x.toolCallId) as [string, string];
    expect(await agents.approvals.decide({ approvalId: request.approvalId, decisions: { [a]: { approved: false, reason: "not a customer" } }, principal: { id: "dora" } })).toMatchObject({ outcome: { status: "deferred" } });
    expect(paidTo(runId)).toEqual([]);
    expect(await agents.approvals.decide({ approvalId: request.approvalId, decisions: { [b]: { approved: true } } })).toMatchObject({ outcome: { status: "completed" } });
    expect(paidTo(runId)).toEqual(["bob"]);
    h.model.assertNoFailures();
  });
});

describe("hostile decisions on a request decided in part", () => {
  it("refuse empty, foreign, flooding and doubled decisions with RC5049, changing nothing; the token still decides", async () => {
    const runId = uid("per-call-hostile");
    const request = await parkedOnThree(runId);
    const [a, b, c] = request.calls.map((x) => x.toolCallId) as [string, string, string];
    await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: a, approved: true }] } });
    // A call of another run's request.
    const other = uid("per-call-other");
    h.model.script(other, [{ toolCalls: [{ ...payoutCall("eve"), id: "call_of_another_request" }] }]);
    await agents.run(payouts, { prompt: other, runId: other });
    const foreign = (await vi.waitFor(() => notified.find((n) => n.runId === other) ?? expect.fail("not told yet"), { timeout: 10_000, interval: 20 })).calls[0]!.toolCallId;
    expect(foreign).toBe("call_of_another_request");
    const bad: unknown[] = [
      { decisions: [] },
      { decisions: [{ toolCallId: foreign, approved: true }] },
      { decisions: Array.from({ length: 10_000 }, () => ({ toolCallId: b, approved: true })) },
      { decisions: [{ toolCallId: b, approved: true }, { toolCallId: b, approved: false }] },
      { decisions: [{ toolCallId: b }] },
    ];
    for (const payload of bad) {
      const err = await agents.resume({ token: request.token, payload: payload as never }).catch((e: unknown) => e);
      expect(err, JSON.stringify(payload).slice(0, 120)).toMatchObject({ code: "RC5049" });
    }
    expect(paidTo(runId)).toEqual(["ann"]);
    expect(modelCalls(runId)).toBe(1);
    const record = await agents.deferrals.getRecord({ deferralId: request.approvalId });
    expect(record.status).toBe("deferred");
    expect(record.approval?.decided?.map((d) => d.decision.toolCallId)).toEqual([a]);
    await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: b, approved: true }, { toolCallId: c, approved: true }] } });
    expect(await agents.handle(runId).settled()).toMatchObject({ status: "completed" });
    expect(paidTo(runId).sort()).toEqual(["ann", "bob", "cy"]);
    await agents.cancel({ runId: other, reason: "done with it" });
  });
});

describe("a thread's request decided call by call", () => {
  it("runs each approved call right after its decision while the turn keeps holding, and calls the model once more, after the last", async () => {
    const threadId = uid("per-call-thread");
    h.model.script(threadId, [
      { toolCalls: [payoutCall("ann"), payoutCall("bob"), payoutCall("cy")] },
      { check: (req) => expect(req.messages.filter((m) => m.role === "tool").map((m) => m.content).sort()).toEqual(["sent 10 to ann", "sent 10 to bob", "sent 10 to cy"]), text: "all paid" },
    ]);
    await agents.threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const request = await vi.waitFor(
      async () => {
        const [pending] = (await agents.threads.state({ threadId })).approvals;
        return pending ?? expect.fail("no request yet");
      },
      { timeout: 20_000, interval: 50 },
    );
    const ids = request.calls.map((c) => c.toolCallId);
    const deciders = ["carol", "bea", "al"];
    for (const [i, toolCallId] of [...ids].reverse().entries()) {
      expect(await agents.threads.decide({ threadId, approvalId: request.approvalId, decisions: { [toolCallId]: { approved: true } }, principal: { id: deciders[i]! } })).toMatchObject({
        status: "resumed",
        outcome: { status: "accepted" },
      });
      // The thread answers at once; its handler runs next, and only its.
      await vi.waitFor(() => expect(paidTo(threadId)).toHaveLength(i + 1), { timeout: 20_000, interval: 20 });
      expect(paidTo(threadId)).toEqual(["cy", "bob", "ann"].slice(0, i + 1));
      if (i < 2) {
        expect(modelCalls(threadId)).toBe(1);
        // Still pending, naming the calls decided so far.
        expect((await agents.threads.state({ threadId })).approvals).toEqual([expect.objectContaining({ approvalId: request.approvalId, decided: [...ids].reverse().slice(0, i + 1) })]);
      }
    }
    expect(await agents.threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(modelCalls(threadId)).toBe(2);
    // Each handler was told who approved its own call.
    expect(paid.filter((p) => p.key === threadId).map((p) => [p.to, p.by])).toEqual([["cy", "carol"], ["bob", "bea"], ["ann", "al"]]);
    // Stream readers were told, after each decision that left calls waiting, which calls still wait.
    const announced = (await agents.threads.streamUpdates({ threadId })).updates.flatMap((u) => (u.type === "approval-request" ? [u.calls.map((c) => c.toolCallId)] : []));
    expect(announced).toEqual([ids, ids.slice(0, 2), ids.slice(0, 1)]);
    // A second decision for a decided call: a duplicate, nothing runs again.
    expect(await agents.threads.decide({ threadId, approvalId: request.approvalId, decisions: { [ids[0]!]: { approved: true } } })).toMatchObject({ status: "duplicate" });
    expect(paidTo(threadId)).toHaveLength(3);
    h.model.assertNoFailures();
  });
});

describe("a request that expires with some calls decided", () => {
  it("keeps the decided call's result; only the undecided one expires, and the run goes on", async () => {
    const runId = uid("per-call-expiry");
    const expired = 'Error: "quickPayout" was not run: its approval request expired before anyone decided.';
    h.model.script(runId, [
      { toolCalls: [{ name: "quickPayout", arguments: { to: "ann" } }, { name: "quickPayout", arguments: { to: "bob" } }] },
      { check: (req) => expect(req.messages.filter((m) => m.role === "tool").map((m) => m.content).sort()).toEqual([expired, "sent quickly to ann"].sort()), text: "half paid" },
    ]);
    const ack = await agents.run(payouts, { prompt: runId, runId });
    expect(ack).toMatchObject({ status: "deferred" });
    const request = await vi.waitFor(() => notified.find((n) => n.runId === runId) ?? expect.fail("not told yet"), { timeout: 10_000, interval: 20 });
    await agents.approvals.decide({ approvalId: request.approvalId, decisions: { [request.calls[0]!.toolCallId]: { approved: true } } });
    expect(paidTo(runId)).toEqual(["ann"]);
    expect(await agents.result({ runId })).toMatchObject({ status: "completed", text: "half paid" });
    const record = await agents.deferrals.getRecord({ deferralId: request.approvalId });
    expect(record.status).toBe("expired");
    // A decision after the expiry, for the undecided call: RC5047, nothing runs.
    await expect(agents.approvals.decide({ approvalId: request.approvalId, decisions: { [request.calls[1]!.toolCallId]: { approved: true } } })).rejects.toMatchObject({ code: "RC5047" });
    expect(paidTo(runId)).toEqual(["ann"]);
    h.model.assertNoFailures();
  });
});

describe("a request denied with some calls decided", () => {
  it("withdraws only the undecided call: the approved one ran and keeps its result, the model reads the denial for the other", async () => {
    const runId = uid("per-call-deny");
    h.model.script(runId, [
      { toolCalls: [payoutCall("ann"), payoutCall("bob")] },
      {
        check: (req) => {
          const results = req.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
          expect(results).toHaveLength(2);
          expect(results).toContain("sent 10 to ann");
          expect(results).toContainEqual(expect.stringMatching(/^Error: this request was denied by ops: customer left/));
        },
        text: "paid ann only",
      },
    ]);
    await agents.run(payouts, { prompt: runId, runId });
    const request = await vi.waitFor(() => notified.find((n) => n.runId === runId) ?? expect.fail("not told yet"), { timeout: 10_000, interval: 20 });
    await agents.approvals.decide({ approvalId: request.approvalId, decisions: { [request.calls[0]!.toolCallId]: { approved: true } } });
    await agents.deferrals.deny({ deferralId: request.approvalId, reason: "customer left", principal: { id: "ops" } });
    expect(await agents.result({ runId })).toMatchObject({ status: "completed", text: "paid ann only" });
    expect(paidTo(runId)).toEqual(["ann"]);
    h.model.assertNoFailures();
  });
});

describe("property: racing approvers deciding calls in any order", () => {
  // An approver decides some calls (each approve or reject); several send at once.
  const approver = fc.array(fc.record({ call: fc.integer({ min: 0, max: 2 }), approve: fc.boolean() }), { minLength: 1, maxLength: 3 });

  it("every call ends with exactly one decision, and every approved handler ran exactly once", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(approver, { minLength: 1, maxLength: 4 }), async (approvers) => {
        const runId = uid("per-call-prop");
        h.model.script(runId, [{ toolCalls: [payoutCall("ann"), payoutCall("bob"), payoutCall("cy")] }, { text: "done" }]);
        await agents.run(payouts, { prompt: runId, runId });
        const request = await vi.waitFor(() => notified.find((n) => n.runId === runId) ?? expect.fail("not told yet"), { timeout: 10_000, interval: 20 });
        const ids = request.calls.map((c) => c.toolCallId);
        await Promise.all(
          approvers.map(async (decides, who) => {
            // One decision per call in one resume: a later pick of the same call is dropped.
            const picked = [...new Map(decides.map((d) => [d.call, d.approve])).entries()];
            const decisions = picked.map(([call, approve]) => (approve ? { toolCallId: ids[call]!, approved: true as const } : { toolCallId: ids[call]!, approved: false as const }));
            // A racer may lose the request as a whole (the last calls were decided first): expired or refused never happens here.
            await agents.resume({ token: request.token, payload: { decisions }, principal: { id: `approver-${who}` } });
          }),
        );
        const record = await agents.deferrals.getRecord({ deferralId: request.approvalId });
        const undecided = ids.filter((id) => !(record.approval?.decided ?? []).some((d) => d.decision.toolCallId === id) && !(record.payload as { decisions?: Array<{ toolCallId: string }> } | undefined)?.decisions?.some((d) => d.toolCallId === id));
        if (undecided.length > 0) await agents.resume({ token: request.token, payload: { decisions: undecided.map((toolCallId) => ({ toolCallId, approved: true as const })) } });
        expect(await agents.handle(runId).settled()).toMatchObject({ status: "completed" });
        const final = await agents.deferrals.getRecord({ deferralId: request.approvalId });
        const decisions = (final.payload as { decisions: Array<{ toolCallId: string; approved?: boolean }> }).decisions;
        // Exactly one decision per call, and each approved call's handler ran once, no other.
        expect(decisions.map((d) => d.toolCallId).sort()).toEqual([...ids].sort());
        const approvedTo = decisions.filter((d) => d.approved).map((d) => ["ann", "bob", "cy"][ids.indexOf(d.toolCallId)]);
        expect(paidTo(runId).sort()).toEqual(approvedTo.sort());
        expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
      }),
      { numRuns: 12 },
    );
  });
});
