import { Client } from "@temporalio/client";
import { historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { z } from "zod";
import { AgentClient, defineAgent, defineTool, ErrorCode, type DeferralEvent } from "../src/index.js";
import { approvalUrl, createAgentHttpHandler } from "../src/http.js";
import { mintResumeToken } from "../src/worker.js";
import { approvalOptions, linkFor, payoutAgent, payouts } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

/** Hands out its link, then defers only when the test opens the gate: a human faster than the tool. */
let openGate: () => void = () => undefined;
const slowLinks: Array<{ runId: string; token: string }> = [];
const slowApproval = defineTool({
  name: "slowApproval",
  description: "Asks for approval, slowly",
  input: z.object({}),
  async handler(_input, ctx) {
    slowLinks.push({ runId: ctx.runId, token: ctx.deferral.token });
    await new Promise<void>((resolve) => (openGate = resolve));
    return ctx.defer({});
  },
});
const slowAgent = defineAgent({ id: "slow-approver", model: "gpt-4.1-mini", system: "You ask slowly.", tools: [slowApproval], maxTurns: 3 });

let h: Harness;
let agents: AgentClient;
let taskQueue: string;
const events: DeferralEvent[] = [];

beforeAll(async () => {
  h = await startHarness();
  ({ agents, taskQueue } = await h.worker([payoutAgent, slowAgent], {
    deferral: { secret: SECRET },
    on: { deferred: (e) => events.push(e), resumed: (e) => events.push(e), expired: (e) => events.push(e) },
    client: { deferral: { secret: SECRET } },
  }));
});
afterAll(() => h?.close());

/** Scripts: ask approval for `amount`, then pay it out once approved, then answer. */
function scriptApproval(prompt: string, amount = 250) {
  h.model.script(prompt, [
    { toolCalls: [{ name: "askApproval", arguments: { amount } }], usage: { promptTokens: 10, completionTokens: 4 } },
    {
      check: (req) => expect(JSON.parse(req.messages.at(-1)!.content as string)).toMatchObject({ approved: true }),
      toolCalls: [{ name: "sendPayout", arguments: { amount } }],
      usage: { promptTokens: 20, completionTokens: 4 },
    },
    { text: `Paid ${amount}.`, usage: { promptTokens: 30, completionTokens: 3 } },
  ]);
}

async function deferredRun(amount = 250) {
  const runId = uid("payout");
  scriptApproval(runId, amount);
  const ack = await agents.run(payoutAgent, { prompt: runId, runId, principal: { id: "requester", team: "ops" } });
  if (ack.status !== "deferred") throw new Error(`expected a deferral, got ${JSON.stringify(ack)}`);
  return { runId, ack, link: linkFor(runId) };
}

const ROTATED = "rotated-secret-0123456789-abcdefghijklmn";

const codeOf = (err: unknown) => (err as { code?: string }).code;

describe("defer and resume", () => {
  it("parks the run, acknowledges without meta or token, and continues mid-conversation on resume", async () => {
    const { runId, ack, link } = await deferredRun();
    expect(Object.keys(ack).sort()).toEqual(["deferralId", "expiresAt", "schema", "status"]);
    expect(ack.deferralId).toBe(link.deferralId);
    expect(ack.schema).toMatchObject({ type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] });
    expect(Date.parse(ack.expiresAt) - Date.now()).toBeGreaterThan(71 * 3600_000);
    expect(JSON.stringify(ack)).not.toContain(link.token);

    const state = await agents.state({ runId });
    expect(state).toMatchObject({ status: "deferred", deferralId: ack.deferralId, turnsUsed: 1 });
    const record = await agents.deferrals.get({ deferralId: ack.deferralId });
    expect(record).toMatchObject({ status: "deferred", meta: { requires: ["payouts:approve"], amount: 250 }, agentId: "payouts" });
    expect(record.stepState).toMatchObject({ agentId: "payouts", deferredToolCallId: link.toolCallId, turnsUsed: 1 });
    expect(JSON.stringify(record)).not.toContain(link.token);

    const resumed = await agents.resume({ token: link.token, payload: { approved: true, note: "ok" }, principal: { id: "approver" } });
    expect(resumed).toMatchObject({
      status: "resumed",
      deferralId: ack.deferralId,
      outcome: { status: "completed", result: { text: "Paid 250.", turnsUsed: 3 } },
    });
    const result = await agents.result({ runId });
    expect(result.usage).toEqual({ promptTokens: 60, completionTokens: 11, totalTokens: 71 });
    // The resumed loop acts as the principal that deferred, marked restored; the approver gains nothing.
    expect(payouts.find((p) => p.runId === runId)).toEqual({ runId, amount: 250, principal: "requester", restored: true, resumedBy: "approver" });
    expect(await agents.state({ runId })).toMatchObject({ status: "completed", restored: true, resumedBy: { id: "approver" } });
    await vi.waitFor(() =>
      expect(events.filter((e) => e.deferralId === ack.deferralId).map((e) => e.type)).toEqual(["deferred", "resumed"]),
    );
    h.model.assertNoFailures();
  });

  it("answers a second resume with the first outcome, as a duplicate", async () => {
    const { link } = await deferredRun();
    const first = await agents.resume({ token: link.token, payload: { approved: true } });
    const again = await agents.resume({ token: link.token, payload: { approved: true } });
    expect(again).toEqual({ ...first, status: "duplicate" });
    // Lifecycle comes before payload checks: a late click with junk still learns the outcome.
    await expect(agents.resume({ token: link.token, payload: { n: Number.NaN } })).resolves.toEqual({ ...first, status: "duplicate" });
  });

  it("resolves 20 concurrent resumes to exactly one resumed and 19 duplicates with the same outcome", async () => {
    const { runId, link } = await deferredRun();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => agents.resume({ token: link.token, payload: { approved: true, note: `click ${i}` } })),
    );
    expect(replies.filter((r) => r.status === "resumed")).toHaveLength(1);
    expect(replies.filter((r) => r.status === "duplicate")).toHaveLength(19);
    expect(new Set(replies.map((r) => JSON.stringify(r.outcome))).size).toBe(1);
    expect(payouts.filter((p) => p.runId === runId)).toHaveLength(1);
  });

  it("keeps the token out of the run's history", async () => {
    const { runId, link } = await deferredRun();
    const history = async () => historyToJSON((await agents.workflowHandle(runId).fetchHistory()));
    expect(await history()).not.toContain(link.token);
    await agents.resume({ token: link.token, payload: { approved: true } });
    expect(await history()).not.toContain(link.token);
  });

  it("refuses malformed and forged tokens with RC5041", async () => {
    const { link } = await deferredRun();
    await expect(agents.resume({ token: "nonsense", payload: {} })).rejects.toMatchObject({ code: ErrorCode.ResumeTokenInvalid });
    const forged = mintResumeToken("another-secret-that-is-long-enough-000000", link.deferralId, link.toolCallId);
    await expect(agents.resume({ token: forged, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5041" });
    const tampered = link.token.slice(0, -2) + (link.token.endsWith("AA") ? "BB" : "AA");
    await expect(agents.resume({ token: tampered, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5041" });
    expect((await agents.deferrals.get({ deferralId: link.deferralId })).status).toBe("deferred");
  });

  it("keeps parked links working across a secret rotation: the old secret verifies, the new one mints", async () => {
    const { runId, link } = await deferredRun();
    const rotated = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue, deferral: { secrets: [ROTATED, SECRET] } });
    await expect(rotated.resume({ token: link.token, payload: { approved: true } })).resolves.toMatchObject({ status: "resumed" });
    await expect(rotated.result({ runId })).resolves.toMatchObject({ text: "Paid 250." });
    // A client that dropped the old secret refuses the old link as a forgery.
    const dropped = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue, deferral: { secrets: [ROTATED] } });
    await expect(dropped.resume({ token: link.token, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5041" });
  });

  it("hands the tool a ready approval link when the worker knows the approval page's address", async () => {
    const base = "https://agents.example.com/approve";
    const { agents: linked } = await h.worker([payoutAgent], { deferral: { secret: SECRET, approvalUrl: base }, client: { deferral: { secret: SECRET } } });
    const runId = uid("payout-link");
    scriptApproval(runId);
    expect(await linked.run(payoutAgent, { prompt: runId, runId })).toMatchObject({ status: "deferred" });
    const link = linkFor(runId);
    expect(link.url).toBe(approvalUrl(base, link.token));
    expect(new URL(link.url!).searchParams.get("token")).toBe(link.token);
    // Without the option there is no link to hand out.
    expect(linkFor((await deferredRun()).runId).url).toBeUndefined();
  });

  it("refuses a token for a deferral that does not exist with RC5046", async () => {
    const { link } = await deferredRun();
    const ghost = link.deferralId.replace(/^dfr:1:/, "dfr:7:");
    await expect(agents.resume({ token: mintResumeToken(SECRET, ghost, link.toolCallId), payload: {} })).rejects.toMatchObject({ code: "RC5046" });
    await expect(agents.resume({ token: mintResumeToken(SECRET, "dfr:1:no-such-run", "c"), payload: {} })).rejects.toMatchObject({ code: "RC5046" });
  });

  it("takes a resume sent before the run has recorded its deferral: the link works from the moment the tool hands it out", async () => {
    const runId = uid("fast-human");
    h.model.script(runId, [{ toolCalls: [{ name: "slowApproval", arguments: {} }] }, { text: "approved in time" }]);
    const started = agents.run(slowAgent, { prompt: runId, runId });
    await vi.waitFor(() => expect(slowLinks.some((l) => l.runId === runId)).toBe(true), { timeout: 15_000 });
    // The deferral does not exist yet: the tool still holds it.
    await expect(agents.deferrals.getRecord({ deferralId: `dfr:1:${runId}` })).rejects.toMatchObject({ code: "RC5046" });
    // A client that tells when it asks whether the run may still record the deferral: the
    // resume found no deferral, and waits for the run instead of answering RC5046.
    let waitedOnRun = 0;
    const watching = new AgentClient({
      client: new Client({
        connection: h.connection,
        namespace: h.namespace,
        interceptors: {
          workflow: [
            {
              describe: (input, next) => {
                if (input.workflowExecution.workflowId === runId) waitedOnRun++;
                return next(input);
              },
            },
          ],
        },
      }),
      taskQueue,
      deferral: { secret: SECRET },
    });
    // The tool's gate opens whatever happens, so the worker can stop after a failure too.
    onTestFinished(() => openGate());
    let settled = false;
    const resumed = watching.resume({ token: slowLinks.find((l) => l.runId === runId)!.token, payload: { approved: true } });
    void resumed.then(
      () => (settled = true),
      () => (settled = true),
    );
    await vi.waitFor(() => expect(waitedOnRun).toBeGreaterThan(0), { timeout: 15_000, interval: 10 });
    expect(settled).toBe(false);
    openGate();
    await expect(resumed).resolves.toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "approved in time" } } });
    await started;
  });

  it("says to send it again (RC5046 with retryLater, over HTTP with Retry-After) when the run is still recording the deferral after the wait, and takes it once recorded", async () => {
    // Found by `bench chaos`: a link clicked while the tool's worker lay dead outwaited the
    // 10 s the client gives the run to record its deferral, and read "no deferral exists".
    const runId = uid("slower-tool");
    h.model.script(runId, [{ toolCalls: [{ name: "slowApproval", arguments: {} }] }, { text: "approved after all" }]);
    const started = agents.run(slowAgent, { prompt: runId, runId });
    await vi.waitFor(() => expect(slowLinks.some((l) => l.runId === runId)).toBe(true), { timeout: 15_000 });
    const token = slowLinks.find((l) => l.runId === runId)!.token;
    const front = createAgentHttpHandler({ agents, authenticate: () => ({ id: "approver" }) });
    const [direct, overHttp] = await Promise.all([
      agents.resume({ token, payload: { approved: true } }).then(
        () => undefined,
        (err: unknown) => err,
      ),
      front(new Request("http://front.test/resume", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token, payload: { approved: true } }) })),
    ]);
    expect(direct).toMatchObject({ code: "RC5046", fields: { retryLater: true }, message: expect.stringContaining("send the same request again shortly") });
    expect(overHttp.status).toBe(404);
    expect(overHttp.headers.get("retry-after")).toBe("1");
    expect(await overHttp.json()).toMatchObject({ error: { code: "RC5046", retryLater: true } });
    openGate();
    await expect(started).resolves.toMatchObject({ status: "deferred" });
    await expect(agents.resume({ token, payload: { approved: true } })).resolves.toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "approved after all" } } });
  });

  it("refuses with RC5056 unless authorize returns exactly true, and shows it the record and restored principal", async () => {
    const { link, ack } = await deferredRun();
    const seen: unknown[] = [];
    for (const verdict of [false, "yes", 1, undefined]) {
      const authorize = (req: unknown) => {
        seen.push(req);
        return verdict as boolean;
      };
      await expect(agents.resume({ token: link.token, payload: { approved: true }, principal: { id: "mallory" }, authorize })).rejects.toMatchObject({ code: "RC5056" });
    }
    const throwing = () => {
      throw new Error("directory down");
    };
    await expect(agents.resume({ token: link.token, payload: { approved: true }, authorize: throwing })).rejects.toMatchObject({ code: "RC5056" });
    expect(seen[0]).toMatchObject({
      operation: "resume",
      principal: { id: "mallory" },
      runId: link.runId,
      deferralId: ack.deferralId,
      toolCallId: link.toolCallId,
      toolName: "askApproval",
      agentId: "payouts",
      payload: { approved: true },
      deferral: {
        id: ack.deferralId,
        meta: { requires: ["payouts:approve"] },
        agentId: "payouts",
        toolName: "askApproval",
        status: "deferred",
        principal: { id: "requester", team: "ops", restored: true },
      },
    });
    expect((await agents.deferrals.get({ deferralId: link.deferralId })).status).toBe("deferred");
    const ok = await agents.resume({
      token: link.token,
      payload: { approved: true },
      principal: { id: "boss", roles: ["payouts:approve"] },
      authorize: (req) =>
        req.operation === "resume" && ((req.deferral.meta.requires as string[]) ?? []).every((r) => (req.principal?.roles as string[] | undefined)?.includes(r)),
    });
    expect(ok.status).toBe("resumed");
  });

  it("refuses a payload that fails the schema with RC5049 without spending the token", async () => {
    const { link } = await deferredRun();
    const err = await agents.resume({ token: link.token, payload: { approved: "sure" } }).catch((e: unknown) => e);
    expect(codeOf(err)).toBe("RC5049");
    expect((err as Error).message).toMatch(/approved/);
    expect((await agents.deferrals.get({ deferralId: link.deferralId })).status).toBe("deferred");
    await expect(agents.resume({ token: link.token, payload: { approved: true } })).resolves.toMatchObject({ status: "resumed" });
  });

  it("refuses a payload that is not plain JSON with RC5042", async () => {
    const { link } = await deferredRun();
    for (const payload of [{ at: new Date() }, { n: Number.NaN }, { f: () => 1 }]) {
      await expect(agents.resume({ token: link.token, payload: payload as never })).rejects.toMatchObject({ code: "RC5042" });
    }
    expect((await agents.deferrals.get({ deferralId: link.deferralId })).status).toBe("deferred");
  });

  it("carries turns and usage across the deferral: a resume with maxTurns used up fails on the max-turns path", async () => {
    const tight = defineAgent({ ...approvalOptions, id: "payouts-tight", maxTurns: 1 });
    const { agents: tightAgents } = await h.worker([tight], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
    const runId = uid("tight");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 5 } }], usage: { promptTokens: 7, completionTokens: 2 } }]);
    const ack = await tightAgents.run(tight, { prompt: runId, runId });
    expect(ack.status).toBe("deferred");
    const resumed = await tightAgents.resume({ token: linkFor(runId).token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({
      status: "failed",
      error: { code: "AI1004", fields: { maxTurns: 1, turnsUsed: 1, usage: { promptTokens: 7, completionTokens: 2, totalTokens: 9 } } },
    });
    await expect(tightAgents.result({ runId })).rejects.toMatchObject({ code: "AI1004" });
  });

  it("honours a thrown DeferError like the returned sentinel", async () => {
    const runId = uid("thrown");
    h.model.script(runId, [
      { toolCalls: [{ name: "askManager", arguments: { question: "ok?" } }] },
      { check: (req) => expect(req.messages.at(-1)!.content).toBe("yes"), text: "manager said yes" },
    ]);
    const ack = await agents.run(payoutAgent, { prompt: runId, runId });
    expect(ack).toMatchObject({ status: "deferred" });
    expect(ack).not.toHaveProperty("schema");
    const resumed = await agents.resume({ token: linkFor(runId, "askManager").token, payload: "yes" });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "manager said yes" } });
  });
});

