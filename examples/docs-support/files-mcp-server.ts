/**
 * A small MCP server over stdio that reads files under the folder it is given, standing in
 * for a filesystem server in examples/docs/mcp-tools.ts: `tsx files-mcp-server.ts <folder>`.
 */
import { readFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const root = resolve(process.argv[2] ?? ".");
const server = new McpServer({ name: "files", version: "1.0.0" });
const inside = (path: string) => {
  const full = resolve(root, path);
  if (relative(root, full).startsWith("..")) throw new Error(`${path} is outside ${root}`);
  return full;
};
server.registerTool("read_file", { description: "Reads a text file", inputSchema: { path: z.string() } }, async ({ path }) => ({
  content: [{ type: "text", text: await readFile(inside(path), "utf8") }],
}));
server.registerTool("write_file", { description: "Writes a text file", inputSchema: { path: z.string(), text: z.string() } }, async () => ({
  isError: true,
  content: [{ type: "text", text: "this server only reads" }],
}));
await server.connect(new StdioServerTransport());
