/**
 * Approvals the runtime enforces, in agent runs: a tool declared with `needsApproval` never
 * runs before a person decides, whatever the model emits. The calls of one step become one
 * request, decided per call (approve, edit, reject); every refusal leaves the request as it
 * was, and the handler runs exactly as often as decisions allow.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Client, type WorkflowClientInterceptor } from "@temporalio/client";
import { AgentClient, defineAgent, defineTool, MAX_APPROVAL_BYTES, type ApprovalRequestInfo, type AuthorizeRequest, type DeferralEvent } from "../src/index.js";
import { createAgentWorker } from "../src/worker.js";
import { SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
let taskQueue: string;

/** What the payout tool did, by run: what a person approving must bound. */
const paid: Array<{ runId: string; amount: number; to: string; key: string }> = [];
/** Approval requests the notify hook was told of, as an email would carry them. */
const notified: Array<{ request: ApprovalRequestInfo; key: string; attempt: number }> = [];
const events: DeferralEvent[] = [];
const lookedUp: string[] = [];

const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send money to someone",
  input: z.object({ amount: z.number().positive(), to: z.string() }),
  needsApproval: true,
  approval: {
    ttl: "1h",
    meta: ({ amount }) => ({ requires: ["payouts:approve"], amount }),
    notify: (request, ctx) => void notified.push({ request, key: ctx.idempotencyKey, attempt: ctx.attempt }),
  },
  handler: ({ amount, to }, ctx) => {
    paid.push({ runId: ctx.runId, amount, to, key: ctx.idempotencyKey });
    return `sent ${amount} to ${to}`;
  },
});

/** Needs a decision only above 100. */
const refund = defineTool({
  name: "refund",
  description: "Refund a customer",
  input: z.object({ amount: z.number() }),
  needsApproval: ({ amount }) => amount > 100,
  approval: { meta: { requires: ["refunds:approve"] } },
  handler: ({ amount }, ctx) => {
    paid.push({ runId: ctx.runId, amount: -amount, to: "customer", key: ctx.idempotencyKey });
    return `refunded ${amount}`;
  },
});

const lookup = defineTool({
  name: "lookup",
  description: "Look an invoice up",
  input: z.object({ invoice: z.string() }),
  handler: ({ invoice }, ctx) => {
    lookedUp.push(ctx.runId);
    return `${invoice}: 120 EUR due`;
  },
});

/** Defers the classic way, beside a gated call. */
const askManager = defineTool({
  name: "askManager",
  description: "Ask the manager",
  input: z.object({}),
  handler: (_input, ctx) => ctx.defer({ ttl: "1h" }),
});

const payouts = defineAgent({
  id: "gated-payouts",
  model: "gpt-4.1-mini",
  system: "You pay invoices.",
  tools: [lookup, sendPayout, refund, askManager],
  maxTurns: 8,
});

const paidIn = (runId: string) => paid.filter((p) => p.runId === runId);
const requestOf = (runId: string) => {
  const found = notified.filter((n) => n.request.runId === runId);
  expect(found.length).toBeGreaterThan(0);
  return found.at(-1)!.request;
};
const call = (name: string, args: object, id?: string) => ({ name, arguments: args, ...(id ? { id } : {}) });

beforeAll(async () => {
  h = await startHarness();
  ({ agents, taskQueue } = await h.worker([payouts], { deferral: { secret: SECRET }, on: { deferred: (e) => events.push(e) }, client: { deferral: { secret: SECRET } } }));
});
afterAll(() => h?.close());

/** Runs until the run parks for approval; returns the request the approver was sent. */
async function parked(runId: string) {
  const ack = await agents.run(payouts, { prompt: runId, runId, principal: { id: "clerk" } });
  expect(ack).toMatchObject({ status: "deferred" });
  // The approver is told by an activity the parked run schedules: run() may answer first.
  const request = await vi.waitFor(() => requestOf(runId), { timeout: 10_000, interval: 20 });
  expect(request.approvalId).toBe((ack as { deferralId: string }).deferralId);
  return request;
}

