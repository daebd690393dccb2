/**
 * Reminders and escalation of approval requests (`approval.remind`, `approval.escalate`): an
 * undecided request tells its approvers again before it expires, each reminder numbered; one
 * that escalates moves to other approvers (its `meta.requires`, what `authorize` and the inbox
 * route on), and they are told. A decision is never held up by a notification, one accepted
 * before the escalation stands, and one authorized before it that lands after is refused
 * (AI1039) with the token unspent. Short durations on the dev server; the tests wait on the
 * notifications they observe, never on sleeps.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AgentClient, defineAgent, defineTool, type ApprovalRequestInfo, type AuthorizeRequest } from "../src/index.js";
import { SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;

const notified: Array<{ request: ApprovalRequestInfo; key: string }> = [];
const paid: string[] = [];
/** A reminder's notification of these runs waits until the test lets it go. */
const held = new Map<string, Promise<void>>();

const notify = async (request: ApprovalRequestInfo, ctx: { idempotencyKey: string }) => {
  notified.push({ request, key: ctx.idempotencyKey });
  if (request.reason === "reminder") await held.get(request.runId);
};

const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send money",
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  // Reminders 2 s and 4 s after the request (28 s and 26 s before it expires).
  approval: { ttl: "30s", remind: ["26s", "28s"], meta: { requires: ["payouts:approve"] }, notify },
  handler: ({ amount }, ctx) => {
    paid.push(`${ctx.runId}:${amount}`);
    return `sent ${amount}`;
  },
});

const escalations: Array<{ request: ApprovalRequestInfo; key: string }> = [];
const wire = defineTool({
  name: "wire",
  description: "Wire money abroad",
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  approval: {
    ttl: "60s",
    meta: { requires: ["payouts:approve"] },
    notify,
    escalate: { after: "3s", requires: ["payouts:cfo"], notify: (request, ctx) => void escalations.push({ request, key: ctx.idempotencyKey }) },
  },
  handler: ({ amount }, ctx) => {
    paid.push(`${ctx.runId}:${amount}`);
    return `wired ${amount}`;
  },
});

const escalateInThread = defineTool({
  name: "deleteFile",
  description: "Delete a file",
  input: z.object({ path: z.string() }),
  needsApproval: true,
  approval: { ttl: "60s", remind: ["59s"], meta: { requires: ["files:delete"] }, notify, escalate: { after: "3s", requires: ["files:admin"] } },
  handler: ({ path }, ctx) => {
    paid.push(`${ctx.threadId}:${path}`);
    return `deleted ${path}`;
  },
});
const threadAgent = defineAgent({ id: "reminded-files", model: "gpt-4.1-mini", system: "You manage files.", tools: [escalateInThread], maxTurns: 4 });

const agent = defineAgent({ id: "reminded-payouts", model: "gpt-4.1-mini", system: "You pay.", tools: [sendPayout, wire], maxTurns: 4 });

/** Who holds which roles; a decision is authorized when the request's `requires` names one of them. */
const roles: Record<string, string[]> = { clerk: [], approver: ["payouts:approve", "files:delete"], slow: ["payouts:approve", "files:delete"], cfo: ["payouts:cfo", "files:admin"] };
/** The hook answers a `resume` by `slow` once the test lets it, as a hook that checks a remote directory would. */
let slowHook: Promise<void> = Promise.resolve();
const authorize = async (req: AuthorizeRequest) => {
  if (req.operation !== "resume" && req.operation !== "thread.decide") return true;
  const meta = req.operation === "resume" ? req.deferral.meta : req.meta;
  const requires = (meta.requires as string[] | undefined) ?? [];
  const allowed = requires.some((r) => roles[req.principal?.id ?? ""]?.includes(r));
  if (req.principal?.id === "slow") await slowHook;
  return allowed;
};

/** What a run's history scheduled: timers, and notify activities (each a billed action). */
async function scheduled(runId: string) {
  const { events } = await agents.workflowHandle(runId).fetchHistory();
  return {
    timers: (events ?? []).filter((e) => e.timerStartedEventAttributes).length,
    notifies: (events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === "notifyApproval").length,
  };
}

const of = (list: typeof notified, runId: string) => list.filter((n) => n.request.runId === runId);
const call = (name: string, amount: number) => ({ name, arguments: { amount } });

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([agent, threadAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize, threads: { agent: threadAgent } } }));
});
afterAll(() => h?.close());

