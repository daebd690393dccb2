// `durable-agents/mcp`: agents served as deferrable MCP tools, and MCP servers' tools used by agents.
export { createMcpServer, IDEMPOTENCY_META_KEY, type AgentMcpServer } from "./mcp/server.js";
export type { McpAgentTool, McpServerOptions, McpToolDeferredEvent } from "./mcp/options.js";
export { DEFERRED_SCHEMA, TEXT_OUTPUT_SCHEMA, advertisedOutputSchema, usesEnvelope } from "./mcp/schemas.js";
export { mcpTools, closeMcpTools, type McpToolsSource } from "./mcp/tools.js";