describe("a gated tool", () => {
  it("parks the run before its handler runs; approved, it runs once with the model's input and the run goes on", async () => {
    const runId = uid("gate-approve");
    h.model.script(runId, [
      { toolCalls: [call("sendPayout", { amount: 120, to: "acme" })] },
      { check: (req) => expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: "sent 120 to acme" }), text: "paid" },
    ]);
    const request = await parked(runId);
    expect(paidIn(runId)).toEqual([]);
    expect(request).toMatchObject({ agentId: "gated-payouts", runId, calls: [{ toolName: "sendPayout", arguments: JSON.stringify({ amount: 120, to: "acme" }), meta: { requires: ["payouts:approve"], amount: 120 } }] });
    expect(request.token).toMatch(/^v2\./);
    expect(notified.find((n) => n.request.runId === runId)).toMatchObject({ key: `${request.approvalId}/notify/sendPayout` });
    const record = await agents.deferrals.getRecord({ deferralId: request.approvalId });
    expect(record).toMatchObject({ status: "deferred", toolName: "sendPayout", meta: { requires: ["payouts:approve"], amount: 120 }, approval: { calls: [{ toolName: "sendPayout" }] } });
    // An approval takes no payload schema: run() built its acknowledgment from the run's status
    // line (a query Temporal does not bill), and it is exactly the record's.
    expect(await agents.handle(runId).settled()).toEqual({ status: "deferred", deferralId: record.id, expiresAt: record.expiresAt });
    // The worker's deferred event names the request's calls, without their arguments.
    const [event] = events.filter((e) => e.deferralId === request.approvalId);
    expect(event).toMatchObject({ type: "deferred", runId, approval: { calls: [{ toolCallId: request.calls[0]!.toolCallId, toolName: "sendPayout" }] } });
    expect(JSON.stringify(event)).not.toContain("acme");

    const toolCallId = request.calls[0]!.toolCallId;
    const resumed = await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId, approved: true, note: "ok" }] }, principal: { id: "manager" } });
    expect(resumed).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "paid" } } });
    expect(paidIn(runId)).toEqual([{ runId, amount: 120, to: "acme", key: `${runId}/${toolCallId}` }]);
    // Spent: a second decision reads the first outcome, and nothing runs again.
    expect(await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId, approved: true }] } })).toMatchObject({ status: "duplicate" });
    expect(paidIn(runId)).toHaveLength(1);
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("runs an edited call with the approver's input; the model sees the call as it ran, the record keeps what it wrote", async () => {
    const runId = uid("gate-edit");
    h.model.script(runId, [
      { toolCalls: [call("sendPayout", { amount: 900, to: "acme" })] },
      {
        check: (req) => {
          const answer = req.messages.find((m) => m.role === "assistant")!;
          expect(JSON.parse(answer.tool_calls![0]!.function.arguments)).toEqual({ amount: 90, to: "acme" });
          expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: "sent 90 to acme" });
        },
        text: "paid the corrected amount",
      },
    ]);
    const request = await parked(runId);
    const toolCallId = request.calls[0]!.toolCallId;
    await expect(agents.resume({ token: request.token, payload: { decisions: [{ toolCallId, approved: true, input: { amount: 90, to: "acme" } }] } })).resolves.toMatchObject({
      outcome: { status: "completed" },
    });
    expect(paidIn(runId).map((p) => p.amount)).toEqual([90]);
    expect((await agents.deferrals.getRecord({ deferralId: request.approvalId })).approval?.calls[0]?.arguments).toBe(JSON.stringify({ amount: 900, to: "acme" }));
    h.model.assertNoFailures();
  });

  it("never runs a rejected call: the model reads who rejected it and why, and goes on", async () => {
    const runId = uid("gate-reject");
    h.model.script(runId, [
      { toolCalls: [call("sendPayout", { amount: 5000, to: "mallory" })] },
      { check: (req) => expect(String(req.messages.at(-1)!.content)).toMatch(/^Rejected by manager: "sendPayout" was not run\. Reason: not a supplier/), text: "I will not pay" },
    ]);
    const request = await parked(runId);
    const toolCallId = request.calls[0]!.toolCallId;
    await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId, approved: false, reason: "not a supplier" }] }, principal: { id: "manager" } });
    expect(await agents.handle(runId).settled()).toMatchObject({ status: "completed", text: "I will not pay" });
    expect(paidIn(runId)).toEqual([]);
  });

  it("asks once for every gated call of a step, runs the others first, and decides each call on its own", async () => {
    const runId = uid("gate-batch");
    h.model.script(runId, [
      { toolCalls: [call("lookup", { invoice: "A-1" }), call("sendPayout", { amount: 120, to: "acme" }), call("refund", { amount: 500 }), call("refund", { amount: 20 })] },
      { text: "done" },
    ]);
    const request = await parked(runId);
    // The lookup and the small refund ran; the payout and the large refund wait, in one request.
    expect(lookedUp).toContain(runId);
    expect(paidIn(runId)).toEqual([expect.objectContaining({ amount: -20 })]);
    expect(request.calls.map((c) => c.toolName)).toEqual(["sendPayout", "refund"]);
    const record = await agents.deferrals.getRecord({ deferralId: request.approvalId });
    expect(record.meta).toEqual({ requires: ["payouts:approve", "refunds:approve"], amount: 120 });
    const [payout, bigRefund] = request.calls;
    await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: bigRefund!.toolCallId, approved: false, reason: "too much" }, { toolCallId: payout!.toolCallId, approved: true }] } });
    expect(await agents.handle(runId).settled()).toMatchObject({ status: "completed" });
    expect(paidIn(runId).map((p) => p.amount).sort()).toEqual([-20, 120]);
  });

  it("withdraws a ctx.defer() beside it: one request per step, the other call is told to ask again", async () => {
    const runId = uid("gate-and-defer");
    h.model.script(runId, [
      { toolCalls: [call("askManager", {}), call("sendPayout", { amount: 10, to: "acme" })] },
      { check: (req) => expect(req.messages.some((m) => m.role === "tool" && String(m.content).startsWith("Error: a sibling tool call deferred"))).toBe(true), text: "ok" },
    ]);
    const request = await parked(runId);
    expect(request.calls.map((c) => c.toolName)).toEqual(["sendPayout"]);
    await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: request.calls[0]!.toolCallId, approved: true }] } });
    expect(await agents.handle(runId).settled()).toMatchObject({ status: "completed" });
  });
});