async function parked(runId: string, tool: string): Promise<string> {
  h.model.script(runId, [{ toolCalls: [call(tool, 10)] }, { text: "done" }]);
  const ack = await agents.run(agent, { prompt: runId, runId, principal: { id: "clerk" } });
  expect(ack).toMatchObject({ status: "deferred" });
  return (ack as { deferralId: string }).deferralId;
}

async function decideAll(approvalId: string, principal: string) {
  const { calls } = await agents.approvals.get({ approvalId });
  return agents.approvals.decide({ approvalId, principal: { id: principal }, decisions: Object.fromEntries(calls.map((c) => [c.toolCallId, { approved: true as const }])) });
}

describe("reminders", () => {
  it("tells the approvers again before expiry, each reminder numbered, with a key of its own; the request is then decided as usual", async () => {
    const runId = uid("remind");
    const approvalId = await parked(runId, "sendPayout");
    const second = await vi.waitFor(() => of(notified, runId).find((n) => n.request.reminder === 2) ?? Promise.reject(new Error("not yet")), { timeout: 15_000, interval: 50 });
    expect(of(notified, runId).map((n) => [n.request.reason, n.request.reminder, n.key])).toEqual([
      ["asked", undefined, `${approvalId}/notify/sendPayout`],
      ["reminder", 1, `${approvalId}/remind/1/sendPayout`],
      ["reminder", 2, `${approvalId}/remind/2/sendPayout`],
    ]);
    // Every reminder carries the request's token, as the first message did: it still decides.
    expect(second.request.token).toBe(of(notified, runId)[0]!.request.token);
    expect((await agents.deferrals.getRecord({ deferralId: approvalId })).approval?.schedule).toMatchObject({ reminded: 2 });
    expect(await decideAll(approvalId, "approver")).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "done" } } });
    expect(paid.filter((p) => p.startsWith(runId))).toEqual([`${runId}:10`]);
    // What docs/cost.md says: each reminder sent is one timer and one notify activity beyond the request's own.
    expect(await scheduled(runId)).toEqual({ timers: 3, notifies: 3 });
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("a decision taken while a reminder's notification still runs is not held up by it", async () => {
    const runId = uid("remind-race");
    let release!: () => void;
    held.set(runId, new Promise<void>((resolve) => (release = resolve)));
    const approvalId = await parked(runId, "sendPayout");
    await vi.waitFor(() => expect(of(notified, runId).some((n) => n.request.reminder === 1)).toBe(true), { timeout: 15_000, interval: 50 });
    // The reminder's activity is still running (held): the run goes on with the decision all the same.
    expect(await decideAll(approvalId, "approver")).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
    expect(paid.filter((p) => p.startsWith(runId))).toEqual([`${runId}:10`]);
    release();
    expect(of(notified, runId).filter((n) => n.request.reminder === 2)).toEqual([]);
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });
});

