import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type AgentClient, replaceDeferredThread, defineAgent, defineTool, ContextOverflowError, isContextOverflow, type ChatMessage } from "../src/index.js";
import { z } from "zod";
import { approvalOptions, linkFor, payoutAgent } from "./fixtures/approvals.js";
import { MUTATIONS, mutate } from "./fixtures/threads.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
const secretOptions = { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } };
const LONG = "The quarterly ledger shows many entries. ".repeat(120); // ~1k tokens

/** A thread that a compaction keeps valid: long tool results become short summaries (in place, so it is passed with trustTranscript). */
const summarise = (messages: ChatMessage[]): ChatMessage[] =>
  messages.map((m) => (m.role === "tool" && m.content.length > 200 ? { ...m, content: "(summary) ledger looked fine" } : m));

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([payoutAgent], secretOptions));
});
afterAll(() => h?.close());

/** A payout run deferred after a batch: a long sendPayout-free lookup result plus the approval. */
async function deferredRun(client = agents, agent = payoutAgent, extraSteps: Parameters<Harness["model"]["script"]>[1] = []) {
  const runId = uid("compact");
  h.model.script(runId, [
    { toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }, { name: "askApproval", arguments: { amount: 2 } }] },
    ...extraSteps,
  ]);
  const ack = await client.run(agent, { prompt: `${runId} ${LONG}`.slice(0, runId.length), runId });
  if (ack.status !== "deferred") throw new Error("expected a deferral");
  return { runId, deferralId: ack.deferralId, link: linkFor(runId) };
}

describe("replaceDeferredThread", () => {
  it("refuses every class of damaged rewrite with AI1008 and leaves the record byte-for-byte unchanged", async () => {
    const { deferralId } = await deferredRun();
    const before = JSON.stringify(await agents.deferrals.get({ deferralId }));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...MUTATIONS), fc.nat(), async (mutation, pick) => {
        const err = await replaceDeferredThread(agents.deferrals, { deferralId, rewrite: (messages, deferral) =>
          mutate({ messages, deferredToolCallId: deferral.toolCallId }, mutation, pick) }
        ).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: "AI1008" });
      }),
      { numRuns: 24 },
    );
    expect(JSON.stringify(await agents.deferrals.get({ deferralId }))).toBe(before);
    // The raw compare-and-swap refuses the same damage itself, also without writing.
    const view = await agents.deferrals.get({ deferralId });
    const damaged = mutate({ messages: view.stepState!.messages, deferredToolCallId: view.toolCallId }, "dropDeferred", 0);
    await expect(agents.deferrals.replaceStepState({ deferralId, expectedFingerprint: view.fingerprint, stepState: { ...view.stepState!, messages: damaged } })).rejects.toMatchObject({
      code: "AI1008",
    });
    await expect(
      agents.deferrals.replaceStepState({ deferralId, expectedFingerprint: view.fingerprint, stepState: { ...view.stepState!, turnsUsed: 0 } }),
    ).rejects.toMatchObject({ code: "AI1007" });
    expect(JSON.stringify(await agents.deferrals.get({ deferralId }))).toBe(before);
  });

  it("swaps the thread in: the resumed model sees the rewrite, turnsUsed and usage stay", async () => {
    const { deferralId, link } = await deferredRun(agents, payoutAgent, [
      { check: (req) => expect(req.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["(compacted)", '{"approved":true}']), text: "ok" },
    ]);
    const before = await agents.deferrals.get({ deferralId });
    // Summarising a tool result in place speaks for the tool: this server code vouches for it.
    const swap = await replaceDeferredThread(agents.deferrals, { deferralId, rewrite: (messages) => messages.map((m) => (m.role === "tool" ? { ...m, content: "(compacted)" } : m)), trustTranscript: true }
    );
    expect(swap.won).toBe(true);
    expect(swap.deferral.stepState).toMatchObject({ turnsUsed: before.stepState!.turnsUsed, usage: before.stepState!.usage });
    expect(swap.deferral.fingerprint).not.toBe(before.fingerprint);
    const resumed = await agents.resume({ token: link.token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "ok" } });
    h.model.assertNoFailures();
  });

  it("two rewrites at once: exactly one wins, the other gets won:false and the winner's record", async () => {
    const { deferralId } = await deferredRun();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let started = 0;
    const rewriteTo = (label: string) => async (messages: ChatMessage[]) => {
      // Both take their fingerprint before either writes.
      if (++started === 2) open();
      await gate;
      return messages.map((m) => (m.role === "tool" ? { ...m, content: label } : m));
    };
    const [a, b] = await Promise.all([
      replaceDeferredThread(agents.deferrals, { deferralId, rewrite: rewriteTo("A"), trustTranscript: true }),
      replaceDeferredThread(agents.deferrals, { deferralId, rewrite: rewriteTo("B"), trustTranscript: true }),
    ]);
    expect([a.won, b.won].sort()).toEqual([false, true]);
    const winner = a.won ? "A" : "B";
    const stored = await agents.deferrals.get({ deferralId });
    expect(stored.stepState!.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([winner]);
    expect((a.won ? b : a).deferral.fingerprint).toBe(stored.fingerprint);
  });

  it("a rewrite racing a resume: whichever lands second loses, and the run continues on a whole thread", async () => {
    // The resume lands between the rewrite's read and its swap.
    const first = await deferredRun(agents, payoutAgent, [
      { check: (req) => expect(req.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["sent 1", '{"approved":true}']), text: "done" },
    ]);
    const lost = await replaceDeferredThread(agents.deferrals, { deferralId: first.deferralId, rewrite: async (messages) => {
      await agents.resume({ token: first.link.token, payload: { approved: true } });
      return messages.map((m) => (m.role === "tool" ? { ...m, content: "too late" } : m));
    }, trustTranscript: true });
    expect(lost.won).toBe(false);
    expect(lost.deferral.status).toBe("resumed");
    await expect(agents.result({ runId: first.runId })).resolves.toMatchObject({ text: "done" });

    // Truly concurrent: either outcome is fine, as long as the model saw exactly one whole thread.
    for (let i = 0; i < 3; i++) {
      const seen: string[][] = [];
      const run = await deferredRun(agents, payoutAgent, [{ check: (req) => void seen.push(req.messages.filter((m) => m.role === "tool").map((m) => m.content as string)), text: "done" }]);
      const [swap] = await Promise.all([
        replaceDeferredThread(agents.deferrals, { deferralId: run.deferralId, rewrite: (messages) => messages.map((m) => (m.role === "tool" ? { ...m, content: "rewritten" } : m)), trustTranscript: true }),
        agents.resume({ token: run.link.token, payload: { approved: true } }),
      ]);
      await agents.result({ runId: run.runId });
      expect(seen).toEqual([swap.won ? ["rewritten", '{"approved":true}'] : ["sent 1", '{"approved":true}']]);
    }
    h.model.assertNoFailures();
  });

  it("a rewrite racing expiry loses with won:false and the expired record", async () => {
    const runId = uid("expiring");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 2, ttl: "1500ms" } }] }]);
    const ack = await agents.run(payoutAgent, { prompt: runId, runId });
    if (ack.status !== "deferred") throw new Error("expected a deferral");
    const swap = await replaceDeferredThread(agents.deferrals, { deferralId: ack.deferralId, rewrite: async (messages) => {
      await vi.waitFor(async () => expect((await agents.deferrals.get({ deferralId: ack.deferralId })).status).toBe("expired"), { timeout: 10_000 });
      return messages;
    } });
    expect(swap).toMatchObject({ won: false, deferral: { status: "expired" } });
  });
});

