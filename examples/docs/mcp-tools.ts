declare const token: string;
// ---cut---
import { defineAgent } from "durable-agents";
import { mcpTools } from "durable-agents/mcp";

const github = await mcpTools({ url: "https://mcp.example.com/mcp", headers: { authorization: `Bearer ${token}` }, prefix: "gh_" });
const files = await mcpTools({ command: "npx", args: ["-y", "some-mcp-server", "./data"], include: ["read_file"] });
export const triage = defineAgent({ id: "triage", model: "gpt-4.1-mini", system: "Triage new issues.", tools: [...github, ...files] });
