/**
 * A gated tool behind an agent served over MCP (the MCP SDK's real `Client`, Streamable
 * HTTP): the run parks on an approval request before any handler runs, and the call answers
 * with the deferral acknowledgment a deferring tool's run answers with (`approvalUrl` when
 * configured, never the token or meta, `mcp:tool:deferred` once); `get_run` reads the outcome
 * once a person decided.
 */
import type { Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentClient, type ApprovalRequestInfo } from "../src/index.js";
import { createMcpServer, IDEMPOTENCY_META_KEY, type McpToolDeferredEvent } from "../src/mcp.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { authenticate } from "./http-support.js";

const paid: Array<{ runId: string; amount: number }> = [];
const notified: ApprovalRequestInfo[] = [];

const payout = defineTool({
  name: "payout",
  description: "Send money",
  input: z.object({ amount: z.number().positive() }),
  needsApproval: true,
  approval: { meta: { requires: ["payouts:approve"] }, notify: (request) => void notified.push(request) },
  handler: ({ amount }, ctx) => {
    paid.push({ runId: ctx.runId, amount });
    return `sent ${amount}`;
  },
});

const payer = defineAgent({ id: "mcp-gated", model: "gpt-4.1-mini", system: "You pay.", tools: [payout], maxTurns: 4 });

let h: Harness;
let agents: AgentClient;
let server: NodeServer;
let client: Client;
const events: McpToolDeferredEvent[] = [];

beforeAll(async () => {
  h = await startHarness();
  ({ agents } = await h.worker([payer], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
  const mcp = createMcpServer({
    agents,
    authenticate,
    tools: [{ agent: payer, name: "pay", description: "Pays once a person approves" }],
    approvalUrl: ({ deferralId }) => `https://approvals.test/inbox/${deferralId}`,
    on: { "mcp:tool:deferred": (event) => events.push(event) },
    progressInterval: 25,
  });
  server = await new Promise<NodeServer>((resolve) => {
    const s = serve({ fetch: mcp.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as NodeServer));
  });
  client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), { requestInit: { headers: { "x-user": "ian" } } }));
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await h?.close();
});