describe("listing deferrals", () => {
  it("pages through 50 deferred runs of two agents by agent and status", async () => {
    const other = defineAgent({ ...approvalOptions, id: "payouts-eu" });
    const { agents: both } = await h.worker([payoutAgent, other], secretOptions);
    const tag = uid("list");
    const started = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const agent = i % 2 === 0 ? payoutAgent : other;
        const runId = `${tag}-${agent.id}-${i}`;
        h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: i, ttl: i < 10 ? "2h" : "72h" } }] }]);
        return both.run(agent, { prompt: runId, runId }).then(() => runId);
      }),
    );
    const listAll = async (options: Parameters<typeof both.deferrals.list>[0]) => {
      const rows = [];
      let pages = 0;
      let cursor: string | undefined;
      do {
        const page = await both.deferrals.list({ ...options, limit: 7, ...(cursor ? { cursor } : {}) });
        rows.push(...page.deferrals.filter((d) => d.runId.startsWith(tag)));
        cursor = page.cursor;
        pages += 1;
      } while (cursor);
      return { rows, pages };
    };
    await vi.waitFor(async () => expect((await listAll({ agentId: "payouts-eu", status: "deferred" })).rows).toHaveLength(25), { timeout: 20_000 });
    const eu = await listAll({ agentId: "payouts-eu", status: "deferred" });
    expect(eu.pages).toBeGreaterThan(3);
    expect(new Set(eu.rows.map((r) => r.runId))).toEqual(new Set(started.filter((id) => id.includes("payouts-eu"))));
    expect(eu.rows.every((r) => r.agentId === "payouts-eu" && r.status === "deferred" && r.deferralId === `dfr:1:${r.runId}`)).toBe(true);
    const soon = await listAll({ expiringBefore: new Date(Date.now() + 3 * 3600_000) });
    expect(soon.rows).toHaveLength(10);
    await expect(both.deferrals.list({ status: "bogus" as never })).rejects.toMatchObject({ code: "AI1001" });
  });
});

