import type { Duration } from "@temporalio/common";
import type { AgentClient } from "../client/agent-client.js";
import type { AgentDefinition } from "../core/define-agent.js";
import type { Principal } from "../core/json.js";
import type { StandardSchema } from "../core/schema.js";

/** One agent exposed as an MCP tool. */
export interface McpAgentTool {
  /** The agent a call runs (its definition, or its id). */
  agent: AgentDefinition | string;
  /** The tool's name for MCP clients: letters, digits, `_`, `-` and `.`, at most 64 characters. Not `get_run` (nor, with `approvals`, the inbox's tool names). */
  name: string;
  /** What the tool does, for the calling model. */
  description: string;
  /**
   * Schema of the arguments (an object schema: zod, or any Standard JSON Schema library).
   * Default `{ prompt: string }`. Arguments that fail it are refused (AI1040) and start nothing.
   */
  input?: StandardSchema;
  /**
   * Schema of the answer (an object schema). When given, the agent's final text must be JSON
   * that passes it: it becomes `structuredContent` (AI1070 when it does not pass). Default: the
   * agent's own `output` when it is an object schema. Without either, a completed call
   * answers `{ status: "completed", text }`.
   */
  output?: StandardSchema;
  /** Turns the validated arguments into the run's prompt. Default: `prompt` when it is the only argument, else the arguments as JSON. */
  // `any`: the arguments are whatever `input` parses to; a generic here would not survive the `tools` array.
  prompt?: (input: any) => string;
}

/** Emitted once per deferral this server reported to an MCP caller. */
export interface McpToolDeferredEvent {
  type: "mcp:tool:deferred";
  tool: string;
  runId: string;
  deferralId: string;
  expiresAt: string;
  principal?: Principal;
}

export interface McpServerOptions {
  /** The client runs start through: its `authorize` hook decides every call (`run.start`, then `run.result`). */
  agents: AgentClient;
  /** The agents served as tools. */
  tools: McpAgentTool[];
  /**
   * Who an HTTP request acts for (a session cookie, a bearer token…); undefined is anonymous.
   * It authenticates only: the client's `authorize` hook decides. Not used over stdio.
   */
  authenticate?: (request: Request) => Principal | undefined | Promise<Principal | undefined>;
  /** Who calls over stdio act for (the desktop user running the server). */
  principal?: Principal;
  /**
   * The link a deferred call's acknowledgment carries as `approvalUrl`: where an approver
   * goes (e.g. your app's page for the deferral). The token-carrying approval link of the
   * HTTP front door goes to approvers through the tool that defers (or a gated tool's
   * `approval.notify`), never to the MCP caller.
   */
  approvalUrl?: (deferral: { runId: string; deferralId: string }) => string | undefined;
  /** Listeners: `mcp:tool:deferred` fires once per deferral this server process reports. */
  on?: { "mcp:tool:deferred"?: (event: McpToolDeferredEvent) => void };
  /**
   * The protocol revisions this server agrees to, preferred first. Default: every revision
   * the pinned MCP SDK supports. A client asking for another gets the first.
   */
  protocolVersions?: string[];
  /** The largest tool arguments accepted, as UTF-8 bytes of their JSON. Default 256 KiB; larger ones are refused (AI1040) before anything starts. */
  maxInputBytes?: number;
  /**
   * While a call waits for its run, how often a client that sent a `progressToken` gets a
   * progress notification (the SDK's client can reset its request timeout on each). Default `"10s"`.
   */
  progressInterval?: Duration;
  /** Unexpected failures (not SDK errors) are reported here; the caller reads only `internal`. Default: console.error. */
  onError?: (err: unknown) => void;
  /**
   * Host names (no scheme, no port) HTTP requests may carry in `Host`, besides the loopback
   * names `localhost`, `127.0.0.1` and `[::1]`, which are always served (on any port). Name
   * the host clients reach the server by when it is not on loopback: `["mcp.example.com"]`.
   * Any other `Host` is refused with AI1047 (403) before anything runs: a foreign page
   * that rebinds its name to this machine (DNS rebinding) sends its own name. Not used over stdio.
   */
  allowedHosts?: string[];
  /**
   * Browser origins (`https://app.example.com`) whose requests are served, besides origins
   * on an allowed host (`http://localhost:5173` by default). Requests without an `Origin`
   * (not browsers) are served; any other `Origin` is refused with AI1047 (403) before
   * anything runs. Not used over stdio.
   */
  allowedOrigins?: string[];
  /**
   * Serve the approvals inbox as tools too: `list_approvals`, `get_approval`,
   * `decide_approval` (any subset of a request's calls: approve, edit, reject, respond, grant)
   * and `approval_history`, each through `agents.approvals` as the caller's principal, so
   * `authorize` decides as it does for the front door's `/approvals` routes. No token is ever
   * shown. Default `false`: whoever reaches this server could then try to decide; turn it on
   * where `authorize` knows your approvers. Agent tools may not use these names then.
   */
  approvals?: boolean;
  /** The server's name in the MCP handshake. Default `durable-agents`. */
  name?: string;
}
