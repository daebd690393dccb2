/**
 * Agents served as MCP tools, read through the MCP SDK's real `Client` over Streamable HTTP
 * (standalone, and mounted on the HTTP front door's Hono app), against the real Temporal dev
 * server and the scripted model.
 */
import { readFileSync } from "node:fs";
import type { Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AgentClient, defineAgent } from "../src/index.js";
import { buildApp } from "../src/http.js";
import { createMcpServer, DEFERRED_SCHEMA, IDEMPOTENCY_META_KEY, TEXT_OUTPUT_SCHEMA, type McpServerOptions, type McpToolDeferredEvent } from "../src/mcp.js";
import { linkFor, payoutAgent, sendPayout } from "./fixtures/approvals.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { authenticate, requiresRoles } from "./http-support.js";

const packageVersion = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

const reporter = defineAgent({ id: "reporter", model: "gpt-4.1-mini", system: "Answer with JSON.", tools: [], maxTurns: 2 });
const looper = defineAgent({ id: "looper", model: "gpt-4.1-mini", system: "Pay.", tools: [sendPayout], maxTurns: 1 });
const Report = z.object({ title: z.string(), score: z.number() });
/** An agent with its own typed output: a tool over it needs no `output` of its own. */
const grader = defineAgent({ id: "grader", model: "gpt-4.1-mini", system: "Grade.", output: z.object({ grade: z.enum(["A", "B", "C"]) }), maxTurns: 2 });
/** A typed agent whose output is no object: its tool answers as text. */
const counter = defineAgent({ id: "counter", model: "gpt-4.1-mini", system: "Count.", output: z.number(), maxTurns: 2 });

let h: Harness;
let agents: AgentClient;
const servers: NodeServer[] = [];
const clients: Client[] = [];
const events: McpToolDeferredEvent[] = [];

function mcpOptions(extra: Partial<McpServerOptions> = {}): McpServerOptions {
  return {
    agents,
    authenticate,
    tools: [
      { agent: payoutAgent, name: "payout", description: "Pays out money after a human approves" },
      { agent: reporter, name: "report", description: "Writes a report", input: z.object({ topic: z.string() }), output: Report, prompt: (i) => (i as { topic: string }).topic },
      { agent: looper, name: "loop", description: "Runs out of turns" },
      { agent: grader, name: "grade", description: "Grades an essay" },
      { agent: counter, name: "count", description: "Counts" },
    ],
    approvalUrl: ({ deferralId }) => `https://approvals.test/deferrals/${deferralId}`,
    on: { "mcp:tool:deferred": (event) => events.push(event) },
    progressInterval: 25,
    ...extra,
  };
}

async function listen(fetch: (request: Request) => Promise<Response>): Promise<string> {
  const server = await new Promise<NodeServer>((resolve) => {
    const s = serve({ fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as NodeServer));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function connect(url: string, user = "ian"): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { "x-user": user } } });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const codeOf = (result: { _meta?: Record<string, unknown> }) => (result._meta?.["durable-agents/error"] as { code?: string } | undefined)?.code;

let latest: { client: Client; transport: StreamableHTTPClientTransport };
let older: { client: Client; transport: StreamableHTTPClientTransport };
let frontDoorUrl: string;
let guardedUrl: string;

beforeAll(async () => {
  h = await startHarness();
  const served = await h.worker([payoutAgent, reporter, looper, grader, counter], { deferral: { secret: SECRET }, client: { deferral: { secret: SECRET }, authorize: requiresRoles } });
  agents = served.agents;
  // The same agents behind a hook that lets only fiona start runs: the MCP layer adds no authority of its own.
  const guarded = new AgentClient({ connection: h.connection, namespace: h.namespace, taskQueue: served.taskQueue, authorize: (r) => r.operation !== "run.start" || r.principal?.id === "fiona" });
  guardedUrl = `${await listen(createMcpServer({ ...mcpOptions(), agents: guarded }).fetch)}/mcp`;
  const standalone = createMcpServer(mcpOptions());
  latest = await connect(`${await listen(standalone.fetch)}/mcp`);
  // A server pinned to the 2024 revision: the SDK's client accepts it, so both forms are read by the same real client.
  const pinned = createMcpServer(mcpOptions({ protocolVersions: ["2024-11-05"] }));
  older = await connect(`${await listen(pinned.fetch)}/mcp`);
  // Mounted on the front door's own Hono app, next to /runs and /resume.
  const app = buildApp({ agents, authenticate, basePath: "/agents" });
  const mounted = createMcpServer(mcpOptions());
  app.all("/mcp", (c) => mounted.fetch(c.req.raw));
  frontDoorUrl = `${await listen(async (request) => app.fetch(request))}/agents`;
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  await h?.close();
});

