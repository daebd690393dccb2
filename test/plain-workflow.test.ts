import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentClient } from "../src/index.js";
import { createExpenseActivities, type Outbox } from "../examples/plain-workflow/activities.js";
import type { expenseApproval } from "../examples/plain-workflow/workflows.js";
import { plainWorkflowBundle, SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
const sent: Parameters<Outbox>[0][] = [];

beforeAll(async () => {
  h = await startHarness();
  const workflowBundle = await plainWorkflowBundle();
  ({ agents } = await h.worker([], {
    workflowBundle,
    deferral: { secret: SECRET },
    activities: createExpenseActivities(SECRET, (m) => sent.push(m)),
    client: { deferral: { secret: SECRET } },
  }));
});
afterAll(() => h?.close());

async function startExpense(amount: number) {
  const expenseId = uid("exp");
  const handle = await agents.client.workflow.start<typeof expenseApproval>("expenseApproval", {
    workflowId: expenseId,
    taskQueue: agents.taskQueue,
    args: [{ expenseId, amount, approver: "carol" }],
  });
  const outcome = await agents.handle(expenseId).settled();
  const link = sent.find((m) => m.expenseId === expenseId)!;
  return { expenseId, handle, outcome, link };
}

describe("defer() in a plain workflow", () => {
  it("parks with the same record and resumes through the same client, token and checks", async () => {
    const { expenseId, handle, outcome, link } = await startExpense(120);
    expect(outcome).toMatchObject({ status: "deferred", deferralId: link.deferralId, schema: { required: ["approved"] } });
    expect(await agents.deferrals.get({ deferralId: link.deferralId })).toMatchObject({
      status: "deferred",
      toolCallId: "approval",
      meta: { approver: "carol", amount: 120 },
    });
    await expect(agents.resume({ token: link.token, payload: { approved: "yes" } })).rejects.toMatchObject({ code: "RC5049" });
    const resumed = await agents.resume({
      token: link.token,
      payload: { approved: true, note: "fine" },
      principal: { id: "carol" },
      authorize: (req) => req.operation === "resume" && req.principal?.id === req.deferral.meta.approver,
    });
    expect(resumed).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { expenseId, status: "booked", note: "fine" } } });
    await expect(handle.result()).resolves.toEqual({ expenseId, status: "booked", note: "fine" });
    await expect(agents.resume({ token: link.token, payload: { approved: false } })).resolves.toMatchObject({ status: "duplicate" });
  });

  it("refuses the wrong approver with RC5056 and a token bound to another call with RC5055", async () => {
    const { link } = await startExpense(5);
    await expect(
      agents.resume({ token: link.token, payload: { approved: true }, principal: { id: "mallory" }, authorize: (req) => req.operation === "resume" && req.principal?.id === req.deferral.meta.approver }),
    ).rejects.toMatchObject({ code: "RC5056" });
    const { mintResumeToken } = await import("../src/deferral/token.js");
    await expect(agents.resume({ token: mintResumeToken(SECRET, link.deferralId, "other-call"), payload: { approved: true } })).rejects.toMatchObject({ code: "RC5055" });
    await expect(agents.resume({ token: link.token, payload: { approved: false } })).resolves.toMatchObject({
      outcome: { status: "completed", result: { status: "rejected" } },
    });
  });

  it("with defer({ digest }), refuses a raw resume update without the token's proof (RC5041)", async () => {
    const { expenseId, link } = await startExpense(7);
    const { resumeUpdate } = await import("../src/core/wire/run.js");
    const { proofOf, resumeDigest } = await import("../src/core/proof.js");
    expect((await agents.deferrals.get({ deferralId: link.deferralId })).digest).toBe(resumeDigest(link.token));
    const handle = agents.client.workflow.getHandle(expenseId);
    const request = { deferralId: link.deferralId, toolCallId: "approval", payload: { approved: true } };
    await expect(handle.executeUpdate(resumeUpdate, { args: [request] })).rejects.toMatchObject({ cause: { type: "RC5041" } });
    await expect(handle.executeUpdate(resumeUpdate, { args: [{ ...request, proof: proofOf(link.token) }] })).resolves.toMatchObject({
      status: "resumed",
      outcome: { status: "completed", result: { status: "booked" } },
    });
  });

  it("refuses the link of an earlier run once the workflow id is reused (RC5041): the first run id differs", async () => {
    const { expenseId, link } = await startExpense(3);
    await expect(agents.resume({ token: link.token, payload: { approved: true } })).resolves.toMatchObject({ status: "resumed" });
    await agents.client.workflow.start<typeof expenseApproval>("expenseApproval", {
      workflowId: expenseId,
      taskQueue: agents.taskQueue,
      args: [{ expenseId, amount: 4, approver: "carol" }],
    });
    await expect(agents.handle(expenseId).settled()).resolves.toMatchObject({ status: "deferred", deferralId: link.deferralId });
    const again = sent.filter((m) => m.expenseId === expenseId).at(-1)!;
    expect(again.token).not.toBe(link.token);
    await expect(agents.resume({ token: link.token, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5041" });
    expect((await agents.deferrals.get({ deferralId: link.deferralId })).status).toBe("deferred");
    await expect(agents.resume({ token: again.token, payload: { approved: true } })).resolves.toMatchObject({
      outcome: { status: "completed", result: { status: "booked" } },
    });
  });
});