describe("escalation", () => {
  it("moves an undecided request to the escalation's requires and tells them: the first group is refused, the second decides", async () => {
    const runId = uid("escalate");
    const approvalId = await parked(runId, "wire");
    const escalated = await vi.waitFor(() => of(escalations, runId)[0] ?? Promise.reject(new Error("not yet")), { timeout: 15_000, interval: 50 });
    expect(escalated).toMatchObject({ key: `${approvalId}/escalate/wire`, request: { reason: "escalated", requires: ["payouts:cfo"], approvalId } });
    const row = await agents.approvals.get({ approvalId });
    expect(row.meta.requires).toEqual(["payouts:cfo"]);
    expect(row.expiresAt).toBe((await agents.deferrals.getRecord({ deferralId: approvalId })).expiresAt);
    expect((await agents.approvals.list({ requires: "payouts:cfo", agentId: agent.id })).approvals.map((a) => a.approvalId)).toContain(approvalId);
    // The first group's approver is refused by authorize as the request now says; nothing changes.
    await expect(decideAll(approvalId, "approver")).rejects.toMatchObject({ code: "RC5056" });
    expect(paid.filter((p) => p.startsWith(runId))).toEqual([]);
    expect(await decideAll(approvalId, "cfo")).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
    expect(paid.filter((p) => p.startsWith(runId))).toEqual([`${runId}:10`]);
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("a decision accepted before the escalation stands: nothing escalates after it", async () => {
    const runId = uid("escalate-late");
    const approvalId = await parked(runId, "wire");
    expect(await decideAll(approvalId, "approver")).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
    const record = await agents.deferrals.getRecord({ deferralId: approvalId });
    expect(record).toMatchObject({ status: "resumed", meta: { requires: ["payouts:approve"] } });
    expect(record.approval?.schedule?.escalated).toBeUndefined();
    expect(of(escalations, runId)).toEqual([]);
    // Decided before anything was due: the request cost what one without an escalation does (one timer, one notify).
    expect(await scheduled(runId)).toEqual({ timers: 1, notifies: 1 });
  });

  it("a decision authorized before the escalation that reaches the run after it is refused with AI1039, the token unspent", async () => {
    const runId = uid("escalate-race");
    let letHookAnswer!: () => void;
    slowHook = new Promise<void>((resolve) => (letHookAnswer = resolve));
    const approvalId = await parked(runId, "wire");
    // `slow` holds payouts:approve: its hook reads the request before it escalates, and answers after.
    const deciding = decideAll(approvalId, "slow");
    await vi.waitFor(() => of(escalations, runId)[0] ?? Promise.reject(new Error("not yet")), { timeout: 15_000, interval: 50 });
    letHookAnswer();
    await expect(deciding).rejects.toMatchObject({ code: "AI1039", fields: { approvalId, requires: ["payouts:cfo"] } });
    expect(await agents.deferrals.getRecord({ deferralId: approvalId })).toMatchObject({ status: "deferred" });
    expect(paid.filter((p) => p.startsWith(runId))).toEqual([]);
    // The token was not spent: the escalation's group decides.
    expect(await decideAll(approvalId, "cfo")).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
    expect(paid.filter((p) => p.startsWith(runId))).toEqual([`${runId}:10`]);
  });
});

describe("in a thread", () => {
  it("reminds and escalates a request the turn holds on; the first group is refused, a racing decision reads AI1039, the new group decides", async () => {
    const threadId = uid("t-escalate");
    h.model.script(threadId, [{ toolCalls: [{ name: "deleteFile", arguments: { path: "a.txt" } }] }, { text: "a.txt is gone" }]);
    await agents.threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const reminded = await vi.waitFor(() => of(notified, threadId).find((n) => n.request.reminder === 1) ?? Promise.reject(new Error("not yet")), { timeout: 15_000, interval: 50 });
    const { approvalId } = reminded.request;
    expect(reminded).toMatchObject({ key: `${approvalId}/remind/1/deleteFile`, request: { threadId, reason: "reminder" } });
    let letHookAnswer!: () => void;
    slowHook = new Promise<void>((resolve) => (letHookAnswer = resolve));
    const decisions = { [reminded.request.calls[0]!.toolCallId]: { approved: true as const } };
    // Authorized against files:delete, answered only once the request escalated to files:admin.
    const racing = agents.threads.decide({ threadId, approvalId, decisions, principal: { id: "slow" } });
    // Without its own escalate.notify, the tool's notify tells the new group.
    const escalated = await vi.waitFor(() => of(notified, threadId).find((n) => n.request.reason === "escalated") ?? Promise.reject(new Error("not yet")), { timeout: 15_000, interval: 50 });
    expect(escalated).toMatchObject({ key: `${approvalId}/escalate/deleteFile`, request: { requires: ["files:admin"] } });
    letHookAnswer();
    await expect(racing).rejects.toMatchObject({ code: "AI1039" });
    await expect(agents.threads.decide({ threadId, approvalId, decisions, principal: { id: "approver" } })).rejects.toMatchObject({ code: "AI1021" });
    expect(paid.filter((p) => p.startsWith(threadId))).toEqual([]);
    expect(await agents.threads.decide({ threadId, approvalId, decisions, principal: { id: "cfo" } })).toMatchObject({ status: "resumed", outcome: { status: "accepted" } });
    expect(await agents.threads.settled({ threadId })).toMatchObject({ status: "completed" });
    expect(paid.filter((p) => p.startsWith(threadId))).toEqual([`${threadId}:a.txt`]);
    expect(await workflowTaskFailures(agents.client, threadId)).toEqual([]);
  });
});
