import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Connection } from "@temporalio/client";
import { Hono } from "hono";
import { z as zod } from "zod";
import { AgentClient, defineAgent, type Principal } from "durable-agents";
import { address, listeningUrl, startWorker } from "../docs-support/env.js";
const payouts = defineAgent({ id: "payouts", model: "gpt-4.1-mini", system: "Pay invoices." });
const reporter = defineAgent({ id: "reporter", model: "gpt-4.1-mini", system: "Write reports.", output: zod.object({ title: zod.string(), score: zod.number() }) });
const sessions = { principalOf: async (authorization: string | null): Promise<Principal | undefined> => (authorization?.startsWith("Bearer ") ? { id: authorization.slice(7) } : undefined) };
const metrics = { count: (name: string, label: string) => console.log(`metric ${name} ${label}`) };
const worker = await startWorker([payouts, reporter]);
const agents = new AgentClient({ connection: await Connection.connect({ address }), taskQueue: "agents" });
const app = new Hono();
// ---cut---
import { z } from "zod";
import { serve } from "@hono/node-server";
import { createMcpServer } from "durable-agents/mcp";

const mcp = createMcpServer({
  agents, // an AgentClient
  tools: [
    { agent: payouts, name: "payout", description: "Pays an invoice after a human approves" }, // input { prompt }
    { agent: reporter, name: "report", description: "Writes a report", input: z.object({ topic: z.string() }),
      output: z.object({ title: z.string(), score: z.number() }), prompt: ({ topic }) => `Report on ${topic}` },
  ],
  authenticate: async (request) => sessions.principalOf(request.headers.get("authorization")), // HTTP; `principal` for stdio
  approvalUrl: ({ deferralId }) => `https://ops.example.com/approvals/${deferralId}`, // optional
  on: { "mcp:tool:deferred": (e) => metrics.count("mcp.deferred", e.tool) },
});
const server = serve({ fetch: mcp.fetch, port: Number(process.env.PORT ?? 8788) }); // standalone Streamable HTTP (PORT=0: any free port)
app.all("/mcp", (c) => mcp.fetch(c.req.raw)); // or on the front door's app: buildApp(options) from durable-agents/http
const stdio = await mcp.serveStdio(); // or stdio (any SDK transport: mcp.connect(transport))
// ---end---
// An MCP client, as a desktop app or another agent would connect over HTTP.
const client = new Client({ name: "docs-example", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(`${await listeningUrl(server)}/mcp`), { requestInit: { headers: { authorization: "Bearer sam" } } }));
console.log(`tools: ${(await client.listTools()).tools.map((t) => t.name).join(", ")}`);
const report = await client.callTool({ name: "report", arguments: { topic: "durable agents" } });
console.log(`report: ${JSON.stringify(report.structuredContent)}`);
await client.close();
await stdio.close();
server.close();
await worker.close();
await agents.client.connection.close();
