/**
 * Agents served as MCP tools, on the official SDK's low-level `Server` (the high-level
 * `McpServer` takes zod shapes only, and we advertise derived JSON Schemas that depend on
 * the negotiated revision). A call starts a run through the AgentClient and answers when the
 * run settles; the client's `authorize` hook decides, this layer adds no authority.
 */
import { createHash } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  ErrorCode as RpcError,
  InitializeRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type InitializeResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AgentResult } from "../core/run-state.js";
import type { DeferredAck } from "../core/deferral-record.js";
import { DurableAgentsError } from "../core/errors/base.js";
import { InvalidDefinitionError } from "../core/errors/invalid-definition.js";
import { McpOutputInvalidError } from "../core/errors/mcp-output-invalid.js";
import { RequestMalformedError } from "../core/errors/request-malformed.js";
import type { Principal } from "../core/json.js";
import { isSchema, type StandardSchema } from "../core/schema.js";
import { hostCheck } from "./host-check.js";
import type { McpAgentTool, McpServerOptions } from "./options.js";
import { advertisedOutputSchema, jsonSchemaFor, structured, TEXT_OUTPUT_SCHEMA, usesEnvelope, type JsonSchema } from "./schemas.js";

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

const GET_RUN = "get_run";
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const DEFAULT_INPUT = z.object({ prompt: z.string().describe("What to ask the agent") });
/** Where a caller may pass a key that makes a call idempotent across retries. */
export const IDEMPOTENCY_META_KEY = "durable-agents/idempotencyKey";
const ERROR_META_KEY = "durable-agents/error";

interface PreparedTool {
  options: McpAgentTool;
  input: StandardSchema;
  inputJson: JsonSchema;
  outputJson: JsonSchema;
}

const GET_RUN_TOOL = (): Tool => ({
  name: GET_RUN,
  description:
    "Waits until a run started by another tool settles again (after an approval, say) and returns its outcome: the answer, a new deferral acknowledgment, or an error with its code.",
  inputSchema: { type: "object", properties: { runId: { type: "string", description: "The runId of a deferral acknowledgment" } }, required: ["runId"] },
  outputSchema: {
    type: "object",
    properties: {
      runId: { type: "string" },
      status: { enum: ["completed", "deferred"] },
      text: { type: "string" },
      deferralId: { type: "string" },
      expiresAt: { type: "string" },
      approvalUrl: { type: "string" },
      schema: { type: "object" },
    },
    required: ["runId", "status"],
  },
});

/**
 * Exposes agents as MCP tools. Each tool advertises `outputSchema: oneOf [Output, Deferred]`
 * (inside a `{ result }` envelope on 2025 revisions); a call starts a run and answers when it
 * settles: the answer, the deferral acknowledgment (`isError: false`, never a token or
 * `meta`), or `isError: true` with the error's code. `get_run` and `run://<id>` resources let
 * a caller learn the outcome after an approval.
 */
