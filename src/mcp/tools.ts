/**
 * A remote MCP server's tools as agent tools. Each call runs where every tool call runs, in
 * the worker's tool activity, through a connection pooled per worker process (per server),
 * rebuilt once when a call finds it broken (a restarted server, an expired session).
 */
import { Validator } from "@cfworker/json-schema";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode as RpcErrorCode, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { defineTool, type ApprovalContext, type ApprovalOptions, type ApprovalPolicyAnswer, type ToolContext, type ToolDefinition } from "../core/define-tool.js";
import { DeferOutsideRunError, InvalidDefinitionError } from "../core/errors/setup.js";
import type { StandardSchema } from "../core/schema.js";
import { SDK_VERSION } from "../core/version.js";
import { IDEMPOTENCY_META_KEY } from "./server.js";

/** Where the MCP server is: a Streamable HTTP endpoint, or a command speaking stdio. */
export type McpToolsSource = (
  | {
      /** The server's Streamable HTTP endpoint. */
      url: string;
      /** Sent with every request (an Authorization header, say). */
      headers?: Record<string, string>;
    }
  | {
      /** The command that starts the server; it speaks MCP on its stdin/stdout. */
      command: string;
      args?: string[];
      /** Its environment (the SDK passes a safe default set when absent). */
      env?: Record<string, string>;
      cwd?: string;
    }
) & {
  /** Put before every tool name (`github_` …), so two servers' tools cannot collide. */
  prefix?: string;
  /** Only these tools (by their name on the server). Default: all. */
  include?: string[];
  /**
   * Gates the server's tools as `needsApproval` gates a tool of `defineTool`: `true` asks a
   * person before every call runs on the server; a policy decides per call from its
   * arguments and `ApprovalContext` (`ctx.toolName` is the tool's name here, prefix
   * included), answering `"allow"`, `"ask"` or `{ deny: reason }`. Default: no call is gated.
   * Needs the worker's `deferral: { secret }`, as every gated tool does.
   */
  needsApproval?: boolean | ((input: Record<string, unknown>, ctx: ApprovalContext) => ApprovalPolicyAnswer | Promise<ApprovalPolicyAnswer>);
  /** How a gated call is asked for (`ttl`, `meta` such as `requires`, `notify`, `resultSchema`), as `defineTool`'s `approval`. */
  approval?: ApprovalOptions<Record<string, unknown>>;
};

type Connection = { client: Client; closed: boolean };
const pool = new Map<string, Promise<Connection>>();
/** Which pool entry a connection came from, so dropping it is synchronous (the next call must not get it back). */
const entryOf = new WeakMap<Connection, Promise<Connection>>();

const keyOf = (source: McpToolsSource) =>
  JSON.stringify("url" in source ? ["url", source.url, source.headers ?? {}] : ["command", source.command, source.args ?? [], source.env ?? {}, source.cwd ?? ""]);

function connection(source: McpToolsSource): Promise<Connection> {
  const key = keyOf(source);
  let pending = pool.get(key);
  if (!pending) {
    const entry: Promise<Connection> = open(source).then(
      (conn) => (entryOf.set(conn, entry), conn),
      (err: unknown) => {
        if (pool.get(key) === entry) pool.delete(key);
        throw err;
      },
    );
    pending = entry;
    pool.set(key, pending);
  }
  return pending;
}

async function open(source: McpToolsSource): Promise<Connection> {
  const client = new Client({ name: "durable-agents", version: SDK_VERSION });
  const transport =
    "url" in source
      ? new StreamableHTTPClientTransport(new URL(source.url), source.headers ? { requestInit: { headers: source.headers } } : undefined)
      : new StdioClientTransport({ command: source.command, args: source.args ?? [], ...(source.env ? { env: source.env } : {}), ...(source.cwd ? { cwd: source.cwd } : {}), stderr: "inherit" });
  const conn: Connection = { client, closed: false };
  client.onclose = () => {
    conn.closed = true;
  };
  await client.connect(transport);
  return conn;
}

function evict(source: McpToolsSource, conn: Connection): void {
  const key = keyOf(source);
  if (pool.get(key) === entryOf.get(conn)) pool.delete(key);
  conn.closed = true;
  void conn.client.close().catch(() => undefined);
}

/**
 * Calls a tool on a pooled connection. A connection that fails is dropped, so the next call
 * reconnects. The call itself is sent again at once only when it certainly never ran: the
 * connection was already closed, the server no longer knows the session (a restart), or the
 * request never reached it. After a timeout or a connection lost mid-call the remote may
 * have acted, so that failure goes to the model (and the tool's `retry` policy) instead.
 */
async function callRemote(source: McpToolsSource, name: string, args: unknown, ctx: ToolContext): Promise<CallToolResult> {
  const call = async (conn: Connection) =>
    (await conn.client.callTool({ name, arguments: args as Record<string, unknown>, _meta: { [IDEMPOTENCY_META_KEY]: ctx.idempotencyKey } }, undefined, { signal: ctx.signal })) as CallToolResult;
  let conn = await connection(source);
  if (conn.closed) {
    evict(source, conn);
    conn = await connection(source);
  }
  try {
    return await call(conn);
  } catch (err) {
    if (err instanceof McpError && !isConnectionLoss(err)) throw err; // the server's own answer: the connection is fine
    evict(source, conn);
    if (ctx.signal.aborted || !neverSent(err)) throw err;
    return call(await connection(source));
  }
}

