/**
 * Proof of possession, checked by the workflow: a resume update sent straight through a
 * raw Temporal client, with everything right but the proof, is refused in the validator
 * (RC5041), writes no history and leaves the run resumable with the real token.
 */
import { WorkflowUpdateFailedError } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentClient, resumeDigest, unwrapFailure } from "../src/index.js";
import { resumeUpdate } from "../src/workflow.js";
import { mintResumeToken } from "../src/worker.js";
import { verifyResumeToken } from "../src/deferral/token.js";
import { proofOf } from "../src/core/proof.js";
import type { ResumeRequest } from "../src/core/deferral-record.js";
import { linkFor, payoutAgent } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([payoutAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
});
afterAll(() => h?.close());

async function deferredRun() {
  const runId = uid("proof");
  h.model.script(runId, [
    { toolCalls: [{ name: "askApproval", arguments: { amount: 9 } }] },
    { toolCalls: [{ name: "sendPayout", arguments: { amount: 9 } }] },
    { text: "Paid 9." },
  ]);
  const ack = await agents.run(payoutAgent, { prompt: runId, runId });
  if (ack.status !== "deferred") throw new Error(`expected a deferral, got ${JSON.stringify(ack)}`);
  return { runId, link: linkFor(runId) };
}

/** The update as anyone with a connection to the namespace can send it, bypassing AgentClient. */
async function rawResume(runId: string, request: Record<string, unknown>): Promise<unknown> {
  try {
    return await agents.client.workflow.getHandle(runId).executeUpdate(resumeUpdate, { args: [request as unknown as ResumeRequest] });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw unwrapFailure(err);
    throw err;
  }
}

const historyLength = async (runId: string) => (await agents.client.workflow.getHandle(runId).fetchHistory()).events?.length ?? 0;

describe("the workflow checks proof of possession", () => {
  it("stores the token's digest on the record, never the token or its proof", async () => {
    const { link } = await deferredRun();
    const record = await agents.deferrals.get({ deferralId: link.deferralId });
    expect(record.digest).toBe(resumeDigest(link.token));
    expect(JSON.stringify(record)).not.toContain(proofOf(link.token));
    expect(JSON.stringify(record)).not.toContain(link.token);
  });

  it("(a) refuses a raw resume with every field right but no proof: RC5041, no history, still resumable", async () => {
    const { runId, link } = await deferredRun();
    const before = await historyLength(runId);
    await expect(rawResume(runId, { deferralId: link.deferralId, toolCallId: link.toolCallId, payload: { approved: true } })).rejects.toMatchObject({
      code: "RC5041",
    });
    expect(await historyLength(runId)).toBe(before);
    expect((await agents.deferrals.get({ deferralId: link.deferralId })).status).toBe("deferred");
    await expect(agents.resume({ token: link.token, payload: { approved: true } })).resolves.toMatchObject({
      status: "resumed",
      outcome: { status: "completed", result: { text: "Paid 9." } },
    });
  });

  it("(b) refuses forged and malformed proofs the same way", async () => {
    const { runId, link } = await deferredRun();
    const before = await historyLength(runId);
    const forgedToken = mintResumeToken("another-secret-that-is-long-enough-000000", link.deferralId, link.toolCallId);
    const otherCall = mintResumeToken(SECRET, link.deferralId, "call_other");
    const proofs: unknown[] = [
      proofOf(forgedToken),
      proofOf(otherCall),
      // The digest is readable by anyone who can query the record: it must not work as a proof.
      resumeDigest(link.token),
      link.token,
      proofOf(link.token).slice(0, -1) + (proofOf(link.token).endsWith("A") ? "B" : "A"),
      "A".repeat(43),
      "x".repeat(200_000),
      "",
      null,
      42,
      { proof: proofOf(link.token) },
      [proofOf(link.token)],
    ];
    for (const proof of proofs) {
      await expect(
        rawResume(runId, { deferralId: link.deferralId, toolCallId: link.toolCallId, payload: { approved: true }, proof }),
        `proof ${JSON.stringify(proof)?.slice(0, 60)}`,
      ).rejects.toMatchObject({ code: "RC5041" });
    }
    expect(await historyLength(runId)).toBe(before);
    expect((await agents.deferrals.get({ deferralId: link.deferralId })).status).toBe("deferred");
    await expect(agents.resume({ token: link.token, payload: { approved: true } })).resolves.toMatchObject({ status: "resumed" });
  });

  it("keeps the proof of an unspent token out of history: a payload failing the schema is refused in the validator", async () => {
    const { runId, link } = await deferredRun();
    const before = await historyLength(runId);
    await expect(agents.resume({ token: link.token, payload: { approved: "sure" } })).rejects.toMatchObject({ code: "RC5049" });
    expect(await historyLength(runId)).toBe(before);
    await expect(agents.resume({ token: link.token, payload: { approved: true } })).resolves.toMatchObject({ status: "resumed" });
  });

  it("accepts the raw update with the right proof: the token is what authorizes, not the client", async () => {
    const { runId, link } = await deferredRun();
    await expect(
      rawResume(runId, { deferralId: link.deferralId, toolCallId: link.toolCallId, payload: { approved: true }, proof: proofOf(link.token) }),
    ).resolves.toMatchObject({ status: "resumed" });
  });
});