export function createMcpServer(options: McpServerOptions): AgentMcpServer {
  const tools = prepareTools(options);
  const maxInputBytes = options.maxInputBytes ?? 256 * 1024;
  const progressIntervalMs = options.progressIntervalMs ?? 10_000;
  const versions = options.protocolVersions ?? SUPPORTED_PROTOCOL_VERSIONS;
  const unknownVersion = versions.find((v) => !SUPPORTED_PROTOCOL_VERSIONS.includes(v));
  if (versions.length === 0 || unknownVersion !== undefined) {
    throw new InvalidDefinitionError({ subject: "createMcpServer", problem: `protocolVersions must list revisions the MCP SDK supports (${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})` });
  }
  const checkHost = hostCheck(options, "createMcpServer");
  const report = options.onError ?? ((err: unknown) => console.error("durable-agents/mcp:", err));
  // "Once": a retried call that attaches to the same parked run reports the same deferral;
  // it is announced the first time only (bounded, oldest forgotten first).
  const announced = new Set<string>();
  const announce = (tool: string, runId: string, ack: DeferredAck, principal: Principal | undefined) => {
    if (announced.has(ack.deferralId)) return;
    announced.add(ack.deferralId);
    if (announced.size > 10_000) announced.delete(announced.values().next().value!);
    try {
      options.on?.["mcp:tool:deferred"]?.({ type: "mcp:tool:deferred", tool, runId, deferralId: ack.deferralId, expiresAt: ack.expiresAt, ...(principal ? { principal } : {}) });
    } catch (err) {
      report(err);
    }
  };

  const ackOf = (runId: string, ack: DeferredAck) => {
    const url = options.approvalUrl?.({ runId, deferralId: ack.deferralId });
    // Built field by field: whatever else a settled state carries never reaches the caller.
    return {
      status: "deferred" as const,
      runId,
      deferralId: ack.deferralId,
      expiresAt: ack.expiresAt,
      ...(url ? { approvalUrl: url } : {}),
      ...(ack.schema ? { schema: ack.schema } : {}),
    };
  };

  const failure = (err: unknown): CallToolResult => {
    if (!DurableAgentsError.isDurableAgentsError(err)) {
      report(err);
      return { isError: true, content: [{ type: "text", text: "internal: the call failed unexpectedly" }], _meta: { [ERROR_META_KEY]: { code: "internal" } } };
    }
    return { isError: true, content: [{ type: "text", text: err.message }], _meta: { [ERROR_META_KEY]: { code: err.code, message: err.message } } };
  };

  /** `stateful`: one long-lived connection (stdio), which can carry resource-updated notifications. */
  function build(principalOf: (extraAuth: unknown) => Principal | undefined, stateful: boolean): Server {
    const server = new Server({ name: options.name ?? "durable-agents", version: "0.1.0" }, { capabilities: { tools: {}, resources: { subscribe: stateful } } });
    let negotiated: string | undefined;
    // The SDK answers initialize itself; we pick the revision from our list first, so an
    // operator can pin one, and remember it for connections without a version header (stdio).
    const sdkInitialize = (server as unknown as { _oninitialize(r: unknown): Promise<InitializeResult> })._oninitialize.bind(server);
    server.setRequestHandler(InitializeRequestSchema, async (request) => {
      const asked = request.params.protocolVersion;
      const chosen = versions.includes(asked) ? asked : versions[0]!;
      const result = await sdkInitialize({ ...request, params: { ...request.params, protocolVersion: chosen } });
      negotiated = result.protocolVersion;
      return result;
    });
    const revision = (headers: Record<string, string | string[] | undefined> | undefined): string => {
      const header = headers?.["mcp-protocol-version"];
      return negotiated ?? (typeof header === "string" ? header : DEFAULT_NEGOTIATED_PROTOCOL_VERSION);
    };

    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
      const envelope = usesEnvelope(revision(extra.requestInfo?.headers));
      return {
        tools: [
          ...tools.map(
            (t): Tool => ({
              name: t.options.name,
              description: t.options.description,
              inputSchema: t.inputJson as Tool["inputSchema"],
              outputSchema: advertisedOutputSchema(t.outputJson, envelope) as Tool["outputSchema"],
            }),
          ),
          GET_RUN_TOOL(),
        ],
      };
    });

    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const envelope = usesEnvelope(revision(extra.requestInfo?.headers));
      const principal = principalOf(extra.authInfo);
      const { name, arguments: args } = request.params;
      if (name === GET_RUN) return getRun(args, principal);
      const tool = tools.find((t) => t.options.name === name);
      if (!tool) {
        const err = new RequestMalformedError({ where: "params.name", problem: `no tool named ${JSON.stringify(String(name).slice(0, 80))}` });
        throw new McpError(RpcError.InvalidParams, err.message, { code: err.code });
      }
      const bytes = Buffer.byteLength(JSON.stringify(args ?? {}), "utf8");
      if (bytes > maxInputBytes) {
        return failure(new RequestMalformedError({ where: "params.arguments", problem: `${bytes} bytes, over the limit of ${maxInputBytes}; nothing was started` }));
      }
      const checked = await tool.input["~standard"].validate(args ?? {});
      if (checked.issues) {
        const problem = checked.issues.map((i) => `${(i.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".") || "(root)"}: ${i.message}`).join("; ");
        return failure(new RequestMalformedError({ where: "params.arguments", problem: `${problem}; nothing was started` }));
      }
      const input = checked.value;
      const runId = runIdFor(name, principal, request.params._meta?.[IDEMPOTENCY_META_KEY], extra.sessionId, extra.requestId);
      let settled: AgentResult | DeferredAck;
      let startedId: string;
      // A client that sent a progress token hears from us while the run works, so its request
      // timeout (the SDK's resets on progress) need not cover the whole run.
      const progressToken = extra._meta?.progressToken;
      let beats = 0;
      const heartbeat =
        progressToken === undefined
          ? undefined
          : setInterval(() => {
              beats += 1;
              void extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: beats, message: "the run is working" } }).catch(() => undefined);
            }, progressIntervalMs);
      try {
        const prompt = tool.options.prompt ? tool.options.prompt(input) : defaultPrompt(input);
        const handle = await options.agents.start(tool.options.agent, { prompt, ...(runId ? { runId } : {}), ...(principal ? { principal } : {}) });
        startedId = handle.runId;
        settled = await handle.settled();
      } catch (err) {
        return failure(err);
      } finally {
        clearInterval(heartbeat);
      }
      if (settled.status === "deferred") {
        const ack = ackOf(startedId, settled);
        announce(name, startedId, settled, principal);
        return { content: [{ type: "text", text: JSON.stringify(ack) }], structuredContent: structured(ack, envelope), isError: false };
      }
      if (!tool.options.output) {
        const value = { status: "completed", text: settled.text };
        return { content: [{ type: "text", text: settled.text }], structuredContent: structured(value, envelope) };
      }
      const answer = await parseOutput(tool, startedId, settled.text);
      if (answer instanceof McpOutputInvalidError) return failure(answer);
      return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: structured(answer, envelope) };
    });

    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: [{ uriTemplate: "run://{runId}", name: "run", description: "A run's live state: status, turns, usage, message count", mimeType: "application/json" }],
    }));
    // Runs are not enumerable here (listing them is the operator's visibility, not a caller's).
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
    const readState = async (uri: string, principal: Principal | undefined) => {
      const runId = uri.startsWith("run://") ? decodeURIComponent(uri.slice("run://".length)) : "";
      if (runId === "" || runId.length > 1000) throw new McpError(RpcError.InvalidParams, new RequestMalformedError({ where: "params.uri", problem: "expected run://<runId>" }).message, { code: "AI1040" });
      try {
        const { recentMessages: _omit, ...state } = await options.agents.state(runId, principal ? { principal } : {});
        return { runId, state };
      } catch (err) {
        if (!DurableAgentsError.isDurableAgentsError(err)) report(err);
        const code = DurableAgentsError.isDurableAgentsError(err) ? err.code : "internal";
        throw new McpError(RpcError.InvalidParams, DurableAgentsError.isDurableAgentsError(err) ? err.message : "internal", { code });
      }
    };
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const { runId, state } = await readState(request.params.uri, principalOf(extra.authInfo));
      return { contents: [{ uri: request.params.uri, mimeType: "application/json", text: JSON.stringify({ runId, ...state }) }] };
    });
    if (stateful) watchRuns(server, readState, principalOf);
    return server;
  }

  /**
   * `resources/subscribe` on `run://<id>`: one notification when the run finishes (completed
   * or failed), so a client that was told "deferred" learns when to read the outcome. The
   * wait is the run's result (a long poll on Temporal), not a poll loop; a subscription is
   * authorized (and the run must exist) when it is made.
   */
  function watchRuns(server: Server, readState: (uri: string, principal: Principal | undefined) => Promise<{ runId: string; state: { status: string } }>, principalOf: (extraAuth: unknown) => Principal | undefined) {
    const watches = new Map<string, AbortController>();
    server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
      const uri = request.params.uri;
      const principal = principalOf(extra.authInfo);
      const { runId, state } = await readState(uri, principal);
      if (watches.has(uri)) return {};
      const stop = new AbortController();
      watches.set(uri, stop);
      const finished =
        state.status === "completed" || state.status === "failed"
          ? Promise.resolve()
          : options.agents.handle(runId, principal ? { principal } : {}).result().then(() => undefined, () => undefined);
      const aborted = new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve(), { once: true }));
      void Promise.race([finished, aborted]).then(async () => {
        if (stop.signal.aborted) return;
        watches.delete(uri);
        await server.sendResourceUpdated({ uri }).catch(report);
      });
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      watches.get(request.params.uri)?.abort();
      watches.delete(request.params.uri);
      return {};
    });
    const closed = server.onclose;
    server.onclose = () => {
      for (const w of watches.values()) w.abort();
      watches.clear();
      closed?.();
    };
  }

  async function getRun(args: Record<string, unknown> | undefined, principal: Principal | undefined): Promise<CallToolResult> {
    const runId = args?.runId;
    if (typeof runId !== "string" || runId === "" || runId.length > 1000) {
      return failure(new RequestMalformedError({ where: "params.arguments.runId", problem: "a run id (a non-empty string) is required" }));
    }
    try {
      const settled = await options.agents.handle(runId, principal ? { principal } : {}).settled();
      const value = settled.status === "deferred" ? ackOf(runId, settled) : { runId, status: "completed" as const, text: settled.text };
      return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
    } catch (err) {
      return failure(err);
    }
  }

  async function parseOutput(tool: PreparedTool, runId: string, text: string): Promise<Record<string, unknown> | McpOutputInvalidError> {
    const invalid = (problem: string) => new McpOutputInvalidError({ tool: tool.options.name, runId, problem });
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return invalid("the answer is not JSON");
    }
    const checked = await tool.options.output!["~standard"].validate(value);
    if (checked.issues) return invalid(checked.issues.map((i) => i.message).join("; "));
    const out = checked.value;
    if (typeof out !== "object" || out === null || Array.isArray(out)) return invalid("the answer is not an object");
    return out as Record<string, unknown>;
  }

  const connect = async (transport: Transport) => {
    const server = build(() => options.principal, true);
    await server.connect(transport);
    return server;
  };

  return {
    async fetch(request) {
      // Before anything reads the request: a refused one authenticates, starts and reads nothing.
      const refused = checkHost(request);
      if (refused) return rpcRefusal(refused, 403);
      // Stateless: nothing can reach a client between its requests, so there is no standalone
      // event stream to GET (405 is the protocol's way to say so) and no session to DELETE.
      if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
      const principal = options.authenticate ? await options.authenticate(request) : undefined;
      // A server and transport per request, so nothing lives between requests and any replica
      // can answer; the revision travels in the mcp-protocol-version header. Answers stream
      // as Server-Sent Events so progress notifications reach the caller while a run works.
      const server = build((auth) => (auth as { extra?: { principal?: Principal } } | undefined)?.extra?.principal, false);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      const close = () => void server.close().catch(report);
      let response: Response;
      try {
        response = await transport.handleRequest(request, { authInfo: { token: "", clientId: principal?.id ?? "anonymous", scopes: [], extra: principal ? { principal } : {} } });
      } catch (err) {
        close();
        throw err;
      }
      if (!response.body) {
        close();
        return response;
      }
      // The server lives as long as its answer streams: closed once the body ends or the caller leaves.
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (!done) return controller.enqueue(value);
          controller.close();
          close();
        },
        async cancel(reason) {
          await reader.cancel(reason).catch(() => undefined);
          close();
        },
      });
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    },
    connect,
    serveStdio: () => connect(new StdioServerTransport()),
  };
}

