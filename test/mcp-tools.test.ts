/**
 * Agents using another MCP server's tools through `mcpTools`: the remote is a real MCP SDK
 * server over Streamable HTTP (stateful, so a restart loses its sessions), the run is real.
 */
import { randomUUID } from "node:crypto";
import type { Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, type AgentClient, type AgentDefinition } from "../src/index.js";
import { closeMcpTools, createMcpServer, mcpTools } from "../src/mcp.js";
import { askApproval, linkFor, payoutAgent } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
let calc: AgentDefinition;
let proxy: AgentDefinition;
let multiplier: AgentDefinition;
let gatedCalc: AgentDefinition;
const remoteCalls: string[] = [];
const servers: NodeServer[] = [];

/** A calculator MCP server with sessions, on `port` (0: any). */
async function startCalculator(port = 0): Promise<NodeServer> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const fetch = async (request: Request): Promise<Response> => {
    const sid = request.headers.get("mcp-session-id");
    if (sid) {
      const known = sessions.get(sid);
      return known ? known.handleRequest(request) : new Response("unknown session", { status: 404 });
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: true, onsessioninitialized: (id) => void sessions.set(id, transport) });
    const server = new McpServer({ name: "calculator", version: "1.0.0" });
    server.registerTool("add", { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
      remoteCalls.push(`add ${a} ${b}`);
      return { content: [{ type: "text", text: String(a + b) }] };
    });
    server.registerTool("close.ledger", { description: "Always fails", inputSchema: { reason: z.string() } }, async () => ({ isError: true, content: [{ type: "text", text: "the ledger is closed" }] }));
    await server.connect(transport);
    return transport.handleRequest(request);
  };
  const node = await new Promise<NodeServer>((resolve) => {
    const s = serve({ fetch, port, hostname: "127.0.0.1" }, () => resolve(s as NodeServer));
  });
  servers.push(node);
  return node;
}

const stop = (s: NodeServer) =>
  new Promise<void>((resolve) => {
    s.closeAllConnections();
    s.close(() => resolve());
  });
const portOf = (s: NodeServer) => (s.address() as AddressInfo).port;

let calculator: NodeServer;

beforeAll(async () => {
  h = await startHarness();
  calculator = await startCalculator();
  const remote = await mcpTools({ url: `http://127.0.0.1:${portOf(calculator)}/mcp` });
  calc = defineAgent({ id: "calc", model: "gpt-4.1-mini", system: "Compute with tools.", tools: [...remote, askApproval], maxTurns: 8 });

  // A durable-agents MCP server whose payout tool defers: proxying it must not defer this run.
  const worker = await h.worker([payoutAgent], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } });
  const payouts = createMcpServer({ agents: worker.agents, tools: [{ agent: payoutAgent, name: "payout", description: "Pays after approval" }] });
  const payoutServer = await new Promise<NodeServer>((resolve) => {
    const s = serve({ fetch: payouts.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as NodeServer));
  });
  servers.push(payoutServer);
  const proxied = await mcpTools({ url: `http://127.0.0.1:${portOf(payoutServer)}/mcp`, prefix: "remote_" });
  proxy = defineAgent({ id: "proxy", model: "gpt-4.1-mini", system: "Delegate.", tools: proxied.filter((t) => t.name === "remote_payout"), maxTurns: 4 });

  // A server spawned over stdio (TypeScript through tsx).
  const stdio = await mcpTools({ command: process.execPath, args: ["--import", "tsx", fileURLToPath(new URL("./fixtures/mcp-calculator.ts", import.meta.url))], cwd: fileURLToPath(new URL("..", import.meta.url)) });
  multiplier = defineAgent({ id: "multiplier", model: "gpt-4.1-mini", system: "Multiply with tools.", tools: stdio, maxTurns: 3 });

  // The same server gated: sums over 100 wait for finance, the ledger is never closed.
  const gated = await mcpTools({
    url: `http://127.0.0.1:${portOf(calculator)}/mcp`,
    prefix: "gated_",
    needsApproval: (input, ctx) => (ctx.toolName === "gated_close_ledger" ? { deny: "the ledger stays open" } : Number(input.a) > 100 ? "ask" : "allow"),
    approval: { meta: { requires: "finance" } },
  });
  gatedCalc = defineAgent({ id: "gated-calc", model: "gpt-4.1-mini", system: "Compute with tools.", tools: gated, maxTurns: 6 });

  ({ agents } = await h.worker([calc, proxy, multiplier, gatedCalc], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET } } }));
});

afterAll(async () => {
  await closeMcpTools();
  for (const s of servers) if (s.listening) await stop(s);
  await h?.close();
});

const lastContent = (messages: Array<{ content?: unknown }>) => String(messages.at(-1)?.content);

