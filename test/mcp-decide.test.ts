/**
 * The approvals inbox over MCP (`createMcpServer({ approvals: true })`), through the MCP
 * SDK's real `Client` on Streamable HTTP: approvers list waiting requests, read one with who
 * the run acts for and why the agent asks, decide its calls one at a time, and read its life,
 * each as their own principal through the client's `authorize` hook. No token ever reaches a
 * caller; a refused, malformed, oversized, foreign or repeated decision changes nothing.
 */
import type { Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient, type ApprovalRequestInfo, type AuthorizeHook, type Principal } from "../src/index.js";
import { createMcpServer } from "../src/mcp.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

const paid: Array<{ runId: string; amount: number }> = [];
const notified: ApprovalRequestInfo[] = [];

const payout = defineTool({
  name: "payout",
  description: "Send money",
  input: z.object({ amount: z.number().positive() }),
  needsApproval: true,
  approval: { meta: { requires: ["payouts:approve"] }, resultSchema: z.object({ sentBy: z.string() }), notify: (request) => void notified.push(request) },
  handler: ({ amount }, ctx) => {
    paid.push({ runId: ctx.runId, amount });
    return `sent ${amount}`;
  },
});
const payer = defineAgent({ id: "mcp-decide", model: "gpt-4.1-mini", system: "You pay.", tools: [payout], maxTurns: 4 });

const PEOPLE: Record<string, Principal> = {
  fiona: { id: "fiona", roles: ["payouts:approve"] },
  gus: { id: "gus", roles: ["payouts:approve"] },
  ian: { id: "ian", roles: [] },
  mallory: { id: "mallory", roles: ["payouts:approve"] },
};
/** Mallory is refused everything; a decision needs every role the request requires; the rest is open. */
const authorize: AuthorizeHook = (request) => {
  if (request.principal?.id === "mallory") return false;
  if (request.operation !== "resume") return true;
  const roles = (request.principal?.roles as string[] | undefined) ?? [];
  return ((request.deferral.meta.requires as string[] | undefined) ?? []).every((role) => roles.includes(role));
};

let h: Harness;
let agents: AgentClient;
let server: NodeServer;
const clients: Client[] = [];
const as: Record<string, Client> = {};

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([payer], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize } }));
  const mcp = createMcpServer({
    agents,
    authenticate: (request) => PEOPLE[request.headers.get("x-user") ?? ""],
    tools: [{ agent: payer, name: "pay", description: "Pays once a person approves" }],
    approvals: true,
  });
  server = await new Promise<NodeServer>((resolve) => {
    const s = serve({ fetch: mcp.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as NodeServer));
  });
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  for (const user of Object.keys(PEOPLE)) {
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { "x-user": user } } }));
    clients.push(client);
    as[user] = client;
  }
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await h?.close();
});

type Answer = { isError?: boolean; structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown>; content?: unknown };
const call = async (user: string, name: string, args: Record<string, unknown>) => (await as[user]!.callTool({ name, arguments: args })) as Answer;
const codeOf = (answer: Answer) => (answer._meta?.["durable-agents/error"] as { code?: string } | undefined)?.code;
const paidIn = (runId: string) => paid.filter((p) => p.runId === runId).map((p) => p.amount);

/** Starts a run over MCP whose one step asks for these payouts; resolves once its approver was told (with the token the MCP callers must never see). */
async function parked(amounts: number[]): Promise<{ runId: string; request: ApprovalRequestInfo }> {
  const prompt = uid("mcp-decide");
  h.model.script(prompt, [{ toolCalls: amounts.map((amount, i) => ({ id: `${prompt}-c${i}`, name: "payout", arguments: { amount } })) }, { text: `Done with ${amounts.length}.` }]);
  const ack = (await call("ian", "pay", { prompt })).structuredContent as { result: { runId: string; status: string } };
  expect(ack.result.status).toBe("deferred");
  const { runId } = ack.result;
  const request = await vi.waitFor(
    () => {
      const found = notified.find((n) => n.runId === runId);
      if (!found) throw new Error("the approver has not been told yet");
      return found;
    },
    { timeout: 10_000, interval: 20 },
  );
  return { runId, request };
}

