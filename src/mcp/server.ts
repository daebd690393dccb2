/**
 * Agents served as MCP tools, on the official SDK's low-level `Server` (the high-level
 * `McpServer` takes zod shapes only, and we advertise derived JSON Schemas that depend on
 * the negotiated revision). A call starts a run through the AgentClient and answers when the
 * run settles; the client's `authorize` hook decides, this layer adds no authority.
 *
 * The parts: agent-tools.ts (the tools as checked and listed), run-tools.ts (`tools/call`),
 * run-resources.ts (`run://` resources and subscriptions), http-transport.ts (Streamable HTTP),
 * server-context.ts (what they share: deferral acknowledgments, failures, the error report).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type InitializeResult,
} from "@modelcontextprotocol/sdk/types.js";
import { SDK_VERSION } from "../core/version.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import type { Principal } from "../core/json.js";
import { listedTools, prepareTools } from "./agent-tools.js";
import { listedApprovalTools } from "./approval-tools.js";
import { hostCheck } from "./host-check.js";
import { answerHttp } from "./http-transport.js";
import type { McpServerOptions } from "./options.js";
import { serveRunResources } from "./run-resources.js";
import { callTool } from "./run-tools.js";
import { usesEnvelope } from "./schemas.js";
import { serverContext } from "./server-context.js";

export { IDEMPOTENCY_META_KEY } from "./run-tools.js";

/** Agents as MCP tools, over Streamable HTTP (`fetch`) or any SDK transport (`connect`, `serveStdio`). */
export interface AgentMcpServer {
  /**
   * Streamable HTTP, stateless: one fetch-standard handler. A POST carrying a request is
   * answered with a Server-Sent Events stream (progress notifications while a run works,
   * then the JSON-RPC response); one carrying only notifications or responses with 202;
   * other methods with 405. A foreign `Host` or `Origin` is refused first (403, AI1047;
   * see `allowedHosts`). Mount it as is (`serve({ fetch: mcp.fetch })`) or on the front
   * door's Hono app: `app.all("/mcp", (c) => mcp.fetch(c.req.raw))`.
   */
  fetch(request: Request): Promise<Response>;
  /** Serves one connection on any MCP SDK transport (stdio, in-memory…); resolves once connected. */
  connect(transport: Transport): Promise<Server>;
  /** Serves this process's stdin/stdout, for desktop clients. */
  serveStdio(): Promise<Server>;
}

/**
 * Exposes agents as MCP tools. Each tool advertises `outputSchema: oneOf [Output, Deferred]`
 * (inside a `{ result }` envelope on 2025 revisions); a call starts a run and answers when it
 * settles: the answer, the deferral acknowledgment (`isError: false`, never a token or
 * `meta`), or `isError: true` with the error's code. `get_run` and `run://<id>` resources let
 * a caller learn the outcome after an approval.
 */
export function createMcpServer(options: McpServerOptions): AgentMcpServer {
  const context = serverContext(options, prepareTools(options));
  const versions = options.protocolVersions ?? SUPPORTED_PROTOCOL_VERSIONS;
  const unknownVersion = versions.find((v) => !SUPPORTED_PROTOCOL_VERSIONS.includes(v));
  if (versions.length === 0 || unknownVersion !== undefined) {
    throw new InvalidDefinitionError({ subject: "createMcpServer", problem: `protocolVersions must list revisions the MCP SDK supports (${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})` });
  }
  const checkHost = hostCheck(options, "createMcpServer");

  /** `stateful`: one long-lived connection (stdio), which can carry resource-updated notifications. */
  function build(principalOf: (extraAuth: unknown) => Principal | undefined, stateful: boolean): Server {
    const serverInfo = { name: options.name ?? "durable-agents", version: SDK_VERSION };
    const capabilities = { tools: {}, resources: { subscribe: stateful } };
    const server = new Server(serverInfo, { capabilities });
    let negotiated: string | undefined;
    // We answer initialize ourselves: the SDK's own answer picks its latest revision when the
    // client's is unknown (and its hook for that is private). Ours comes from our list, so an
    // operator can pin one, and is remembered for connections without a version header (stdio).
    // We never ask the client for anything, so its capabilities are not kept.
    server.setRequestHandler(InitializeRequestSchema, async (request): Promise<InitializeResult> => {
      const asked = request.params.protocolVersion;
      negotiated = versions.includes(asked) ? asked : versions[0]!;
      return { protocolVersion: negotiated, capabilities, serverInfo };
    });
    const envelope = (headers: Record<string, string | string[] | undefined> | undefined): boolean => {
      const header = headers?.["mcp-protocol-version"];
      return usesEnvelope(negotiated ?? (typeof header === "string" ? header : DEFAULT_NEGOTIATED_PROTOCOL_VERSION));
    };
    const inboxTools = options.approvals === true ? listedApprovalTools() : [];
    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => ({ tools: [...listedTools(context.tools, envelope(extra.requestInfo?.headers)), ...inboxTools] }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => callTool(context, request, extra, principalOf(extra.authInfo), envelope(extra.requestInfo?.headers)));
    serveRunResources(context, server, principalOf, stateful);
    return server;
  }

  const connect = async (transport: Transport) => {
    const server = build(() => options.principal, true);
    await server.connect(transport);
    return server;
  };

  return {
    fetch: (request) => answerHttp(request, options, checkHost, (principalOf) => build(principalOf, false), context.report),
    connect,
    serveStdio: () => connect(new StdioServerTransport()),
  };
}
