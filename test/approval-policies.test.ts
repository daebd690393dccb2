/**
 * Approval policies: a tool's `needsApproval` may answer "allow", "ask" or `{ deny: reason }`
 * (sync or async, from the call's input, who the run or thread acts for, and which run,
 * thread and call it is). An allowed call runs at once, an asked one waits for a person, a
 * denied one runs nothing and parks nothing: the model reads the reason as the call's
 * result, a rejection by policy, which the transcript and the stream keep as they keep a
 * person's. A policy that throws or answers anything else fails the run (or the thread's
 * turn) with AI1035 before any call of that answer runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentClient, ApprovalPolicyFailedError, defineAgent, defineTool, ErrorCode, MAX_DECISION_TEXT, ThreadsClient, type ApprovalContext, type ApprovalPolicyAnswer } from "../src/index.js";
import { SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;

/** Every handler run, by run or thread: what a policy must bound. */
const ran: Array<{ id: string; tool: string; amount: number }> = [];
/** What each policy call was given. */
const asked: Array<{ amount: number; ctx: ApprovalContext }> = [];
/** What the policy answers, by the call's memo: a test sets it before the model asks. */
const answers = new Map<string, () => ApprovalPolicyAnswer | Promise<ApprovalPolicyAnswer>>();

const refund = defineTool({
  name: "refund",
  description: "Refund a customer",
  input: z.object({ amount: z.number(), memo: z.string() }),
  // Under 50 for anyone, over 1000 never, between them a person decides; a test may answer otherwise by memo.
  needsApproval: async ({ amount, memo }, ctx) => {
    asked.push({ amount, ctx });
    const answer = answers.get(memo);
    if (answer) return answer();
    if (amount > 1000) return { deny: `refunds over 1000 need a ticket, and ${ctx.principal?.id ?? "nobody"} has none` };
    return amount < 50 ? "allow" : "ask";
  },
  approval: { meta: { requires: ["refunds:approve"] } },
  handler: ({ amount }, ctx) => {
    ran.push({ id: ctx.threadId ?? ctx.runId, tool: "refund", amount });
    return `refunded ${amount}`;
  },
});

const lookup = defineTool({
  name: "lookup",
  description: "Look an order up",
  input: z.object({ order: z.string() }),
  handler: ({ order }, ctx) => {
    ran.push({ id: ctx.threadId ?? ctx.runId, tool: "lookup", amount: 0 });
    return `${order}: shipped`;
  },
});

const support = defineAgent({ id: "policy-support", model: "gpt-4.1-mini", system: "You refund.", tools: [lookup, refund], maxTurns: 6 });
const ranIn = (id: string) => ran.filter((r) => r.id === id).map(({ tool, amount }) => `${tool} ${amount}`);
const refundCall = (amount: number, memo = "m", id?: string) => ({ name: "refund", arguments: { amount, memo }, ...(id ? { id } : {}) });

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([support], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, threads: { agent: support } } }));
  threads = agents.threads;
});
afterAll(() => h?.close());

const DENIAL = /^Rejected by policy: "refund" was not run\. Reason: refunds over 1000 need a ticket, and sam has none Do not call it again/;