describe("decisions that do not fit the request", () => {
  it("are refused with RC5049, the token unspent and the handler not run, whatever is wrong with them", async () => {
    const runId = uid("gate-hostile");
    h.model.script(runId, [{ toolCalls: [call("sendPayout", { amount: 120, to: "acme" }), call("refund", { amount: 500 })] }, { text: "done" }]);
    const request = await parked(runId);
    const [payout, big] = request.calls.map((c) => c.toolCallId) as [string, string];
    const bad: unknown[] = [
      { approved: true },
      { decisions: "yes" },
      { decisions: [] },
      { decisions: [{ toolCallId: payout, approved: true }, { toolCallId: "call_elsewhere", approved: true }] },
      { decisions: [{ toolCallId: payout, approved: true }, { toolCallId: payout, approved: false }, { toolCallId: big, approved: true }] },
      { decisions: [{ toolCallId: payout, approved: "yes" }, { toolCallId: big, approved: true }] },
      { decisions: [{ toolCallId: payout, approved: true, input: { amount: -5, to: "acme" } }, { toolCallId: big, approved: true }] },
      { decisions: [{ toolCallId: payout, approved: true, input: { amount: 5 } }, { toolCallId: big, approved: true }] },
      { decisions: [{ toolCallId: payout, approved: false, input: { amount: 5, to: "x" } }, { toolCallId: big, approved: true }] },
      { decisions: [{ toolCallId: "__proto__", approved: true }, { toolCallId: payout, approved: true }, { toolCallId: big, approved: true }] },
    ];
    for (const payload of bad) {
      const err = await agents.resume({ token: request.token, payload: payload as never }).catch((e: unknown) => e);
      expect(err, JSON.stringify(payload)).toMatchObject({ code: "RC5049" });
    }
    expect(paidIn(runId)).toEqual([]);
    expect(await agents.deferrals.getRecord({ deferralId: request.approvalId })).toMatchObject({ status: "deferred" });
    await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: payout, approved: true }, { toolCallId: big, approved: false }] } });
    expect(await agents.handle(runId).settled()).toMatchObject({ status: "completed" });
    expect(paidIn(runId).map((p) => p.amount)).toEqual([120]);
  });

  it("race: two approvers at once, one wins and the other reads its outcome; the payout runs once", async () => {
    const runId = uid("gate-race");
    h.model.script(runId, [{ toolCalls: [call("sendPayout", { amount: 50, to: "acme" })] }, { text: "done" }]);
    const request = await parked(runId);
    const toolCallId = request.calls[0]!.toolCallId;
    const [a, b] = await Promise.all([
      agents.resume({ token: request.token, payload: { decisions: [{ toolCallId, approved: true }] }, principal: { id: "ann" } }),
      agents.resume({ token: request.token, payload: { decisions: [{ toolCallId, approved: false, reason: "no" }] }, principal: { id: "bob" } }),
    ]);
    expect([a.status, b.status].sort()).toEqual(["duplicate", "resumed"]);
    const payoutsMade = paidIn(runId).length;
    expect(payoutsMade).toBe(a.status === "resumed" ? 1 : 0);
  });

  it("a decision after the run was cancelled is refused, and nothing runs", async () => {
    const runId = uid("gate-cancelled");
    h.model.script(runId, [{ toolCalls: [call("sendPayout", { amount: 50, to: "acme" })] }, { text: "done" }]);
    const request = await parked(runId);
    await agents.cancel({ runId, reason: "customer left" });
    const err = await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: request.calls[0]!.toolCallId, approved: true }] } }).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toMatch(/^RC505[04]$/);
    expect(paidIn(runId)).toEqual([]);
  });
});

