/**
 * `durable-agents/mcp`: agents served as deferrable MCP tools (`createMcpServer`, over
 * Streamable HTTP or stdio), and MCP servers' tools used by agents (`mcpTools`).
 *
 * @example
 * ```ts
 * import { createMcpServer } from "durable-agents/mcp";
 * import { agents, payouts } from "./services.js";
 *
 * const mcp = createMcpServer({
 *   agents,
 *   tools: [{ agent: payouts, name: "payout", description: "Pays an invoice after a human approves" }],
 *   principal: { id: "ops" },
 * });
 * await mcp.serveStdio();
 * ```
 *
 * @packageDocumentation
 * @module durable-agents/mcp
 */
export { createMcpServer, IDEMPOTENCY_META_KEY, type AgentMcpServer } from "./mcp/server.js";
export type { McpAgentTool, McpServerOptions, McpToolDeferredEvent } from "./mcp/options.js";
export { DEFERRED_SCHEMA, TEXT_OUTPUT_SCHEMA, advertisedOutputSchema, usesEnvelope, type JsonSchema } from "./mcp/schemas.js";
export { mcpTools, closeMcpTools, type McpToolsSource } from "./mcp/tools.js";
