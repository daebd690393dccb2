/**
 * Whatever the model emits around gated tools, a handler runs exactly as often as people
 * decided: batches of gated and free calls, arguments that fail the schema, ids used twice,
 * decisions that come too late. Checked as properties over generated batches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient } from "../src/index.js";
import { SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;

/** Each handler run, by run and call: what decisions must bound. */
const ran: Array<{ runId: string; tool: string; toolCallId: string }> = [];

const act = defineTool({
  name: "act",
  description: "Does something that needs a person's approval",
  input: z.object({ n: z.number().int() }),
  needsApproval: true,
  approval: { ttl: "1h" },
  handler: ({ n }, ctx) => (ran.push({ runId: ctx.runId, tool: "act", toolCallId: ctx.toolCallId }), `acted ${n}`),
});
const look = defineTool({
  name: "look",
  description: "Looks, freely",
  input: z.object({ n: z.number().int() }),
  handler: ({ n }, ctx) => (ran.push({ runId: ctx.runId, tool: "look", toolCallId: ctx.toolCallId }), `looked ${n}`),
});
/** Gated with a short request: for decisions that come too late. */
const hurry = defineTool({
  name: "hurry",
  description: "Needs a quick decision",
  input: z.object({}),
  needsApproval: true,
  approval: { ttl: "1s" },
  handler: (_input, ctx) => (ran.push({ runId: ctx.runId, tool: "hurry", toolCallId: ctx.toolCallId }), "hurried"),
});

const agent = defineAgent({ id: "gated-hostile", model: "gpt-4.1-mini", system: "You act.", tools: [act, look, hurry], maxTurns: 4 });
const ranIn = (runId: string) => ran.filter((r) => r.runId === runId);

beforeAll(async () => {
  h = await startHarness();
  // One model attempt: a malformed answer reports AI1003 at once instead of after the backoff.
  ({ agents } = await h.worker([agent], { deferral: { secret: SECRET }, threads: { modelMaxAttempts: 1 }, client: { deferral: { secret: SECRET }, threads: { agent } } }));
});
afterAll(() => h?.close());

describe("properties: a handler runs exactly as decisions allow", () => {
  const callShape = fc.record({ gated: fc.boolean(), valid: fc.boolean(), approve: fc.boolean() });

  it("for any batch of 1-20 gated and free calls, some with arguments that fail the schema", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(callShape, { minLength: 1, maxLength: 20 }), async (shapes) => {
        const runId = uid("gate-prop");
        const toolCalls = shapes.map((s, i) => ({ name: s.gated ? "act" : "look", arguments: s.valid ? { n: i } : { n: "not a number" }, id: `c${i}` }));
        h.model.script(runId, [{ toolCalls }, { text: "done" }]);
        const first = await agents.run(agent, { prompt: runId, runId });
        const waiting = shapes.map((s, i) => ({ ...s, id: `c${i}` })).filter((s) => s.gated && s.valid);
        // Free valid calls ran before anything waited; no gated call ran without a decision.
        expect(ranIn(runId).map((r) => r.toolCallId).sort()).toEqual(shapes.flatMap((s, i) => (!s.gated && s.valid ? [`c${i}`] : [])).sort());
        if (waiting.length === 0) {
          expect(first).toMatchObject({ status: "completed" });
        } else {
          expect(first).toMatchObject({ status: "deferred" });
          const request = await agents.approvals.get({ approvalId: (first as { deferralId: string }).deferralId });
          expect(request.calls.map((c) => c.toolCallId)).toEqual(waiting.map((w) => w.id));
          await agents.approvals.decide({ approvalId: request.approvalId, decisions: waiting.map((w) => (w.approve ? { toolCallId: w.id, approved: true } : { toolCallId: w.id, approved: false, reason: "no" })) });
          expect(await agents.handle(runId).settled()).toMatchObject({ status: "completed" });
        }
        const expected = shapes.flatMap((s, i) => (s.valid && (!s.gated || s.approve) ? [`c${i}`] : []));
        expect(ranIn(runId).map((r) => r.toolCallId).sort()).toEqual(expected.sort());
        expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });

  it("for the same call id twice in one answer: refused as malformed (AI1003), nothing runs", async () => {
    const runId = uid("gate-twice");
    h.model.script(runId, [{ toolCalls: [{ name: "act", id: "same", arguments: { n: 1 } }, { name: "act", id: "same", arguments: { n: 2 } }] }]);
    // One attempt: the answer is refused for good.
    const err = await agents.run(agent, { prompt: runId, runId }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "AI1003" });
    expect(ranIn(runId)).toEqual([]);
  });
});

describe("a request nobody decides in time", () => {
  // Runs and threads alike: its calls do not run, the model reads why and goes on (docs/approvals.md).
  const expired = 'Error: "hurry" was not run: its approval request expired before anyone decided.';
  const step = (id: string) => [
    { toolCalls: [{ name: "hurry", arguments: {} }, { name: "look", arguments: { n: 1 } }] },
    { check: (req: { messages: Array<{ role: string; content?: unknown }> }) => expect(req.messages.filter((m) => m.role === "tool").map((m) => m.content).sort()).toEqual([expired, "looked 1"].sort()), text: `${id} goes on` },
  ];

  it("in a run: the run goes on to its answer, the record reads expired, a late decision RC5047, and the gated handler never ran", async () => {
    const runId = uid("gate-late");
    h.model.script(runId, step(runId));
    const ack = await agents.run(agent, { prompt: runId, runId });
    if (ack.status !== "deferred") throw new Error(`expected the run to wait for a decision, it settled as ${JSON.stringify(ack)}`);
    expect(await agents.result({ runId })).toMatchObject({ status: "completed", text: `${runId} goes on` });
    const record = await agents.deferrals.get({ deferralId: ack.deferralId });
    expect(record.status).toBe("expired");
    await expect(agents.approvals.decide({ approvalId: ack.deferralId, decisions: [{ toolCallId: record.approval!.calls[0]!.toolCallId, approved: true }] })).rejects.toMatchObject({ code: "RC5047" });
    expect(ranIn(runId).map((r) => r.tool)).toEqual(["look"]);
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
    h.model.assertNoFailures();
  });

  it("in a thread: the turn goes on to its answer, readers see the request expire, a late decision reads RC5047, and the gated handler never ran", async () => {
    const threadId = uid("gate-late-thread");
    h.model.script(threadId, step(threadId));
    await agents.threads.createThread({ threadId, prompt: threadId });
    expect(await agents.threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    const { updates } = await agents.threads.streamUpdates({ threadId });
    const asked = updates.find((u) => u.type === "approval-request");
    expect(updates.filter((u) => u.type === "approval-decided")).toMatchObject([{ approvalId: asked?.type === "approval-request" ? asked.approvalId : "?", outcome: "expired" }]);
    const request = asked as Extract<typeof asked, { type: "approval-request" }>;
    await expect(agents.threads.decide({ threadId, approvalId: request.approvalId, decisions: [{ toolCallId: request.calls[0]!.toolCallId, approved: true }] })).rejects.toMatchObject({ code: "RC5047" });
    expect(ranIn(threadId).map((r) => r.tool)).toEqual(["look"]);
    expect(await workflowTaskFailures(agents.client, threadId)).toEqual([]);
    h.model.assertNoFailures();
  });
});