const isConnectionLoss = (err: McpError) => err.code === RpcErrorCode.ConnectionClosed || err.code === RpcErrorCode.RequestTimeout;

/** Failures that prove the request was not processed by the server. */
function neverSent(err: unknown): boolean {
  if (err instanceof StreamableHTTPError) return err.code === 404; // the session is gone: the server refused it unread
  if (!(err instanceof Error) || err instanceof McpError) return false;
  if (err.message === "Not connected") return true;
  const cause = (err as { cause?: { code?: unknown } }).cause;
  return cause?.code === "ECONNREFUSED";
}

/**
 * The tool context a proxied call exposes: everything but deferral. A proxied MCP tool runs on
 * another server; nothing here could resume it, so `ctx.defer()` is refused (AI1006) before
 * anything is written.
 */
function proxiedContext(ctx: ToolContext, tool: string): ToolContext {
  return Object.assign(Object.create(ctx) as ToolContext, {
    defer: () => {
      throw new DeferOutsideRunError({ where: `the MCP-proxied tool "${tool}" (an MCP server's tool cannot defer this run)` });
    },
  });
}

/** The remote tool's JSON Schema as a Standard schema: it checks arguments and describes them to the model as is. */
function jsonSchemaInput(schema: Tool["inputSchema"]): StandardSchema {
  let validator: Validator | undefined;
  try {
    validator = new Validator(schema as never, "2020-12", false);
  } catch {
    validator = undefined; // a schema we cannot apply: the remote server still checks its arguments
  }
  return {
    "~standard": {
      version: 1,
      vendor: "mcp",
      validate(value: unknown) {
        if (typeof value !== "object" || value === null || Array.isArray(value)) return { issues: [{ message: "arguments must be an object" }] };
        const result = validator?.validate(value);
        if (result && !result.valid) return { issues: result.errors.slice(0, 5).map((e) => ({ message: `${e.instanceLocation}: ${e.error}` })) };
        return { value };
      },
      jsonSchema: { input: () => schema as Record<string, unknown> },
    },
  };
}

const textOf = (result: CallToolResult) =>
  result.content
    .map((c) => (c.type === "text" ? c.text : `[${c.type}]`))
    .join("\n");

/** A deferral acknowledgment of a durable-agents MCP server, bare or in its `{ result }` envelope. */
function isDeferredAck(structured: unknown): boolean {
  const value = structured as { status?: unknown; result?: { status?: unknown } } | undefined;
  return value?.status === "deferred" || value?.result?.status === "deferred";
}

/**
 * Lists an MCP server's tools and returns them as agent tools: each call runs in the worker's
 * tool activity with the tool's own JSON Schema as its input; a result with `isError` reaches
 * the model as a tool error. Such a tool cannot defer the run: a remote deferral (a
 * durable-agents server's acknowledgment) is refused with AI1006 at `ctx.defer()`. With
 * `needsApproval`, a call waits for a person's decision before it reaches the server.
 * Await it where agents are defined; the worker must define them the same way.
 */
export async function mcpTools(source: McpToolsSource): Promise<ToolDefinition[]> {
  const valid = source && (("url" in source && typeof source.url === "string") || ("command" in source && typeof source.command === "string"));
  if (!valid) throw new InvalidDefinitionError({ subject: "mcpTools", problem: "pass { url } or { command, args }" });
  const conn = await connection(source);
  const listed: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await conn.client.listTools(cursor ? { cursor } : {});
    listed.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return listed
    .filter((t) => !source.include || source.include.includes(t.name))
    .map((remote) =>
      defineTool({
        // Model APIs accept fewer characters in a name than MCP does.
        name: `${source.prefix ?? ""}${remote.name}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64),
        description: remote.description?.trim() || `The MCP tool ${remote.name}`,
        input: jsonSchemaInput(remote.inputSchema) as never,
        ...(source.needsApproval !== undefined ? { needsApproval: source.needsApproval as never } : {}),
        ...(source.approval !== undefined ? { approval: source.approval as never } : {}),
        async handler(args: unknown, ctx: ToolContext) {
          const result = await callRemote(source, remote.name, args, ctx);
          if (result.isError) throw new Error(textOf(result) || `the MCP tool ${remote.name} failed`);
          if (isDeferredAck(result.structuredContent)) {
            // The remote parked a run of its own; this run cannot wait on it.
            return proxiedContext(ctx, remote.name).defer();
          }
          return result.structuredContent ?? textOf(result);
        },
      }),
    );
}

/** Closes every pooled MCP connection of this process (a worker shutting down). */
export async function closeMcpTools(): Promise<void> {
  const open = [...pool.values()];
  pool.clear();
  await Promise.allSettled(open.map(async (p) => (await p).client.close()));
}