describe("mcpTools", () => {
  it("lists the remote tools with their JSON Schemas and names a model accepts", () => {
    const names = calc.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["add", "close_ledger", "askApproval"]));
  });

  it("calls the remote tools from a run, sends isError to the model as a tool error, and reconnects after the server restarts mid-run", async () => {
    const runId = uid("calc");
    h.model.script(runId, [
      { toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] },
      { check: (req) => expect(lastContent(req.messages)).toBe("5"), toolCalls: [{ name: "askApproval", arguments: { amount: 5 } }] },
      { check: (req) => expect(lastContent(req.messages)).toContain("approved"), toolCalls: [{ name: "add", arguments: { a: 4, b: 5 } }] },
      { check: (req) => expect(lastContent(req.messages)).toBe("9"), toolCalls: [{ name: "close_ledger", arguments: { reason: "done" } }] },
      { check: (req) => expect(lastContent(req.messages)).toContain("the ledger is closed"), toolCalls: [{ name: "add", arguments: { a: "x", b: 1 } }] },
      { check: (req) => expect(lastContent(req.messages)).toMatch(/^Error/), text: "5 then 9" },
    ]);
    const ack = await agents.run(calc, { prompt: runId, runId });
    expect(ack.status).toBe("deferred");

    // The server restarts on the same port while the run waits: its sessions are gone.
    const port = portOf(calculator);
    await stop(calculator);
    calculator = await startCalculator(port);

    const resumed = await agents.resume({ token: linkFor(runId).token, payload: { approved: true } });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "5 then 9" } });
    expect(remoteCalls).toEqual(["add 2 3", "add 4 5"]); // the malformed call never left the worker
    h.model.assertNoFailures();
  });

  it("calls a server spawned over stdio, with its structured content as the result", async () => {
    const runId = uid("multiply");
    h.model.script(runId, [
      { toolCalls: [{ name: "multiply", arguments: { a: 6, b: 7 } }] },
      { check: (req) => expect(JSON.parse(lastContent(req.messages))).toMatchObject({ product: 42 }), text: "42" },
    ]);
    expect(await agents.run(multiplier, { prompt: runId, runId })).toMatchObject({ status: "completed", text: "42" });
    h.model.assertNoFailures();
  });

  it("refuses a proxied tool's deferral with AI1006 and writes no deferral", async () => {
    const runId = uid("proxy");
    const inner = uid("inner");
    h.model.script(inner, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 7 } }] }]);
    h.model.script(runId, [{ toolCalls: [{ name: "remote_payout", arguments: { prompt: inner } }] }]);
    const err = await agents.run(proxy, { prompt: runId, runId }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "AI1006" });
    const state = await agents.state({ runId });
    expect(state.deferralId).toBeUndefined();
    expect(state.status).not.toBe("deferred");
  });

  it("gates a server's tools: a call the policy asks about reaches the server only once a person approves it, a denied one never", async () => {
    const runId = uid("gated");
    h.model.script(runId, [
      { toolCalls: [{ name: "gated_add", arguments: { a: 2, b: 3 } }] },
      { check: (req) => expect(lastContent(req.messages)).toBe("5"), toolCalls: [{ name: "gated_add", arguments: { a: 500, b: 1 } }, { name: "gated_close_ledger", arguments: { reason: "done" } }] },
      { check: (req) => expect(lastContent(req.messages)).toBe("501"), text: "5 then 501" },
    ]);
    const before = remoteCalls.length;
    const ack = await agents.run(gatedCalc, { prompt: runId, runId });
    expect(ack.status).toBe("deferred");
    expect(remoteCalls.slice(before)).toEqual(["add 2 3"]); // the small sum ran at once; the large one waits

    const approvalId = (ack as { deferralId: string }).deferralId;
    const request = await agents.approvals.get({ approvalId });
    expect(request.calls.map((c) => c.toolName)).toEqual(["gated_add"]); // the denied call is no one's to decide
    expect(request.meta).toMatchObject({ requires: "finance" });
    const resumed = await agents.approvals.decide({ approvalId, decisions: [{ toolCallId: request.calls[0]!.toolCallId, approved: true }] });
    expect(resumed.outcome).toMatchObject({ status: "completed", result: { text: "5 then 501" } });
    expect(remoteCalls.slice(before)).toEqual(["add 2 3", "add 500 1"]);
    const messages = (await agents.listMessages({ runId, limit: 100 })).messages;
    expect(JSON.stringify(messages)).toContain("the ledger stays open");
    h.model.assertNoFailures();
  });

  it("refuses a gate of the wrong shape where the tools are defined (AI1001)", async () => {
    await expect(mcpTools({ url: `http://127.0.0.1:${portOf(calculator)}/mcp`, needsApproval: "yes" as never })).rejects.toMatchObject({ code: "AI1001" });
  });
});