describe("createMcpServer over Streamable HTTP", () => {
  it("advertises oneOf [Output, Deferred] in the { result } envelope on 2025 revisions, bare on 2024-11-05", async () => {
    expect(latest.transport.protocolVersion).toMatch(/^2025-/);
    expect(older.transport.protocolVersion).toBe("2024-11-05");
    // The release that answers, as package.json names it, so an operator can tell which one it is.
    expect(latest.client.getServerVersion()).toEqual({ name: "durable-agents", version: packageVersion });
    const enveloped = (await latest.client.listTools()).tools;
    const report = enveloped.find((t) => t.name === "report")!;
    expect(report.outputSchema).toMatchObject({ type: "object", required: ["result"], properties: { result: { oneOf: [{ type: "object", required: ["title", "score"] }, DEFERRED_SCHEMA] } } });
    expect(enveloped.find((t) => t.name === "payout")!.outputSchema).toMatchObject({ properties: { result: { oneOf: [TEXT_OUTPUT_SCHEMA, DEFERRED_SCHEMA] } } });
    expect(report.inputSchema).toMatchObject({ type: "object", properties: { topic: { type: "string" } } });
    expect(enveloped.map((t) => t.name)).toContain("get_run");

    const bare = (await older.client.listTools()).tools.find((t) => t.name === "report")!;
    expect(bare.outputSchema).toMatchObject({ type: "object", oneOf: [{ required: ["title", "score"] }, DEFERRED_SCHEMA] });
    expect(bare.outputSchema).not.toHaveProperty("properties.result");
  });

  it("answers a completed call with structured content checked against output, in both forms", async () => {
    const topic = uid("report");
    h.model.script(topic, [{ text: JSON.stringify({ title: "Q3", score: 7 }) }]);
    const result = await latest.client.callTool({ name: "report", arguments: { topic } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ result: { title: "Q3", score: 7 } });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ title: "Q3", score: 7 }) }]);

    const topic2 = uid("report");
    h.model.script(topic2, [{ text: JSON.stringify({ title: "Q4", score: 9 }) }]);
    const bare = await older.client.callTool({ name: "report", arguments: { topic: topic2 } });
    expect(bare.structuredContent).toEqual({ title: "Q4", score: 9 });
  });

  it("takes an agent's own typed output as the tool's when the tool declares none (object schemas only)", async () => {
    const { tools } = await older.client.listTools();
    // Advertised as the Output branch beside the acknowledgment, like a declared output.
    expect(JSON.stringify(tools.find((t) => t.name === "grade")!.outputSchema)).toContain(JSON.stringify({ grade: { type: "string", enum: ["A", "B", "C"] } }));
    expect(JSON.stringify(tools.find((t) => t.name === "count")!.outputSchema)).not.toContain("grade");
    const prompt = uid("essay");
    h.model.script(prompt, [{ text: JSON.stringify({ grade: "B" }) }]);
    expect((await older.client.callTool({ name: "grade", arguments: { prompt } })).structuredContent).toEqual({ grade: "B" });
    const counted = uid("count");
    h.model.script(counted, [{ text: "42" }]);
    expect((await older.client.callTool({ name: "count", arguments: { prompt: counted } })).structuredContent).toEqual({ status: "completed", text: "42" });
  });

  it("answers a deferral with the acknowledgment (no token, no meta), reports it once, and get_run returns the outcome after a resume over HTTP", async () => {
    const prompt = uid("payout");
    h.model.script(prompt, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 250 } }] }, { toolCalls: [{ name: "sendPayout", arguments: { amount: 250 } }] }, { text: "Paid 250." }]);
    const before = events.length;
    const key = uid("key");
    const call = () => latest.client.callTool({ name: "payout", arguments: { prompt }, _meta: { [IDEMPOTENCY_META_KEY]: key } });
    const result = await call(); // the SDK's client has already checked it against the advertised schema
    expect(result.isError).toBe(false);
    const ack = (result.structuredContent as { result: Record<string, unknown> }).result;
    expect(Object.keys(ack).sort()).toEqual(["approvalUrl", "deferralId", "expiresAt", "runId", "schema", "status"]);
    expect(ack).toMatchObject({ status: "deferred", approvalUrl: `https://approvals.test/deferrals/${ack.deferralId}` });
    const link = linkFor(ack.runId as string);
    expect(link.deferralId).toBe(ack.deferralId);
    expect(JSON.stringify(result)).not.toContain(link.token);
    expect(JSON.stringify(result)).not.toContain("payouts:approve"); // meta

    // The same key attaches to the same parked run: the same acknowledgment, no second event.
    const again = await call();
    expect((again.structuredContent as { result: unknown }).result).toEqual(ack);
    expect(events.slice(before)).toEqual([{ type: "mcp:tool:deferred", tool: "payout", runId: ack.runId, deferralId: ack.deferralId, expiresAt: ack.expiresAt, principal: { id: "ian", roles: [] } }]);

    // Approved over the front door's HTTP API, then read over MCP mounted on the same app.
    const resumed = await fetch(`${frontDoorUrl}/resume`, { method: "POST", headers: { "content-type": "application/json", "x-user": "fiona" }, body: JSON.stringify({ token: link.token, payload: { approved: true } }) });
    expect(resumed.status).toBe(200);
    const mounted = await connect(`${frontDoorUrl}/mcp`);
    const outcome = await mounted.client.callTool({ name: "get_run", arguments: { runId: ack.runId } });
    expect(outcome.structuredContent).toEqual({ runId: ack.runId, status: "completed", text: "Paid 250." });

    const resource = await mounted.client.readResource({ uri: `run://${ack.runId as string}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ runId: ack.runId, status: "completed" });
  });

  it("sends progress while a run works to a caller that asked for it, over the streamed answer", async () => {
    const topic = uid("slow");
    // The answer waits until the caller has had progress.
    const hold = h.model.hold();
    h.model.script(topic, [{ hold, text: JSON.stringify({ title: "slow", score: 1 }) }]);
    const progress: number[] = [];
    const calling = latest.client.callTool({ name: "report", arguments: { topic } }, undefined, { onprogress: (p) => progress.push(p.progress), resetTimeoutOnProgress: true });
    await vi.waitFor(() => expect(progress.length).toBeGreaterThan(0), { timeout: 30_000, interval: 20 });
    hold.release();
    const result = await calling;
    expect(result.structuredContent).toEqual({ result: { title: "slow", score: 1 } });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress).toEqual(progress.map((_, i) => i + 1));
  });

  it("answers the acknowledgment bare on the 2024 revision", async () => {
    const prompt = uid("payout");
    h.model.script(prompt, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 5 } }] }]);
    const result = await older.client.callTool({ name: "payout", arguments: { prompt } });
    expect(result.structuredContent).toMatchObject({ status: "deferred", deferralId: expect.any(String), runId: expect.any(String) });
    expect(JSON.stringify(result)).not.toContain(linkFor((result.structuredContent as { runId: string }).runId).token);
  });

  it("fails a call with isError and the code: the run's own error, and an answer that breaks the output schema", async () => {
    const prompt = uid("loop");
    h.model.script(prompt, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }] }, { text: "never" }]);
    const failed = await latest.client.callTool({ name: "loop", arguments: { prompt } });
    expect(failed.isError).toBe(true);
    expect(codeOf(failed)).toBe("AI1004");
    expect(JSON.stringify(failed.content)).toContain("AI1004");

    const topic = uid("report");
    h.model.script(topic, [{ text: "not json at all" }]);
    const invalid = await latest.client.callTool({ name: "report", arguments: { topic } });
    expect(invalid.isError).toBe(true);
    expect(codeOf(invalid)).toBe("AI1070");
  });

  it("refuses an output schema that would also accept the acknowledgment (oneOf would match twice)", () => {
    const loose = () => createMcpServer({ agents, tools: [{ agent: reporter, name: "loose", description: "d", output: z.looseObject({ title: z.string().optional() }) }] });
    expect(loose).toThrow(expect.objectContaining({ code: "AI1001" }));
  });

  it("refuses hostile input with a typed error and starts nothing", async () => {
    const seen = h.model.requests.length;
    const malformed = await latest.client.callTool({ name: "report", arguments: { topic: 42 } });
    expect(malformed.isError).toBe(true);
    expect(codeOf(malformed)).toBe("AI1040");

    const oversized = await latest.client.callTool({ name: "payout", arguments: { prompt: "x".repeat(300 * 1024) } });
    expect(oversized.isError).toBe(true);
    expect(codeOf(oversized)).toBe("AI1040");

    const unknown = await latest.client.callTool({ name: "__proto__", arguments: {} }).catch((err: unknown) => err);
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).data).toEqual({ code: "AI1040" });

    const refused = await (await connect(guardedUrl, "bob")).client.callTool({ name: "report", arguments: { topic: uid("refused") } });
    expect(refused.isError).toBe(true);
    expect(codeOf(refused)).toBe("AI1013");

    const noRun = await latest.client.callTool({ name: "get_run", arguments: { runId: uid("missing") } });
    expect(noRun.isError).toBe(true);
    expect(codeOf(noRun)).toBe("AI1010");
    expect(h.model.requests.length).toBe(seen);
  });
});