describe("the approvals inbox over MCP", () => {
  it("lists, reads and decides three calls one at a time by two approvers: each decided call runs at once and once, the run answers after the last", async () => {
    const { runId, request } = await parked([10, 20, 30]);
    const [first, second, third] = request.calls.map((c) => c.toolCallId) as [string, string, string];
    const listed = (await as.fiona!.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual(["pay", "get_run", "list_approvals", "get_approval", "decide_approval", "approval_history"]);
    // A calling model reads what a decision holds.
    expect(listed.find((t) => t.name === "decide_approval")!.inputSchema).toMatchObject({ required: ["approvalId", "decisions"], properties: { decisions: { anyOf: [{ type: "array", items: { required: ["toolCallId"] } }, { type: "object" }] } } });

    // Listed for an approver, with every call and who the run acts for; the token nowhere.
    const row = await vi.waitFor(
      async () => {
        const page = (await call("fiona", "list_approvals", { requires: "payouts:approve", limit: 1000 })).structuredContent as { approvals: Array<Record<string, unknown>> };
        const found = page.approvals.find((a) => a.approvalId === request.approvalId);
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(row).toMatchObject({ kind: "approval", runId, status: "deferred", principal: { id: "ian" }, calls: request.calls.map(({ toolCallId }) => expect.objectContaining({ toolCallId, toolName: "payout" })) });
    const detail = await call("gus", "get_approval", { approvalId: request.approvalId });
    expect(detail.isError).toBeFalsy();
    expect(detail.structuredContent).toMatchObject({ approvalId: request.approvalId, actsFor: { id: "ian" }, context: { request: { text: expect.stringContaining("mcp-decide") } }, callFingerprint: row.callFingerprint });

    // Fiona approves the first, edited: it runs now, as edited; the run stays parked on the same request.
    const one = await call("fiona", "decide_approval", { approvalId: request.approvalId, decisions: [{ toolCallId: first, approved: true, input: { amount: 11 }, note: "rounded up" }], shown: row.callFingerprint });
    expect(one.structuredContent).toMatchObject({ status: "resumed", outcome: { status: "deferred", deferralId: request.approvalId } });
    expect(paidIn(runId)).toEqual([11]);
    // Gus rejects the second; deciding the first again changes nothing.
    expect((await call("gus", "decide_approval", { approvalId: request.approvalId, decisions: { [second]: { approved: false, reason: "not owed" } } })).structuredContent).toMatchObject({ status: "resumed" });
    expect((await call("gus", "decide_approval", { approvalId: request.approvalId, decisions: { [first]: { approved: false, reason: "too late" } } })).structuredContent).toMatchObject({ status: "duplicate" });
    expect(paidIn(runId)).toEqual([11]);
    expect((await call("gus", "get_approval", { approvalId: request.approvalId })).structuredContent).toMatchObject({ status: "deferred", decided: [first, second] });
    // Fiona answers the third in the tool's place: the run goes on and answers.
    const last = await call("fiona", "decide_approval", { approvalId: request.approvalId, decisions: [{ toolCallId: third, respond: { sentBy: "bank" } }] });
    expect(last.structuredContent).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
    expect((await call("ian", "get_run", { runId })).structuredContent).toEqual({ runId, status: "completed", text: "Done with 3." });
    expect(paidIn(runId)).toEqual([11]);

    // Its life: who decided which call, and how.
    const life = (await call("gus", "approval_history", { approvalId: request.approvalId })).structuredContent as { entries: Array<Record<string, unknown>> };
    expect(life.entries.filter((e) => e.type === "decided")).toEqual([
      expect.objectContaining({ toolCallId: first, decision: "approved", by: PEOPLE.fiona, shown: row.callFingerprint, note: "rounded up", changes: [expect.objectContaining({ path: "/amount" })] }),
      expect.objectContaining({ toolCallId: second, decision: "rejected", by: PEOPLE.gus, reason: "not owed" }),
      expect.objectContaining({ toolCallId: third, decision: "responded", by: PEOPLE.fiona, response: { sentBy: "bank" } }),
    ]);
    expect((await call("gus", "approval_history", { runId })).structuredContent).toMatchObject({ runId, requests: [{ approvalId: request.approvalId }] });
    for (const answer of [row, detail, one, last, life]) expect(JSON.stringify(answer)).not.toContain(request.token);
  });

  it("refuses a caller the hook refuses, malformed, oversized, foreign and off-schema decisions with their codes, and nothing changes", async () => {
    const { runId, request } = await parked([5, 6]);
    const other = await parked([7]);
    const [a, b] = request.calls.map((c) => c.toolCallId) as [string, string];
    const decide = (user: string, args: Record<string, unknown>) => call(user, "decide_approval", { approvalId: request.approvalId, ...args });

    // Mallory is refused every tool, the same for a real request and an id that names none; the list leaves the row out.
    await vi.waitFor(
      async () => {
        const page = (await call("fiona", "list_approvals", { limit: 1000 })).structuredContent as { approvals: Array<{ approvalId: string }> };
        expect(page.approvals.map((r) => r.approvalId)).toContain(request.approvalId);
      },
      { timeout: 20_000, interval: 100 },
    );
    const hidden = (await call("mallory", "list_approvals", { limit: 1000 })).structuredContent as { approvals: Array<{ approvalId: string }> };
    expect(hidden.approvals.map((r) => r.approvalId)).not.toContain(request.approvalId);
    for (const approvalId of [request.approvalId, "dfr:1:nobody"]) {
      expect(codeOf(await call("mallory", "get_approval", { approvalId })), approvalId).toBe("AI1013");
      expect(codeOf(await call("mallory", "approval_history", { approvalId })), approvalId).toBe("AI1013");
      expect(codeOf(await call("mallory", "decide_approval", { approvalId, decisions: [{ toolCallId: a, approved: true }] })), approvalId).toBe("AI1013");
    }
    // Ian may read it, but the request requires a role he lacks.
    expect(codeOf(await decide("ian", { decisions: [{ toolCallId: a, approved: true }] }))).toBe("RC5056");
    expect(codeOf(await call("fiona", "get_approval", { approvalId: "dfr:1:nobody" }))).toBe("RC5046");

    // Malformed outlines are refused before anything is read (AI1040); what only the run can judge is RC5049.
    const malformed: Array<[Record<string, unknown>, string]> = [
      [{ decisions: "approve all" }, "AI1040"],
      [{ decisions: [{ approved: true }] }, "AI1040"],
      [{ decisions: [{ toolCallId: a, approved: true }], shown: "not-a-fingerprint" }, "AI1040"],
      [{ decisions: [{ toolCallId: a, approved: true }], token: "forged" }, "AI1040"],
      [{ decisions: [{ toolCallId: a, approved: true, note: "n".repeat(300_000) }] }, "AI1040"],
      [{ decisions: Array.from({ length: 1001 }, (_, i) => ({ toolCallId: `x${i}`, approved: true })) }, "AI1040"],
      [{ decisions: [] }, "RC5049"],
      [{ decisions: [{ toolCallId: "not-a-call", approved: true }] }, "RC5049"],
      [{ decisions: [{ toolCallId: other.request.calls[0]!.toolCallId, approved: true }] }, "RC5049"],
      [{ decisions: [{ toolCallId: a, approved: "yes" }] }, "RC5049"],
      [{ decisions: [{ toolCallId: a, approved: true }, { toolCallId: a, approved: false }] }, "RC5049"],
      [{ decisions: [{ toolCallId: a, respond: { sentBy: 42 } }] }, "RC5049"],
      [{ decisions: [{ toolCallId: a, approved: true, input: { amount: -1 } }] }, "RC5049"],
      [{ decisions: [{ toolCallId: a, approved: true, grant: "forever" }] }, "RC5049"],
      [{ decisions: [{ toolCallId: a, approved: true, note: "n".repeat(5_000) }] }, "RC5049"],
    ];
    for (const [args, code] of malformed) expect(codeOf(await decide("fiona", args)), JSON.stringify(args).slice(0, 120)).toBe(code);
    expect(codeOf(await call("fiona", "decide_approval", { decisions: [{ toolCallId: a, approved: true }] }))).toBe("AI1040");
    expect(codeOf(await call("fiona", "approval_history", { approvalId: request.approvalId, runId }))).toBe("AI1040");
    expect(codeOf(await call("fiona", "list_approvals", { limit: 0 }))).toBe("AI1040");

    // Nothing changed: both requests still wait whole, nothing ran, and the token still decides.
    for (const { approvalId, runId: id } of [request, other.request]) {
      const now = (await call("fiona", "get_approval", { approvalId })).structuredContent as Record<string, unknown>;
      expect(now.status).toBe("deferred");
      expect(now.decided).toBeUndefined();
      expect(paidIn(id)).toEqual([]);
    }
    expect((await call("fiona", "approval_history", { approvalId: request.approvalId })).structuredContent).toMatchObject({ entries: [{ type: "asked" }] });
    expect((await decide("fiona", { decisions: [{ toolCallId: a, approved: true }, { toolCallId: b, approved: true }] })).structuredContent).toMatchObject({ status: "resumed", outcome: { status: "completed" } });
    expect(paidIn(runId).sort((x, y) => x - y)).toEqual([5, 6]); // both ran, once each, in either order
    expect((await call("gus", "decide_approval", { approvalId: other.request.approvalId, decisions: [{ toolCallId: other.request.calls[0]!.toolCallId, approved: true }] })).structuredContent).toMatchObject({ status: "resumed" });
    expect(paidIn(other.runId)).toEqual([7]);
  });

  it("are not served unless asked for: a server made without approvals lists none and refuses a call to one; with them, no agent tool takes their names", async () => {
    const plain = createMcpServer({ agents, tools: [{ agent: payer, name: "pay", description: "Pays" }] });
    const [mine, theirs] = InMemoryTransport.createLinkedPair();
    await plain.connect(theirs);
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(mine);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["pay", "get_run"]);
      await expect(client.callTool({ name: "decide_approval", arguments: { approvalId: "dfr:1:x", decisions: [] } })).rejects.toThrow(/no tool named "decide_approval"/);
    } finally {
      await client.close();
    }
    // The names are the server's own only when it serves them.
    const named = (approvals: boolean) => () => createMcpServer({ agents, approvals, tools: [{ agent: payer, name: "decide_approval", description: "Pays" }] });
    expect(named(true)).toThrow(expect.objectContaining({ code: "AI1001", message: expect.stringContaining("decide_approval is the server's own tool") }));
    expect(named(false)).not.toThrow();
  });
});