describe("a needsApproval policy in a run", () => {
  it("runs what it allows, asks for what it asks, and denies with a reason the model reads: no request, nothing parked", async () => {
    const runId = uid("policy-mixed");
    h.model.script(runId, [
      { toolCalls: [refundCall(20, "m", "small"), refundCall(5000, "m", "huge"), { name: "lookup", arguments: { order: "o-1" }, id: "look" }] },
      {
        check: (req) => {
          const results = Object.fromEntries(req.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, String(m.content)]));
          expect(results).toEqual({ small: "refunded 20", look: "o-1: shipped", huge: expect.stringMatching(DENIAL) });
        },
        text: "refunded 20; 5000 needs a ticket",
      },
    ]);
    const result = await agents.run(support, { prompt: runId, runId, principal: { id: "sam" } });
    // Nothing parked: the run completed in one call.
    expect(result).toMatchObject({ status: "completed", text: "refunded 20; 5000 needs a ticket" });
    expect(ranIn(runId)).toEqual(expect.arrayContaining(["refund 20", "lookup 0"]));
    expect(ranIn(runId)).toHaveLength(2);
    // The policy saw who the run acts for, which run and which call.
    expect(asked.filter((a) => a.ctx.runId === runId).map((a) => a.ctx)).toEqual(
      expect.arrayContaining([
        { agentId: "policy-support", toolName: "refund", toolCallId: "huge", principal: { id: "sam" }, host: "run", runId },
        expect.objectContaining({ toolCallId: "small", host: "run", runId }),
      ]),
    );
    // The run's record and its stream keep the denial as they keep a rejection.
    const messages = await agents.listMessages({ runId });
    const denial = messages.messages.find((m) => m.role === "tool" && m.tool_call_id === "huge");
    expect(String(denial?.content)).toMatch(DENIAL);
    const stream = await agents.streamUpdates({ runId });
    expect(stream.updates.some((u) => u.type === "message" && u.message.role === "tool" && String(u.message.content).match(DENIAL))).toBe(true);
    expect(stream.updates.some((u) => u.type === "approval-request")).toBe(false);
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("asks a person for what it answers \"ask\" (and true), beside a denied call of the same step", async () => {
    const runId = uid("policy-ask");
    answers.set(`${runId}-true`, () => true);
    h.model.script(runId, [
      { toolCalls: [refundCall(200, "m", "mid"), refundCall(70, `${runId}-true`, "yes"), refundCall(2000, "m", "huge")] },
      {
        check: (req) => {
          const results = Object.fromEntries(req.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, String(m.content)]));
          expect(results).toEqual({ mid: "refunded 200", yes: "refunded 70", huge: expect.stringMatching(/^Rejected by policy: "refund" was not run/) });
        },
        text: "done",
      },
    ]);
    const ack = await agents.run(support, { prompt: runId, runId, principal: { id: "sam" } });
    expect(ack).toMatchObject({ status: "deferred" });
    const request = await agents.approvals.get({ approvalId: (ack as { deferralId: string }).deferralId });
    // The denied call is in no request: only the asked ones wait.
    expect(request.calls.map((c) => c.toolCallId)).toEqual(["mid", "yes"]);
    expect(ranIn(runId)).toEqual([]);
    const decided = await agents.approvals.decide({ approvalId: request.approvalId, decisions: { mid: { approved: true }, yes: { approved: true } }, principal: { id: "fiona" } });
    expect(decided).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "done" } } });
    expect(ranIn(runId).sort()).toEqual(["refund 200", "refund 70"]);
  });

  it("bounds a huge reason: the model reads at most MAX_DECISION_TEXT characters of it, and the run goes on", async () => {
    const runId = uid("policy-huge-reason");
    answers.set(runId, () => ({ deny: `no. ${"x".repeat(2_000_000)}` }));
    let read = "";
    h.model.script(runId, [{ toolCalls: [refundCall(10, runId)] }, { check: (req) => void (read = String(req.messages.at(-1)?.content)), text: "denied" }]);
    expect(await agents.run(support, { prompt: runId, runId, principal: { id: "sam" } })).toMatchObject({ status: "completed" });
    const reason = /Reason: (.*) Do not call it again/s.exec(read)?.[1] ?? "";
    expect(reason.startsWith("no. xxx")).toBe(true);
    expect(reason.length).toBeLessThanOrEqual(MAX_DECISION_TEXT);
    expect(reason).toMatch(/cut: 2000004 characters\)$/);
    expect(ranIn(runId)).toEqual([]);
  });

  const broken: Array<[string, () => ApprovalPolicyAnswer | Promise<ApprovalPolicyAnswer>, RegExp]> = [
    ["throws", () => Promise.reject(new Error("policy store down\n\u001b[2Jforged line")), /threw: policy store down\\u000a\\u001b\[2Jforged line/],
    ["answers a word it does not know", () => "maybe" as never, /answered "maybe"/],
    ["answers nothing", () => undefined as never, /answered nothing \(undefined\)/],
    ["denies with a number", () => ({ deny: 42 }) as never, /a denial without a reason .*not 42/],
    ["denies with an empty reason", () => ({ deny: "  " }), /a denial without a reason/],
    ["answers an array", () => ["allow"] as never, /answered \["allow"\]/],
  ];
  it.each(broken)("fails the run with AI1035 when it %s, before any call of the answer runs", async (_what, answer, problem) => {
    const runId = uid("policy-broken");
    answers.set(runId, answer);
    h.model.script(runId, [{ toolCalls: [{ name: "lookup", arguments: { order: "o-2" } }, refundCall(10, runId)] }]);
    const failure = await agents.run(support, { prompt: runId, runId, principal: { id: "sam" } }).then(
      () => undefined,
      (err: unknown) => err,
    );
    const err = failure as ApprovalPolicyFailedError;
    expect(err?.code).toBe(ErrorCode.ApprovalPolicyFailed);
    expect(ApprovalPolicyFailedError.isInstance(err)).toBe(true);
    expect(err?.message).toMatch(problem);
    expect(err?.message).toContain('answer "ask" to have a person decide');
    expect(ranIn(runId)).toEqual([]);
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });
});

describe("a needsApproval policy in a thread", () => {
  it("denies without holding the turn: the model reads why, state and stream show it, nothing waits", async () => {
    const threadId = uid("t-policy");
    h.model.script(threadId, [
      { toolCalls: [refundCall(3000, "m", "huge"), refundCall(5, "m", "tiny")] },
      {
        check: (req) => {
          const results = req.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
          expect(results).toEqual([expect.stringMatching(DENIAL), "refunded 5"]);
        },
        text: "5 refunded, 3000 needs a ticket",
      },
    ]);
    await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const settled = await threads.settled({ threadId });
    expect(settled).toMatchObject({ status: "completed", approvals: [] });
    expect(ranIn(threadId)).toEqual(["refund 5"]);
    expect(asked.find((a) => a.ctx.toolCallId === "huge" && a.ctx.threadId === threadId)?.ctx).toEqual({
      agentId: "policy-support",
      toolName: "refund",
      toolCallId: "huge",
      principal: { id: "sam" },
      host: "thread",
      runId: threadId,
      threadId,
    });
    const stream = await threads.streamUpdates({ threadId });
    expect(stream.updates.some((u) => u.type === "message" && u.message.role === "tool" && String(u.message.content).match(DENIAL))).toBe(true);
    expect(stream.updates.some((u) => u.type === "approval-request")).toBe(false);
    expect(await workflowTaskFailures(threads.client, threadId)).toEqual([]);
  });

  it("fails the turn with AI1035 when the policy throws, and runs nothing of that answer", async () => {
    const threadId = uid("t-policy-throws");
    answers.set(threadId, () => {
      throw new Error("no policy today");
    });
    h.model.script(threadId, [{ toolCalls: [{ name: "lookup", arguments: { order: "o-3" } }, refundCall(10, threadId)] }]);
    await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const settled = await threads.settled({ threadId });
    expect(settled).toMatchObject({ status: "failed", lastError: { code: ErrorCode.ApprovalPolicyFailed } });
    expect(ranIn(threadId)).toEqual([]);
  });
});