/** An HTTP refusal with a JSON-RPC error body (no request id is known yet), its code in `data.code` as elsewhere. */
function rpcRefusal(err: DurableAgentsError, status: number): Response {
  const body = { jsonrpc: "2.0", error: { code: -32000, message: err.message, data: { code: err.code } }, id: null };
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function prepareTools(options: McpServerOptions): PreparedTool[] {
  if (!options?.agents || !Array.isArray(options.tools) || options.tools.length === 0) {
    throw new InvalidDefinitionError({ subject: "createMcpServer", problem: "pass agents (an AgentClient) and at least one tool" });
  }
  const seen = new Set<string>([GET_RUN]);
  return options.tools.map((t) => {
    const subject = `MCP tool "${String(t?.name)}"`;
    if (typeof t?.name !== "string" || !TOOL_NAME.test(t.name)) throw new InvalidDefinitionError({ subject, problem: "name must match /^[A-Za-z0-9_.-]{1,64}$/" });
    if (seen.has(t.name)) throw new InvalidDefinitionError({ subject, problem: t.name === GET_RUN ? "get_run is the server's own tool" : "two tools have this name" });
    seen.add(t.name);
    if (typeof t.description !== "string" || t.description.trim() === "") throw new InvalidDefinitionError({ subject, problem: "description must be a non-empty string" });
    if (t.input !== undefined && !isSchema(t.input)) throw new InvalidDefinitionError({ subject, problem: "input must be a schema" });
    if (t.output !== undefined && !isSchema(t.output)) throw new InvalidDefinitionError({ subject, problem: "output must be a schema" });
    if (t.output && acceptsAck(t.output)) {
      // oneOf needs exactly one branch to match: an Output that also accepts the acknowledgment
      // would make every deferral answer invalid to a validating client.
      throw new InvalidDefinitionError({ subject, problem: "output accepts a deferral acknowledgment ({ status: \"deferred\", … }); make it strict (z.object) or require a field of its own" });
    }
    const input = t.input ?? (DEFAULT_INPUT as unknown as StandardSchema);
    return {
      options: t,
      input,
      inputJson: jsonSchemaFor(input, "input", subject),
      outputJson: t.output ? jsonSchemaFor(t.output, "output", subject) : TEXT_OUTPUT_SCHEMA,
    };
  });
}

const SAMPLE_ACK = { status: "deferred", runId: "run", deferralId: "dfr", expiresAt: "2030-01-01T00:00:00.000Z" };

/** Whether `output` passes a deferral acknowledgment (checked when its library answers synchronously, as zod does). */
function acceptsAck(output: StandardSchema): boolean {
  const result = output["~standard"].validate(SAMPLE_ACK);
  return !(result instanceof Promise) && !result.issues;
}

function defaultPrompt(input: unknown): string {
  const record = input as Record<string, unknown>;
  const keys = Object.keys(record);
  return keys.length === 1 && typeof record.prompt === "string" ? record.prompt : JSON.stringify(input);
}

/**
 * The run id of a call, so a retried call attaches to its run instead of starting another:
 * from the caller's idempotency key (`_meta`), or from the session and JSON-RPC request id
 * where the transport has a session. Scoped to the principal and the tool, so two callers'
 * keys never meet. Undefined (a fresh run) when the protocol gives nothing stable.
 */
function runIdFor(tool: string, principal: Principal | undefined, key: unknown, sessionId: string | undefined, requestId: string | number): string | undefined {
  const stable = typeof key === "string" && key !== "" && key.length <= 1000 ? ["key", key] : sessionId ? ["session", sessionId, String(requestId)] : undefined;
  if (!stable) return undefined;
  const digest = createHash("sha256").update(JSON.stringify([principal?.id ?? null, tool, ...stable])).digest("hex").slice(0, 32);
  return `mcp-${digest}`;
}
