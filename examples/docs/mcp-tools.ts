import { serve } from "@hono/node-server";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { closeMcpTools } from "durable-agents/mcp";
import { clientWithWorker, listeningUrl } from "../docs-support/env.js";
// A stand-in for GitHub's MCP server (e.g. https://api.githubcopilot.com/mcp/) over Streamable HTTP, which wants a bearer token.
const token = "tracker-token";
const issues = serve({
  port: Number(process.env.PORT ?? 8789),
  fetch: async (request) => {
    if (request.headers.get("authorization") !== `Bearer ${token}`) return new Response("unauthorized", { status: 401 });
    const server = new McpServer({ name: "issues", version: "1.0.0" });
    server.registerTool("list_issues", { description: "Lists open issues", inputSchema: { label: z.string().optional() } }, async () => ({
      content: [{ type: "text", text: JSON.stringify([{ number: 48, title: "A 1.0 a team can adopt" }]) }],
    }));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(request);
  },
});
const githubMcpUrl = `${await listeningUrl(issues)}/mcp`;
// ---cut---
import { defineAgent } from "durable-agents";
import { mcpTools } from "durable-agents/mcp";

// reading issues needs nobody; anything else the server can do waits for a maintainer's approval
const github = await mcpTools({
  url: githubMcpUrl,
  headers: { authorization: `Bearer ${token}` },
  prefix: "gh_",
  needsApproval: (_input, { toolName }) => (toolName === "gh_list_issues" ? "allow" : "ask"),
  approval: { meta: { requires: "maintainer" } },
});
// any stdio server: here this repository's small file reader (e.g. npx -y @modelcontextprotocol/server-filesystem ./data)
const files = await mcpTools({ command: "npx", args: ["tsx", "examples/docs-support/files-mcp-server.ts", "."], include: ["read_file"] });
export const triage = defineAgent({ id: "triage", model: "gpt-4.1-mini", system: "Triage new issues.", tools: [...github, ...files] });
// ---end---
console.log(`tools: ${triage.tools.map((t) => t.name).join(", ")}`);
const { agents, closeAll } = await clientWithWorker({ deferral: { secret: process.env.DEFERRAL_SECRET! } });
const result = await agents.run(triage, { prompt: "Triage the new issues" });
console.log(result.status === "completed" ? `answer: ${result.text}` : result);
await closeAll();
await closeMcpTools();
issues.close();
