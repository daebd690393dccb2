/**
 * "Respond": a person answers in a gated tool's place. A decision `{ respond: result }` is
 * recorded as the call's result and the tool never runs; the model reads it as it would the
 * tool's. It must fit the tool's `approval.resultSchema` when there is one, and a size:
 * otherwise it is refused (RC5049, AI1016) and nothing changes, the token still deciding.
 * Who may respond is asked of `authorize` like any decision. Runs, threads and HTTP.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AgentClient, defineAgent, defineTool, MAX_APPROVAL_BYTES, type ApprovalRequestInfo, type AuthorizeHook, type AuthorizeRequest, type ThreadsClient } from "../src/index.js";
import { SECRET, startHarness, uid, workflowTaskFailures, type Harness } from "./harness.js";
import { startHttp, type HttpServer } from "./http-support.js";

let h: Harness;
let agents: AgentClient;
let threads: ThreadsClient;
let http: HttpServer;

const ran: Array<{ id: string; tool: string }> = [];
const notified: ApprovalRequestInfo[] = [];
const asked: AuthorizeRequest[] = [];

/** A person may hold the payout and write its outcome instead: the result must say which. */
const sendPayout = defineTool({
  name: "sendPayout",
  description: "Send money",
  input: z.object({ amount: z.number().positive(), to: z.string() }),
  needsApproval: true,
  approval: {
    meta: { requires: ["payouts:approve"] },
    resultSchema: z.object({ status: z.enum(["sent", "held"]), reference: z.string().min(1) }),
    notify: (request) => void notified.push(request),
  },
  handler: ({ amount, to }, ctx) => {
    ran.push({ id: ctx.threadId ?? ctx.runId, tool: "sendPayout" });
    return { status: "sent", reference: `auto ${amount} ${to}` };
  },
});

/** No resultSchema: any plain JSON result is taken. */
const askCustomer = defineTool({
  name: "askCustomer",
  description: "Ask the customer something",
  input: z.object({ question: z.string() }),
  needsApproval: true,
  handler: (_input, ctx) => {
    ran.push({ id: ctx.threadId ?? ctx.runId, tool: "askCustomer" });
    return "the bot asked";
  },
});

const payouts = defineAgent({ id: "respond-payouts", model: "gpt-4.1-mini", system: "You pay.", tools: [sendPayout, askCustomer], maxTurns: 4 });
const ranIn = (id: string) => ran.filter((r) => r.id === id).map((r) => r.tool);
const toolResults = (messages: ReadonlyArray<{ role: string; content?: unknown; tool_call_id?: string }>) =>
  Object.fromEntries(messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, String(m.content)]));

/** Only a principal holding every role the request requires decides; "mallory" may not. */
const authorize: AuthorizeHook = (req) => {
  if (req.operation === "resume" || req.operation === "thread.decide") asked.push(req);
  if (req.principal?.id === "mallory" && (req.operation === "resume" || req.operation === "thread.decide")) return false;
  return true;
};

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([payouts], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize, threads: { agent: payouts } } }));
  threads = agents.threads;
  http = await startHttp({ agents, maxBodyBytes: 2 * 1024 * 1024 });
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

/** A run parked on one request for a payout and a question. */
async function parkedRun(then: Parameters<Harness["model"]["script"]>[1][number]) {
  const runId = uid("respond");
  h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 120, to: "acme" }, id: "pay" }, { name: "askCustomer", arguments: { question: "IBAN?" }, id: "ask" }] }, then]);
  const ack = await agents.run(payouts, { prompt: runId, runId, principal: { id: "clerk" } });
  if (ack.status !== "deferred") throw new Error(`expected the run to park, it settled as ${JSON.stringify(ack)}`);
  return { runId, approvalId: ack.deferralId };
}

/** What "nothing changed" means for a parked run: the same record, still waiting, nothing ran, the model not asked again. */
async function unchanged(runId: string, approvalId: string) {
  const before = await agents.deferrals.get({ deferralId: approvalId });
  const calls = h.model.requests.filter((r) => r.conversation === runId).length;
  return async () => {
    const after = await agents.deferrals.get({ deferralId: approvalId });
    expect(after.status).toBe("deferred");
    expect(after.fingerprint).toBe(before.fingerprint);
    expect(ranIn(runId)).toEqual([]);
    expect(h.model.requests.filter((r) => r.conversation === runId).length).toBe(calls);
  };
}