describe("the size of a decision", () => {
  it("refuses an edit larger than a request may be with AI1016 before anything runs: the run keeps waiting, its token decides with an edit that fits", async () => {
    const runId = uid("gate-huge-edit");
    h.model.script(runId, [{ toolCalls: [call("sendPayout", { amount: 120, to: "acme" })] }, { text: "paid" }]);
    const request = await parked(runId);
    const toolCallId = request.calls[0]!.toolCallId;
    const refused = await agents
      .resume({ token: request.token, payload: { decisions: [{ toolCallId, approved: true, input: { amount: 120, to: "a".repeat(1_300_000) } }] } })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "AI1016", fields: { limitBytes: MAX_APPROVAL_BYTES, bytes: expect.any(Number) } });
    expect((refused as Error).message).toMatch(/edited input/);
    // By id from the inbox, 800 KB: refused alike.
    await expect(agents.approvals.decide({ approvalId: request.approvalId, decisions: [{ toolCallId, approved: true, input: { amount: 120, to: "b".repeat(800_000) } }] })).rejects.toMatchObject({ code: "AI1016" });
    expect(await agents.handle(runId).settled()).toMatchObject({ status: "deferred", deferralId: request.approvalId });
    expect(paidIn(runId)).toEqual([]);

    const resumed = await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId, approved: true, input: { amount: 120, to: "acme ltd" } }] } });
    expect(resumed).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "paid" } } });
    expect(paidIn(runId).map((p) => p.to)).toEqual(["acme ltd"]);
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("sends an edited call to its tool once: the approved input is the call's arguments, not a copy beside them", async () => {
    const runId = uid("gate-edit-once");
    h.model.script(runId, [{ toolCalls: [call("sendPayout", { amount: 7, to: "acme" })] }, { text: "paid" }]);
    const request = await parked(runId);
    const to = `edited-${"e".repeat(400_000)}`;
    await agents.resume({ token: request.token, payload: { decisions: [{ toolCallId: request.calls[0]!.toolCallId, approved: true, input: { amount: 7, to } }] } });
    expect(paidIn(runId).map((p) => p.to)).toEqual([to]);
    const { events } = await agents.client.workflow.getHandle(runId).fetchHistory();
    const scheduled = (events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === "callAgentTool");
    const input = Buffer.from(scheduled.at(-1)!.activityTaskScheduledEventAttributes!.input!.payloads![0]!.data!).toString();
    expect(input.split("edited-").length - 1).toBe(1);
  });
});

