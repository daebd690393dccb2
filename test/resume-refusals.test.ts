/**
 * A resume the run refuses writes no history: a denied (RC5050) or expired (RC5047)
 * deferral is refused in the resume update's validator, so neither the payload nor the
 * token's proof enters history, whether the resume comes through `agents.resume()` or as
 * a raw update from anyone who can reach the namespace.
 */
import { WorkflowUpdateFailedError } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AgentClient, defineAgent, unwrapFailure } from "../src/index.js";
import { resumeUpdate } from "../src/workflow.js";
import { proofOf } from "../src/core/proof.js";
import type { ResumeRequest } from "../src/core/deferral-record.js";
import { approvalOptions, linkFor, outbox, payoutAgent } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;

// Re-asks when its first deferral expires: the run stays open, parked on a second one.
const reasking = defineAgent({
  ...approvalOptions,
  id: "payouts-reask-refusals",
  onExpired: (expired, ctx) => {
    outbox.push({ runId: ctx.runId, tool: "reask", toolCallId: ctx.toolCallId, deferralId: ctx.deferralId, token: ctx.deferral.token, restored: ctx.restored });
    return ctx.defer({ meta: expired.meta, ttl: "1h" });
  },
});

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([payoutAgent, reasking], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
});
afterAll(() => h?.close());

const historyLength = async (runId: string) => Number((await agents.workflowHandle(runId).describe()).historyLength);

/** The update as anyone with a connection to the namespace can send it, with the right proof. */
async function rawResume(runId: string, link: { deferralId: string; toolCallId: string; token: string }): Promise<unknown> {
  const request: ResumeRequest = { deferralId: link.deferralId, toolCallId: link.toolCallId, payload: { approved: true }, proof: proofOf(link.token) };
  try {
    return await agents.client.workflow.getHandle(runId).executeUpdate(resumeUpdate, { args: [request] });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw unwrapFailure(err);
    throw err;
  }
}

describe("refused resumes write no history", () => {
  it("refuses an expired deferral of a run that is still open with RC5047, through the client and raw", async () => {
    const runId = uid("refuse-expired");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 3, ttl: "1s" } }] }, { text: "approved" }]);
    await agents.run(reasking, { prompt: runId, runId });
    const expired = linkFor(runId);
    // The run re-asked: it is open, parked on a fresh deferral, and the first one is expired.
    await vi.waitFor(() => expect(linkFor(runId, "reask")).toBeDefined(), { timeout: 15_000 });
    await vi.waitFor(async () => expect((await agents.state({ runId })).status).toBe("deferred"));
    expect((await agents.deferrals.get({ deferralId: expired.deferralId })).status).toBe("expired");

    const before = await historyLength(runId);
    await expect(agents.resume({ token: expired.token, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5047" });
    await expect(rawResume(runId, expired)).rejects.toMatchObject({ code: "RC5047" });
    expect(await historyLength(runId)).toBe(before);

    // The fresh deferral still resumes.
    await expect(agents.resume({ token: linkFor(runId, "reask").token, payload: { approved: true } })).resolves.toMatchObject({
      status: "resumed",
      outcome: { status: "completed" },
    });
  });

  it("refuses a denied deferral with RC5050 and writes nothing", async () => {
    const runId = uid("refuse-denied");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 4 } }] }]);
    await agents.run(payoutAgent, { prompt: runId, runId });
    await agents.cancel({ runId, reason: "withdrawn" });
    const link = linkFor(runId);
    expect(await agents.deferrals.get({ deferralId: link.deferralId })).toMatchObject({ status: "denied", deniedReason: "AI1005" });

    const before = await historyLength(runId);
    await expect(agents.resume({ token: link.token, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5050" });
    // A cancelled run has closed: Temporal itself refuses the raw update, and nothing is written either way.
    await expect(rawResume(runId, link)).rejects.toThrow();
    expect(await historyLength(runId)).toBe(before);
  });
});
