/**
 * `deferrals.deny()`: an explicit denial. The run goes on with the model told it was
 * denied (and why, and by whom); the record reads denied and its tokens RC5050; a plain
 * workflow's `defer()` throws RC5050. Every refusal is typed and writes no history.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type AgentClient, DeferralDeniedError, defineAgent } from "../src/index.js";
import { createExpenseActivities, type Outbox } from "../examples/plain-workflow/activities.js";
import { approvalOptions, linkFor, outbox, payoutAgent, payouts } from "./fixtures/approvals.js";
import { plainWorkflowBundle, SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
const withSecret = { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } };

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([payoutAgent], withSecret));
});
afterAll(() => h?.close());

const historyLength = async (client: AgentClient, runId: string) => (await client.workflowHandle(runId).fetchHistory()).events?.length ?? 0;

/** A run parked on askApproval, whose next model turn is `after`. */
async function parked(after: Parameters<Harness["model"]["script"]>[1]) {
  const runId = uid("deny");
  h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 50 } }] }, ...after]);
  expect(await agents.run(payoutAgent, { prompt: runId, runId })).toMatchObject({ status: "deferred" });
  return linkFor(runId);
}

describe("deferrals.deny()", () => {
  it("tells the model it was denied, by whom and why; the run goes on; the record is denied and its token reads RC5050", async () => {
    const { runId, deferralId, token } = await parked([
      {
        check: (req) =>
          expect(req.messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringMatching(/^Error: this request was denied by carol: over the monthly budget\./) }),
        text: "The payout was denied by carol (over the monthly budget).",
      },
    ]);
    await expect(agents.deferrals.deny({ deferralId, reason: "over the monthly budget", principal: { id: "carol" } })).resolves.toEqual({ status: "denied", deferralId });
    await expect(agents.result({ runId })).resolves.toMatchObject({ text: expect.stringContaining("denied by carol") });
    expect(await agents.deferrals.get({ deferralId })).toMatchObject({ status: "denied", deniedReason: "denied", denial: { reason: "over the monthly budget", by: { id: "carol" } } });
    await expect(agents.resume({ token, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5050" });
    expect(payouts.filter((p) => p.runId === runId)).toEqual([]);
    h.model.assertNoFailures();
  });

  it("refuses a second denial (RC5050), an unknown deferral (RC5046) and a resumed one (RC5057), writing no history", async () => {
    const denied = await parked([{ text: "denied" }]);
    await agents.deferrals.deny({ deferralId: denied.deferralId, reason: "no" });
    await agents.result({ runId: denied.runId });
    const resumed = await parked([{ text: "paid" }]);
    await agents.resume({ token: resumed.token, payload: { approved: true } });
    await agents.result({ runId: resumed.runId });

    // Closed runs: the record says why. A deferral of a run that still waits: refused in the validator.
    await expect(agents.deferrals.deny({ deferralId: denied.deferralId, reason: "again" })).rejects.toMatchObject({ code: "RC5050" });
    await expect(agents.deferrals.deny({ deferralId: resumed.deferralId, reason: "too late" })).rejects.toMatchObject({ code: "RC5057" });
    const waiting = await parked([{ text: "still here" }]);
    const before = await historyLength(agents, waiting.runId);
    await expect(agents.deferrals.deny({ deferralId: `dfr:9:${waiting.runId}`, reason: "no" })).rejects.toMatchObject({ code: "RC5046" });
    await expect(agents.deferrals.deny({ deferralId: "not-a-deferral-id", reason: "no" })).rejects.toMatchObject({ code: "RC5046" });
    expect(await historyLength(agents, waiting.runId)).toBe(before);
    expect((await agents.deferrals.get({ deferralId: waiting.deferralId })).status).toBe("deferred");
  });

  it("refuses a malformed deny before it is sent (AI1001), and a raw one in the validator (AI1012), changing nothing", async () => {
    const { runId, deferralId, token } = await parked([{ text: "paid after all" }]);
    const before = await historyLength(agents, runId);
    await expect(agents.deferrals.deny({ deferralId, reason: "" })).rejects.toMatchObject({ code: "AI1001" });
    await expect(agents.deferrals.deny({ deferralId, reason: "x".repeat(2_001) })).rejects.toMatchObject({ code: "AI1001" });
    await expect(agents.deferrals.deny({ deferralId } as never)).rejects.toMatchObject({ code: "AI1001" });
    const raw = agents.workflowHandle(runId);
    for (const arg of [null, { deferralId }, { deferralId, reason: 7 }, { deferralId, reason: "no", deniedBy: "mallory" }, { deferralId: { toString: 1 }, reason: "no" }]) {
      await expect(raw.executeUpdate("durable-agents.deny", { args: [arg] })).rejects.toMatchObject({ cause: { type: "AI1012" } });
    }
    expect(await historyLength(agents, runId)).toBe(before);
    const resumed = await agents.resume({ token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "paid after all" } });
  });

  it("asks the authorize hook as deferral.deny: a refusal is AI1013 and the deferral still waits", async () => {
    const guarded = await h.worker([payoutAgent], {
      ...withSecret,
      client: { ...withSecret.client, authorize: ({ operation, principal }) => operation !== "deferral.deny" || principal?.id === "manager" },
    });
    const runId = uid("deny-guarded");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 5 } }] }, { text: "denied by the manager" }]);
    await guarded.agents.run(payoutAgent, { prompt: runId, runId });
    const { deferralId } = linkFor(runId);
    await expect(guarded.agents.deferrals.deny({ deferralId, reason: "no", principal: { id: "intern" } })).rejects.toMatchObject({ code: "AI1013" });
    expect((await guarded.agents.deferrals.get({ deferralId })).status).toBe("deferred");
    await guarded.agents.deferrals.deny({ deferralId, reason: "no", principal: { id: "manager" } });
    await expect(guarded.agents.result({ runId })).resolves.toMatchObject({ text: "denied by the manager" });
  });
});

