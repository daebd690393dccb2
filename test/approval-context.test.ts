/**
 * What the approver sees (issue 49): `approvals.get` returns, beside the calls, who the run
 * acts for (`actsFor`) and why the agent asks (`context`: the user's message it answers, the
 * agent's last messages, the tool results it read), each cut to 2,000 characters and marked,
 * read in the one query `get` already makes. `authorize` filters it (`approval.context`,
 * asked with the calls and meta): a principal it refuses gets the call alone, no error, over
 * the SDK and HTTP. (The pages and the CLI: test/approval-context-pages.test.ts,
 * test/cli-approvals.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AgentClient, defineAgent, defineTool, type AuthorizeRequest } from "../src/index.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { startHttp } from "./http-support.js";

let h: Harness;
let agents: AgentClient;
const asked: AuthorizeRequest[] = [];

const lookupOrder = defineTool({
  name: "lookupOrder",
  description: "Look an order up",
  input: z.object({ order: z.string() }),
  handler: ({ order }) => `order ${order}: <b>damaged</b> on arrival, paid 40 EUR \u001b[31mred\u001b[0m`,
});
const sendRefund = defineTool({
  name: "sendRefund",
  description: "Refund a customer",
  input: z.object({ amount: z.number(), to: z.string() }),
  needsApproval: true,
  approval: { meta: { requires: ["refunds:approve"] } },
  handler: ({ amount, to }) => `refunded ${amount} to ${to}`,
});
const agent = defineAgent({ id: "refunds-context", model: "gpt-4.1-mini", system: "You refund.", tools: [lookupOrder, sendRefund], maxTurns: 6 });

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([agent], {
    deferral: { secret: SECRET },
    client: {
      deferral: { secret: SECRET },
      threads: { agent },
      authorize: (request) => {
        if (request.operation !== "approval.context") return true;
        asked.push(request);
        if (request.principal?.id === "thrower") throw new Error("no");
        return request.principal?.id !== "outsider";
      },
    },
  }));
});
afterAll(() => h?.close());

const long = "why ".repeat(700);

/** A run that looks the order up, says why, then asks to refund: parked on the request. */
async function parkedRun(prompt: string): Promise<string> {
  const runId = uid("ctx-run");
  h.model.script(prompt, [
    { text: "Let me look at the order first.", toolCalls: [{ name: "lookupOrder", arguments: { order: "A-17" } }] },
    { text: `The order arrived damaged; a refund is due. ${long}`, toolCalls: [{ name: "sendRefund", arguments: { amount: 40, to: "ann" } }] },
    { text: "done" },
  ]);
  const ack = await agents.run(agent, { prompt, runId, principal: { id: "ann", team: "support" } });
  expect(ack).toMatchObject({ status: "deferred" });
  return (ack as { deferralId: string }).deferralId;
}

describe("approvals.get shows what the approver needs", () => {
  it("who the run acts for and why it asks: the prompt, the agent's messages and the tool results, bounded and marked when cut", async () => {
    const prompt = `${uid("p")} refund order A-17 <script>alert(1)</script>`;
    const approvalId = await parkedRun(prompt);
    const request = await agents.approvals.get({ approvalId, principal: { id: "approver" } });
    expect(request).toMatchObject({ approvalId, actsFor: { id: "ann", team: "support" }, calls: [{ toolName: "sendRefund", arguments: JSON.stringify({ amount: 40, to: "ann" }) }] });
    expect(request.context).toEqual({
      request: { role: "user", text: prompt },
      messages: [
        { role: "assistant", text: "Let me look at the order first." },
        { role: "assistant", text: `The order arrived damaged; a refund is due. ${long}`.slice(0, 2000), truncated: true },
      ],
      toolResults: [{ role: "tool", toolName: "lookupOrder", text: expect.stringContaining("<b>damaged</b> on arrival") }],
    });
    // The hook was asked with the request's calls and meta.
    expect(asked.at(-1)).toMatchObject({ operation: "approval.context", principal: { id: "approver" }, deferralId: approvalId, calls: [{ toolName: "sendRefund" }], meta: { requires: ["refunds:approve"] } });
  });

  it("a principal authorize refuses approval.context (false or a throw) gets the call alone, no error, over the SDK and HTTP", async () => {
    const approvalId = await parkedRun(`${uid("p")} refund please`);
    const allowed = await agents.approvals.get({ approvalId, principal: { id: "approver" } });
    expect(allowed.context).toBeDefined();
    for (const id of ["outsider", "thrower"]) {
      const refused = await agents.approvals.get({ approvalId, principal: { id } });
      expect(refused).not.toHaveProperty("context");
      const { context: _context, ...alone } = allowed;
      expect(refused).toEqual(alone);
    }
    const http = await startHttp({ agents, authenticate: (request) => ({ id: request.headers.get("x-user") ?? "anonymous" }) });
    try {
      const path = `/approvals/${encodeURIComponent(approvalId)}`;
      const ok = await http.call("GET", path, { user: "approver" });
      expect(ok).toMatchObject({ status: 200, body: { actsFor: { id: "ann" }, context: { request: { text: expect.stringContaining("refund please") } } } });
      const refused = await http.call("GET", path, { user: "outsider" });
      expect(refused.status).toBe(200);
      expect(refused.body).not.toHaveProperty("context");
      expect(refused.body).toMatchObject({ approvalId, actsFor: { id: "ann" }, calls: [{ toolName: "sendRefund" }] });
    } finally {
      await http.close();
    }
    // Refused reads changed nothing: the request still waits and decides.
    expect(await agents.approvals.decide({ approvalId, decisions: [{ toolCallId: allowed.calls[0]!.toolCallId, approved: true }], principal: { id: "approver" } })).toMatchObject({ status: "resumed" });
  });

  it("in a thread, the message of the turn that asks, not the thread's first", async () => {
    const threadId = uid("ctx-thread");
    const first = `${threadId} hello`;
    h.model.script(first, [{ text: "Hi, how can I help?" }, { text: "Refunding now.", toolCalls: [{ name: "sendRefund", arguments: { amount: 5, to: "bo" } }] }, { text: "done" }]);
    await agents.threads.createThread({ threadId, prompt: first, principal: { id: "bo" } });
    await agents.threads.settled({ threadId, principal: { id: "bo" } });
    await agents.threads.sendMessage({ threadId, prompt: "refund my 5 EUR", principal: { id: "bo" } });
    const row = await waitForRequest(threadId);
    const request = await agents.approvals.get({ approvalId: row, principal: { id: "approver" } });
    expect(request).toMatchObject({ actsFor: { id: "bo" } });
    expect(request.context).toEqual({ request: { role: "user", text: "refund my 5 EUR" }, messages: [{ role: "assistant", text: "Hi, how can I help?" }, { role: "assistant", text: "Refunding now." }], toolResults: [] });
  });
});

/** The thread's request, once its state shows one (the status the turn reaches). */
const waitForRequest = (threadId: string): Promise<string> =>
  vi.waitFor(
    async () => {
      const view = await agents.threads.state({ threadId });
      expect(view.approvals).toHaveLength(1);
      return view.approvals[0]!.approvalId;
    },
    { timeout: 20_000, interval: 50 },
  );