describe("context overflow", () => {
  it("turns the provider's context_length_exceeded into AI1009 and fails a run that was never resumed", async () => {
    const runId = uid("overflow");
    h.model.script(runId, [{ errors: ["context_length_exceeded"], text: "never" }]);
    const err = await agents.run(payoutAgent, { prompt: runId, runId }).catch((e: unknown) => e);
    expect(ContextOverflowError.isInstance(err)).toBe(true);
    expect(isContextOverflow(err)).toBe(true);
    expect(h.model.requests.filter((r) => r.conversation === runId)).toHaveLength(1);
  });

  it("recognises overflow wording of OpenAI-compatible servers and nothing else", () => {
    for (const message of [
      "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens",
      "prompt is too long: 210000 tokens > 200000 maximum",
      "the request exceeds the available context size, try increasing it",
      "Input is too long for requested model",
    ]) {
      expect(isContextOverflow(new Error(message)), message).toBe(true);
    }
    for (const message of ["Rate limit reached", "Invalid API key", "model not found"]) {
      expect(isContextOverflow(new Error(message)), message).toBe(false);
    }
    expect(isContextOverflow({ code: "string_above_max_length", message: "x" })).toBe(true);
    // A 429 worded like an overflow is throttling: retried, never refused as AI1009.
    const throttled = Object.assign(new Error("Too many tokens, please wait before trying again"), { status: 429 });
    expect(isContextOverflow(throttled)).toBe(false);
    expect(isContextOverflow(new Error("Too many tokens in the prompt"))).toBe(true);
  });

  it("refuses a resume that would not fit before spending the approval; after compaction the same token works", async () => {
    const readLedger = defineTool({ name: "readLedger", description: "Read the ledger", input: z.object({}), handler: () => LONG });
    const windowed = defineAgent({ ...approvalOptions, id: "payouts-windowed", tools: [...approvalOptions.tools!, readLedger], contextWindow: 600 });
    const { agents: client } = await h.worker([windowed], secretOptions);
    const runId = uid("window");
    h.model.script(runId, [
      { toolCalls: [{ name: "readLedger", arguments: {} }, { name: "askApproval", arguments: { amount: 3 } }] },
      { check: (req) => expect(req.messages.map((m) => m.content)).toContain("(summary) ledger looked fine"), text: "paid" },
    ]);
    await client.run(windowed, { prompt: runId, runId });
    const { token, deferralId } = linkFor(runId);
    const err = await client.resume({ token, payload: { approved: true } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "AI1009", fields: { contextWindow: 600 } });
    expect((err as ContextOverflowError).fields.estimatedTokens).toBeGreaterThan(600);
    expect((await client.deferrals.get({ deferralId })).status).toBe("deferred");
    const swap = await replaceDeferredThread(client.deferrals, { deferralId, rewrite: summarise, trustTranscript: true });
    expect(swap.won).toBe(true);
    await expect(client.resume({ token, payload: { approved: true } })).resolves.toMatchObject({
      status: "resumed",
      outcome: { status: "completed", result: { text: "paid" } },
    });
    h.model.assertNoFailures();
  });

  it("parks as needs-compaction when the model overflows after the resume, then continues after a rewrite with no second approval", async () => {
    const runId = uid("needs-compaction");
    h.model.script(runId, [
      { toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }, { name: "askApproval", arguments: { amount: 2 } }] },
      {
        errors: ["context_length_exceeded"],
        check: (req) => {
          if (h.model.requests.filter((r) => r.conversation === runId && r.turn === 1).length > 1) {
            expect(req.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["(summary)", '{"approved":true}']);
          }
        },
        text: "paid after compaction",
      },
    ]);
    const ack = await agents.run(payoutAgent, { prompt: runId, runId });
    if (ack.status !== "deferred") throw new Error("expected a deferral");
    const resumed = await agents.resume({ token: linkFor(runId).token, payload: { approved: true } });
    expect(resumed.outcome).toEqual({ status: "needs-compaction", deferralId: ack.deferralId });
    const parked = await agents.deferrals.get({ deferralId: ack.deferralId });
    expect(parked).toMatchObject({ status: "needs-compaction", payload: { approved: true } });
    expect(await agents.state({ runId })).toMatchObject({ status: "needs-compaction" });
    // A rewrite that drops the accepted payload is refused: it is the approval.
    await expect(
      replaceDeferredThread(agents.deferrals, { deferralId: ack.deferralId, rewrite: (messages) => messages.filter((m) => !(m.role === "tool" && m.content.includes("approved"))) }),
    ).rejects.toMatchObject({ code: "AI1008" });
    const swap = await replaceDeferredThread(agents.deferrals, { deferralId: ack.deferralId, rewrite: (messages) => messages.map((m) => (m.role === "tool" && m.content === "sent 1" ? { ...m, content: "(summary)" } : m)), trustTranscript: true }
    );
    expect(swap.won).toBe(true);
    await expect(agents.result({ runId })).resolves.toMatchObject({ text: "paid after compaction", turnsUsed: 2 });
    // A late duplicate click gets the first outcome and does not run anything again.
    await expect(agents.resume({ token: linkFor(runId).token, payload: { approved: true } })).resolves.toMatchObject({
      status: "duplicate",
      outcome: { status: "needs-compaction" },
    });
    h.model.assertNoFailures();
  });
});