describe("an agent's onDenied", () => {
  it("answers for the denied call (what it returns is the model's result), or asks again with a fresh deferral", async () => {
    const asked: Array<{ reason: string; by?: string; amount: unknown }> = [];
    const considerate = defineAgent({
      ...approvalOptions,
      id: "payouts-considerate",
      onDenied: (denied, ctx) => {
        asked.push({ reason: denied.reason, by: denied.by?.id, amount: denied.meta.amount });
        if (denied.reason === "ask the CFO") {
          outbox.push({ runId: ctx.runId, tool: "reask", toolCallId: ctx.toolCallId, deferralId: ctx.deferralId, token: ctx.deferral.token, restored: ctx.restored });
          return ctx.defer({ meta: { ...denied.meta, escalated: true } });
        }
        return { approved: false, note: `declined: ${denied.reason}` };
      },
    });
    const { agents: own } = await h.worker([considerate], withSecret);

    const declined = uid("on-denied");
    h.model.script(declined, [
      { toolCalls: [{ name: "askApproval", arguments: { amount: 8 } }] },
      { check: (req) => expect(req.messages.at(-1)!.content).toBe('{"approved":false,"note":"declined: too much"}'), text: "not paid" },
    ]);
    await own.run(considerate, { prompt: declined, runId: declined });
    await own.deferrals.deny({ deferralId: linkFor(declined).deferralId, reason: "too much", principal: { id: "dana" } });
    await expect(own.result({ runId: declined })).resolves.toMatchObject({ text: "not paid" });
    expect(asked[0]).toEqual({ reason: "too much", by: "dana", amount: 8 });

    const escalated = uid("on-denied-reask");
    h.model.script(escalated, [
      { toolCalls: [{ name: "askApproval", arguments: { amount: 9 } }] },
      { check: (req) => expect(req.messages.at(-1)!.content).toBe('{"approved":true}'), text: "paid after all" },
    ]);
    await own.run(considerate, { prompt: escalated, runId: escalated });
    const first = linkFor(escalated);
    await own.deferrals.deny({ deferralId: first.deferralId, reason: "ask the CFO" });
    await vi.waitFor(() => expect(linkFor(escalated, "reask")).toBeDefined(), { timeout: 15_000 });
    const fresh = linkFor(escalated, "reask");
    expect(fresh.deferralId).not.toBe(first.deferralId);
    // The link exists once onDenied returns; the record once its activity has reported back (RC5046 until then).
    const record = await vi.waitFor(() => own.deferrals.get({ deferralId: fresh.deferralId }), { timeout: 15_000 });
    expect(record.meta).toMatchObject({ escalated: true, amount: 9 });
    await expect(own.resume({ token: first.token, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5050" });
    const resumed = await own.resume({ token: fresh.token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "paid after all" } });
    h.model.assertNoFailures();
  });
});

describe("deny() of a plain workflow's deferral", () => {
  it("makes defer() throw RC5050 with the reason, which the workflow may catch or fail with", async () => {
    const mail: Parameters<Outbox>[0][] = [];
    const workflowBundle = await plainWorkflowBundle();
    const plain = await h.worker([], { workflowBundle, activities: createExpenseActivities(SECRET, (m) => mail.push(m)), ...withSecret });
    const expenseId = uid("exp-denied");
    await plain.agents.client.workflow.start("expenseApproval", { workflowId: expenseId, taskQueue: plain.taskQueue, args: [{ expenseId, amount: 10, approver: "carol" }] });
    await plain.agents.handle(expenseId).settled();
    const { deferralId } = mail.find((m) => m.expenseId === expenseId)!;
    await plain.agents.deferrals.deny({ deferralId, reason: "not a business expense" });
    const err = await plain.agents.result({ runId: expenseId }).catch((e: unknown) => e);
    expect(DeferralDeniedError.isInstance(err)).toBe(true);
    expect((err as Error).message).toContain("not a business expense");
  });
});
