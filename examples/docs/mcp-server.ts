import { Connection } from "@temporalio/client";
import { Hono } from "hono";
import { AgentClient, type AgentDefinition, type Principal } from "durable-agents";
declare const payouts: AgentDefinition;
declare const reporter: AgentDefinition;
declare const sessions: { principalOf(authorization: string | null): Promise<Principal | undefined> };
declare const metrics: { count(name: string, label: string): void };
const agents = new AgentClient({ connection: await Connection.connect(), taskQueue: "agents" });
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
serve({ fetch: mcp.fetch, port: 8788 }); // standalone Streamable HTTP
app.all("/mcp", (c) => mcp.fetch(c.req.raw)); // or on the front door's app: buildApp(options) from durable-agents/http
await mcp.serveStdio(); // or stdio (any SDK transport: mcp.connect(transport))