describe("the inbox", () => {
  it("lists waiting requests with their calls and meta, filters by what they require, and decides one by id", async () => {
    const runId = uid("inbox");
    h.model.script(runId, [{ toolCalls: [call("sendPayout", { amount: 75, to: "acme" }), call("refund", { amount: 300 })] }, { text: "done" }]);
    const request = await parked(runId);
    // Visibility trails the run's writes by a moment.
    const listed = (options: Parameters<AgentClient["approvals"]["list"]>[0]) =>
      vi.waitFor(
        async () => {
          const row = (await agents.approvals.list({ ...options, limit: 1000 })).approvals.find((a) => a.approvalId === request.approvalId);
          expect(row).toBeDefined();
          return row!;
        },
        { timeout: 10_000, interval: 100 },
      );
    const row = await listed({ agentId: "gated-payouts", requires: "refunds:approve" });
    expect(row).toMatchObject({
      kind: "approval",
      runId,
      status: "deferred",
      principal: { id: "clerk" },
      calls: [{ toolName: "sendPayout", arguments: JSON.stringify({ amount: 75, to: "acme" }) }, { toolName: "refund" }],
      meta: { requires: ["payouts:approve", "refunds:approve"] },
    });
    const others = await agents.approvals.list({ agentId: "gated-payouts", requires: "nobody:approves", limit: 1000 });
    expect(others.approvals.some((a) => a.approvalId === request.approvalId)).toBe(false);
    // A read shows the row, and who the run acts for and why it asks (test/approval-context.test.ts).
    expect(await agents.approvals.get({ approvalId: request.approvalId })).toEqual({ ...row, actsFor: row.principal, context: expect.objectContaining({ request: { role: "user", text: runId } }) });

    const [payout, refundCall] = request.calls;
    const decided = await agents.approvals.decide({ approvalId: request.approvalId, decisions: { [payout!.toolCallId]: { approved: true }, [refundCall!.toolCallId]: { approved: false, reason: "refunds need a ticket" } }, principal: { id: "manager" }, shown: row.callFingerprint! }
    );
    expect(decided).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
    expect(paidIn(runId).map((p) => p.amount)).toEqual([75]);
    expect(await agents.approvals.get({ approvalId: request.approvalId })).toMatchObject({ status: "resumed" });
  });

  it("lists only its own task queue's requests, and finds what `requires` asks for past pages that hold none of it", async () => {
    const runId = uid("inbox-deep");
    h.model.script(runId, [{ toolCalls: [call("refund", { amount: 300 })] }, { text: "done" }]);
    const parkedAck = await agents.run(payouts, { prompt: runId, runId });
    expect(parkedAck).toMatchObject({ status: "deferred" });
    const request = { approvalId: (parkedAck as { deferralId: string }).deferralId };
    // Newer requests that require nothing of the kind, ahead of it in visibility's order.
    for (const n of [1, 2, 3]) {
      const other = uid(`inbox-plain-${n}`);
      h.model.script(other, [{ toolCalls: [call("askManager", {})] }, { text: "done" }]);
      expect(await agents.run(payouts, { prompt: other, runId: other })).toMatchObject({ status: "deferred" });
    }
    const deep = await vi.waitFor(
      async () => {
        const page = await agents.approvals.list({ agentId: "gated-payouts", requires: "refunds:approve", limit: 1 });
        expect(page.approvals.map((a) => a.approvalId)).toContain(request.approvalId);
        return page;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(deep.approvals).toHaveLength(1);
    // A client of another task queue (another app in the namespace) sees none of these.
    const elsewhere = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue: uid("elsewhere"), deferral: { secret: SECRET } });
    expect((await elsewhere.approvals.list({ limit: 1000 })).approvals.filter((a) => a.runId.startsWith("inbox-"))).toEqual([]);
  });

  it("refuses a decision the hook does not allow (RC5056), from a client without a secret (RC5040), or on a plain deferral (RC5049), changing nothing", async () => {
    const runId = uid("inbox-refusals");
    h.model.script(runId, [{ toolCalls: [call("sendPayout", { amount: 60, to: "acme" })] }, { text: "done" }]);
    const request = await parked(runId);
    const toolCallId = request.calls[0]!.toolCallId;
    const asked: AuthorizeRequest[] = [];
    // Only someone holding what the request requires may decide: the hook sees the decisions.
    const guarded = new AgentClient({
      connection: h.connection,
      namespace: h.namespace,
      taskQueue,
      deferral: { secret: SECRET },
      authorize: (req) => {
        asked.push(req);
        return req.operation !== "resume" || req.principal?.id === "manager";
      },
    });
    await expect(guarded.approvals.decide({ approvalId: request.approvalId, decisions: [{ toolCallId, approved: true }], principal: { id: "clerk" } })).rejects.toMatchObject({ code: "RC5056" });
    expect(asked.find((r) => r.operation === "resume")).toMatchObject({ payload: { decisions: [{ toolCallId, approved: true }] }, principal: { id: "clerk" } });
    const secretless = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue });
    await expect(secretless.approvals.decide({ approvalId: request.approvalId, decisions: [{ toolCallId, approved: true }] })).rejects.toMatchObject({ code: "RC5040" });
    expect(paidIn(runId)).toEqual([]);
    expect(await agents.approvals.get({ approvalId: request.approvalId })).toMatchObject({ status: "deferred" });

    const plain = uid("inbox-plain");
    h.model.script(plain, [{ toolCalls: [call("askManager", {})] }, { text: "asked" }]);
    const ack = await agents.run(payouts, { prompt: plain, runId: plain });
    const deferralId = (ack as { deferralId: string }).deferralId;
    expect(await agents.approvals.get({ approvalId: deferralId })).toMatchObject({ kind: "deferral", calls: [{ toolName: "askManager" }] });
    await expect(agents.approvals.decide({ approvalId: deferralId, decisions: [] })).rejects.toMatchObject({ code: "RC5049" });

    await expect(guarded.approvals.decide({ approvalId: request.approvalId, decisions: [{ toolCallId, approved: true }], principal: { id: "manager" } })).resolves.toMatchObject({ status: "resumed" });
    expect(paidIn(runId).map((p) => p.amount)).toEqual([60]);
  });

  it("asks deferral.get before deciding by id reads anything: a refused stranger gets the same AI1013 for a real request and an unknown id, and no query is made", async () => {
    const runId = uid("inbox-stranger");
    h.model.script(runId, [{ toolCalls: [call("sendPayout", { amount: 70, to: "acme" })] }, { text: "done" }]);
    const request = await parked(runId);
    const toolCallId = request.calls[0]!.toolCallId;
    const queries: string[] = [];
    const counting: WorkflowClientInterceptor = { query: (input, next) => (queries.push(input.queryType), next(input)) };
    const asked: AuthorizeRequest[] = [];
    const guarded = new AgentClient({
      client: new Client({ connection: h.connection, namespace: h.namespace, interceptors: { workflow: [counting] } }),
      taskQueue,
      deferral: { secret: SECRET },
      authorize: (req) => (asked.push(req), req.principal?.id !== "mallory"),
    });
    const mallory = { principal: { id: "mallory" } };
    const real = await guarded.approvals.decide({ approvalId: request.approvalId, decisions: [{ toolCallId, approved: true }], ...mallory }).catch((e: unknown) => e);
    const unknown = await guarded.approvals.decide({ approvalId: `dfr:1:${uid("no-such-run")}`, decisions: [{ toolCallId, approved: true }], ...mallory }).catch((e: unknown) => e);
    expect(real).toMatchObject({ code: "AI1013" });
    expect(unknown).toMatchObject({ code: "AI1013" });
    expect(queries).toEqual([]);
    expect(asked.map((r) => r.operation)).toEqual(["deferral.get", "deferral.get"]);
    expect(paidIn(runId)).toEqual([]);

    // Someone it lets in reads the request and decides, asked deferral.get, then resume.
    asked.length = 0;
    await expect(guarded.approvals.decide({ approvalId: request.approvalId, decisions: [{ toolCallId, approved: true }], principal: { id: "manager" } })).resolves.toMatchObject({ status: "resumed" });
    expect(asked.map((r) => r.operation)).toEqual(["deferral.get", "resume"]);
    expect(paidIn(runId).map((p) => p.amount)).toEqual([70]);
  });
});

describe("a worker for gated tools", () => {
  it("needs a deferral secret to mint the requests' tokens (RC5040 at creation)", async () => {
    const err = await createAgentWorker({ connection: h.native, namespace: h.namespace, taskQueue: uid("tq"), agents: [payouts], model: { complete: async () => ({}) as never }, workflowBundle: h.bundle }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "RC5040", message: expect.stringContaining('"sendPayout" that needs approval') });
  });
});