describe("a response in the tool's place, in a run", () => {
  it("is the call's result and the tool never runs; a call approved beside it runs", async () => {
    const { runId, approvalId } = await parkedRun({
      check: (req) => expect(toolResults(req.messages)).toEqual({ pay: JSON.stringify({ status: "held", reference: "manual-7" }), ask: "the bot asked" }),
      text: "held, and asked",
    });
    const request = await agents.approvals.get({ approvalId });
    // What the response must fit is shown with the call.
    expect(request.calls.find((c) => c.toolCallId === "pay")?.resultSchema).toMatchObject({ type: "object", required: ["status", "reference"] });
    const decided = await agents.approvals.decide({ approvalId, decisions: { pay: { respond: { status: "held", reference: "manual-7" }, note: "bank holiday" }, ask: { approved: true } }, principal: { id: "fiona" } });
    expect(decided).toMatchObject({ status: "resumed", outcome: { status: "completed", result: { text: "held, and asked" } } });
    expect(ranIn(runId)).toEqual(["askCustomer"]);
    // authorize saw the response as part of the decision it allowed.
    expect(asked.find((a) => a.operation === "resume" && a.deferral.id === approvalId)).toMatchObject({ payload: { decisions: expect.arrayContaining([{ toolCallId: "pay", respond: { status: "held", reference: "manual-7" }, note: "bank holiday" }]) } });
    // The record keeps the response as the decision; a second one reads the first outcome.
    expect(await agents.approvals.decide({ approvalId, decisions: { pay: { respond: { status: "sent", reference: "x" } }, ask: { approved: true } } })).toMatchObject({ status: "duplicate" });
    expect(ranIn(runId)).toEqual(["askCustomer"]);
    expect(await workflowTaskFailures(agents.client, runId)).toEqual([]);
  });

  it("takes any plain JSON for a tool without a resultSchema: a string reaches the model as it is", async () => {
    const { runId, approvalId } = await parkedRun({ check: (req) => expect(toolResults(req.messages)).toEqual({ pay: expect.stringMatching(/^Rejected/), ask: "DE89 3704 0044 0532 0130 00" }), text: "ok" });
    const request = await agents.approvals.get({ approvalId });
    expect(request.calls.find((c) => c.toolCallId === "ask")).not.toHaveProperty("resultSchema");
    const token = notified.find((n) => n.approvalId === approvalId)?.token ?? (await vi.waitFor(() => notified.find((n) => n.approvalId === approvalId)!.token, { timeout: 10_000 }));
    // By token, as the approval page decides.
    const resumed = await agents.resume({ token, payload: { decisions: [{ toolCallId: "pay", approved: false }, { toolCallId: "ask", respond: "DE89 3704 0044 0532 0130 00" }] } });
    expect(resumed).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
    expect(ranIn(runId)).toEqual([]);
  });

  const refused: Array<[string, unknown, RegExp]> = [
    ["off the tool's resultSchema", { status: "lost", reference: "x" }, /decisions\[0\]\.respond\/status/],
    ["missing what the schema requires", { status: "held" }, /decisions\[0\]\.respond/],
    ["null", null, /respond must be the tool's result/],
    ["beside approved", "both", /takes no approved, input or reason/],
  ];
  it.each(refused)("is refused with RC5049 when %s, and nothing changes: the token still decides", async (_what, respond, problem) => {
    const { runId, approvalId } = await parkedRun({ check: (req) => expect(toolResults(req.messages).pay).toBe(JSON.stringify({ status: "sent", reference: "r-1" })), text: "ok" });
    const nothingChanged = await unchanged(runId, approvalId);
    const decision = respond === "both" ? { toolCallId: "pay", approved: true, respond: { status: "sent", reference: "r" } } : { toolCallId: "pay", respond };
    const err = await agents.approvals.decide({ approvalId, decisions: [decision as never, { toolCallId: "ask", approved: false }] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "RC5049" });
    expect(String((err as Error).message)).toMatch(problem);
    await nothingChanged();
    expect(await agents.approvals.decide({ approvalId, decisions: [{ toolCallId: "pay", respond: { status: "sent", reference: "r-1" } }, { toolCallId: "ask", approved: false }] })).toMatchObject({ status: "resumed" });
  });

  it("is refused with AI1016 when larger than MAX_APPROVAL_BYTES, and nothing changes: the token still decides", async () => {
    const { runId, approvalId } = await parkedRun({ text: "ok" });
    const nothingChanged = await unchanged(runId, approvalId);
    const huge = { status: "held" as const, reference: "r".repeat(MAX_APPROVAL_BYTES + 10) };
    await expect(agents.approvals.decide({ approvalId, decisions: { pay: { respond: huge }, ask: { approved: false } } })).rejects.toMatchObject({ code: "AI1016", fields: { limitBytes: MAX_APPROVAL_BYTES } });
    await nothingChanged();
    expect(await agents.approvals.decide({ approvalId, decisions: { pay: { respond: { status: "held", reference: "small" } }, ask: { approved: false } } })).toMatchObject({ status: "resumed" });
  });

  it("is refused (RC5056) for whom authorize refuses, and nothing changes", async () => {
    const { runId, approvalId } = await parkedRun({ text: "ok" });
    const nothingChanged = await unchanged(runId, approvalId);
    await expect(agents.approvals.decide({ approvalId, decisions: { pay: { respond: { status: "held", reference: "m" } }, ask: { approved: false } }, principal: { id: "mallory" } })).rejects.toMatchObject({ code: "RC5056" });
    await nothingChanged();
  });
});

describe("a response in the tool's place, in a thread", () => {
  it("lands as the call's result and the turn goes on; authorize (thread.decide) sees it", async () => {
    const threadId = uid("t-respond");
    h.model.script(threadId, [
      { toolCalls: [{ name: "sendPayout", arguments: { amount: 50, to: "bob" }, id: "tpay" }] },
      { check: (req) => expect(toolResults(req.messages)).toEqual({ tpay: JSON.stringify({ status: "sent", reference: "wire 88" }) }), text: "sent by hand" },
    ]);
    await threads.createThread({ threadId, prompt: threadId, principal: { id: "sam" } });
    const view = await vi.waitFor(
      async () => {
        const v = await threads.state({ threadId });
        expect(v.approvals).toHaveLength(1);
        return v;
      },
      { timeout: 20_000, interval: 50 },
    );
    const approvalId = view.approvals[0]!.approvalId;
    await expect(threads.decide({ threadId, approvalId, decisions: { tpay: { respond: { status: "maybe", reference: "x" } } } })).rejects.toMatchObject({ code: "RC5049" });
    await expect(threads.decide({ threadId, approvalId, decisions: { tpay: { respond: { status: "sent", reference: "x" } } }, principal: { id: "mallory" } })).rejects.toMatchObject({ code: "AI1021" });
    expect((await threads.state({ threadId })).approvals).toHaveLength(1);
    expect(await threads.decide({ threadId, approvalId, decisions: { tpay: { respond: { status: "sent", reference: "wire 88" } } }, principal: { id: "fiona" } })).toMatchObject({ status: "resumed" });
    expect(await threads.settled({ threadId })).toMatchObject({ status: "completed", approvals: [] });
    expect(ranIn(threadId)).toEqual([]);
    expect(asked.find((a) => a.operation === "thread.decide" && a.principal?.id === "fiona" && a.approvalId === approvalId)).toMatchObject({
      decisions: [{ toolCallId: "tpay", respond: { status: "sent", reference: "wire 88" } }],
    });
    expect(await workflowTaskFailures(threads.client, threadId)).toEqual([]);
  });
});

describe("a response over HTTP", () => {
  it("decides by id with { respond }, refuses one off the schema with 400 RC5049 and one that also approves with 400 AI1040, changing nothing", async () => {
    const { runId, approvalId } = await parkedRun({ check: (req) => expect(toolResults(req.messages).pay).toBe(JSON.stringify({ status: "held", reference: "http" })), text: "ok" });
    const nothingChanged = await unchanged(runId, approvalId);
    const path = `/approvals/${encodeURIComponent(approvalId)}`;
    const off = await http.call("POST", path, { user: "fiona", body: { decisions: [{ toolCallId: "pay", respond: { status: 7 } }, { toolCallId: "ask", approved: false }] } });
    expect(off).toMatchObject({ status: 400, body: { error: { code: "RC5049" } } });
    const both = await http.call("POST", path, { user: "fiona", body: { decisions: [{ toolCallId: "pay", approved: true, respond: { status: "held", reference: "x" } }, { toolCallId: "ask", approved: false }] } });
    expect(both).toMatchObject({ status: 400, body: { error: { code: "AI1040" } } });
    await nothingChanged();
    const decided = await http.call("POST", path, { user: "fiona", body: { decisions: { pay: { respond: { status: "held", reference: "http" } }, ask: { approved: false } } } });
    expect(decided).toMatchObject({ status: 200, body: { status: "resumed", outcome: { status: "completed" } } });
    expect(ranIn(runId)).toEqual([]);
  });
});