describe("one deferral per batch", () => {
  it("lets the first deferring call in emission order win; the sibling's token reads RC5055 and the plain call's result persists", async () => {
    const runId = uid("batch");
    h.model.script(runId, [
      {
        toolCalls: [
          { name: "sendPayout", arguments: { amount: 1 } },
          { name: "askManager", arguments: { question: "first?" } },
          { name: "askApproval", arguments: { amount: 2 } },
        ],
      },
      {
        check: (req) => {
          const tools = req.messages.filter((m) => m.role === "tool");
          expect(tools.map((m) => m.content)).toEqual([
            "sent 1",
            expect.stringMatching(/^Error: a sibling tool call deferred this run first, .*its handler ran/),
            "manager ok",
          ]);
        },
        text: "done",
      },
    ]);
    const ack = await agents.run(payoutAgent, { prompt: runId, runId });
    expect(ack.status).toBe("deferred");
    const winner = linkFor(runId, "askManager");
    const loser = linkFor(runId, "askApproval");
    // Every call of the batch read the same deferral id; each got its own token.
    expect(loser.deferralId).toBe(winner.deferralId);
    expect(loser.token).not.toBe(winner.token);
    await expect(agents.resume({ token: loser.token, payload: { approved: true } })).rejects.toMatchObject({ code: "RC5055" });
    expect((await agents.deferrals.get({ deferralId: winner.deferralId })).status).toBe("deferred");
    expect(payouts.filter((p) => p.runId === runId)).toHaveLength(1);
    const resumed = await agents.resume({ token: winner.token, payload: "manager ok" });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "done" } });
    h.model.assertNoFailures();
  });
});