describe("tokens are bound to one execution", () => {
  it("binds the worker's tokens to the namespace, workflow id and first run id", async () => {
    const { runId, link } = await deferredRun();
    const { runId: firstRunId } = await agents.client.workflow.getHandle(runId).describe();
    expect(verifyResumeToken([Buffer.from(SECRET)], link.token).binding).toEqual({ namespace: h.namespace, workflowId: runId, firstRunId });
  });

  it("(d) refuses a token minted for another workflow id, namespace or first run id, changing nothing", async () => {
    const { runId, link } = await deferredRun();
    const { runId: firstRunId } = await agents.client.workflow.getHandle(runId).describe();
    const right = { namespace: h.namespace, workflowId: runId, firstRunId };
    const before = await historyLength(runId);
    const minted = (binding: typeof right) => mintResumeToken(SECRET, link.deferralId, link.toolCallId, { binding });
    for (const binding of [
      { ...right, workflowId: `${runId}-other` },
      { ...right, namespace: "someone-elses" },
      { ...right, firstRunId: "0192f0e0-0000-7000-8000-000000000000" },
    ]) {
      const token = minted(binding);
      await expect(agents.resume({ token, payload: { approved: true } }), JSON.stringify(binding)).rejects.toMatchObject({ code: "RC5041" });
      // Sent raw, claiming its binding or hiding it, it still lacks the proof of the token the deferral handed out.
      for (const claimed of [{ binding }, {}]) {
        await expect(
          rawResume(runId, { deferralId: link.deferralId, toolCallId: link.toolCallId, payload: { approved: true }, proof: proofOf(token), ...claimed }),
        ).rejects.toMatchObject({ code: "RC5041" });
      }
    }
    // A binding claim that does not fit is refused before anything else, with a proof that does.
    await expect(
      rawResume(runId, {
        deferralId: link.deferralId,
        toolCallId: link.toolCallId,
        payload: { approved: true },
        proof: proofOf(link.token),
        binding: { ...right, firstRunId: "earlier" },
      }),
    ).rejects.toMatchObject({ code: "RC5041", message: expect.stringMatching(/earlier run/) });
    for (const binding of [null, "x", 42, { namespace: h.namespace }]) {
      await expect(
        rawResume(runId, { deferralId: link.deferralId, toolCallId: link.toolCallId, payload: { approved: true }, proof: proofOf(link.token), binding }),
      ).rejects.toMatchObject({ code: "RC5041" });
    }
    expect(await historyLength(runId)).toBe(before);
    await expect(agents.resume({ token: link.token, payload: { approved: true } })).resolves.toMatchObject({ status: "resumed" });
  });

  it("keeps accepting tokens minted before bindings (no binding claims) where no digest was stored", () => {
    const legacy = mintResumeToken(SECRET, "dfr:1:r", "c");
    expect(verifyResumeToken([Buffer.from(SECRET)], legacy).binding).toBeUndefined();
  });
});