describe("a gated tool served over MCP", () => {
  it("answers with the deferral acknowledgment before any handler runs, reports it once, and get_run returns the outcome after the decision", async () => {
    const prompt = uid("mcp-gated");
    h.model.script(prompt, [{ toolCalls: [{ name: "payout", arguments: { amount: 250 } }, { name: "payout", arguments: { amount: 40 } }] }, { text: "Paid 250, not 40." }]);
    const before = events.length;
    const key = uid("key");
    const call = () => client.callTool({ name: "pay", arguments: { prompt }, _meta: { [IDEMPOTENCY_META_KEY]: key } });
    const result = await call(); // the SDK's client has checked it against the advertised oneOf [Output, Deferred]
    expect(result.isError).toBe(false);
    const ack = (result.structuredContent as { result: Record<string, unknown> }).result;
    expect(Object.keys(ack).sort()).toEqual(["approvalUrl", "deferralId", "expiresAt", "runId", "status"]);
    expect(ack).toMatchObject({ status: "deferred", approvalUrl: `https://approvals.test/inbox/${ack.deferralId as string}` });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(ack) }]);
    const runId = ack.runId as string;
    expect(paid.filter((p) => p.runId === runId)).toEqual([]);

    // One request for both calls: the approver's link carries its token; the MCP caller never sees it, nor the meta.
    // Told by an activity the parked run schedules: the acknowledgment may come first.
    const request = await vi.waitFor(
      () => {
        const found = notified.find((n) => n.runId === runId);
        if (!found) throw new Error("the approver has not been told yet");
        return found;
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(request).toMatchObject({ approvalId: ack.deferralId, calls: [{ toolName: "payout" }, { toolName: "payout" }] });
    expect(JSON.stringify(result)).not.toContain(request.token);
    expect(JSON.stringify(result)).not.toContain("payouts:approve");

    // Retried with the same key: the same parked run, the same acknowledgment, no second event.
    const again = await call();
    expect((again.structuredContent as { result: unknown }).result).toEqual(ack);
    expect(events.slice(before)).toEqual([{ type: "mcp:tool:deferred", tool: "pay", runId, deferralId: ack.deferralId, expiresAt: ack.expiresAt, principal: { id: "ian", roles: [] } }]);

    const [big, small] = request.calls;
    await agents.approvals.decide({ approvalId: request.approvalId, decisions: { [big!.toolCallId]: { approved: true }, [small!.toolCallId]: { approved: false, reason: "not owed" } } });
    const outcome = await client.callTool({ name: "get_run", arguments: { runId } });
    expect(outcome.structuredContent).toEqual({ runId, status: "completed", text: "Paid 250, not 40." });
    expect(paid.filter((p) => p.runId === runId).map((p) => p.amount)).toEqual([250]);
  });

  it("get_run asked while the run waits on a decision waits until it settles again (progress meanwhile); with the acknowledgment's deferralId it answers a later park at once", async () => {
    const prompt = uid("mcp-get-run");
    h.model.script(prompt, [{ toolCalls: [{ name: "payout", arguments: { amount: 10 } }] }, { toolCalls: [{ name: "payout", arguments: { amount: 20 } }] }, { text: "Paid 10 and 20." }]);
    const first = (((await client.callTool({ name: "pay", arguments: { prompt } })).structuredContent as { result: Record<string, unknown> }).result) as { runId: string; deferralId: string };
    const { runId } = first;
    const requestOf = (approvalId: string) =>
      vi.waitFor(
        () => {
          const found = notified.find((n) => n.approvalId === approvalId);
          if (!found) throw new Error("the approver has not been told yet");
          return found;
        },
        { timeout: 10_000, interval: 20 },
      );
    /** Calls get_run; resolves with "waiting" at its first progress notification, or with its answer if that comes first. */
    const getRun = (args: Record<string, string>) => {
      let waiting!: () => void;
      const progressed = new Promise<"waiting">((resolve) => (waiting = () => resolve("waiting")));
      const answer = client.callTool({ name: "get_run", arguments: args }, undefined, { onprogress: () => waiting(), resetTimeoutOnProgress: true });
      return { first: Promise.race([progressed, answer]), answer };
    };

    // Asked while the run is parked: no answer, only progress, until someone decides.
    const pending = getRun({ runId });
    expect(await pending.first).toBe("waiting");
    const one = await requestOf(first.deferralId);
    await agents.approvals.decide({ approvalId: one.approvalId, decisions: [{ toolCallId: one.calls[0]!.toolCallId, approved: true }] });
    const second = (await pending.answer).structuredContent as { status: string; deferralId: string };
    expect(second).toMatchObject({ runId, status: "deferred" });
    expect(second.deferralId).not.toBe(first.deferralId);

    // Past the first acknowledgment the run already waits on another: answered at once. Past that one, it waits again.
    expect((await client.callTool({ name: "get_run", arguments: { runId, deferralId: first.deferralId } })).structuredContent).toEqual(second);
    const last = getRun({ runId, deferralId: second.deferralId });
    expect(await last.first).toBe("waiting");
    const two = await requestOf(second.deferralId);
    await agents.approvals.decide({ approvalId: two.approvalId, decisions: [{ toolCallId: two.calls[0]!.toolCallId, approved: true }] });
    expect((await last.answer).structuredContent).toEqual({ runId, status: "completed", text: "Paid 10 and 20." });
    expect(paid.filter((p) => p.runId === runId).map((p) => p.amount)).toEqual([10, 20]);
    for (const deferralId of [42, "", "d".repeat(1001)]) {
      const refused = await client.callTool({ name: "get_run", arguments: { runId, deferralId } });
      expect(refused, String(deferralId).slice(0, 10)).toMatchObject({ isError: true, _meta: { "durable-agents/error": { code: "AI1040" } } });
    }
  });
});
