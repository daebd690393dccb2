import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Command } from "commander";
import type { AgentDefinition } from "../core/define-agent.js";
import type { Principal } from "../core/json.js";
import type { McpAgentTool } from "../mcp/options.js";
import { LOOPBACK_HOSTS } from "../mcp/host-names.js";
import { connectClient, type ConnectionFlags } from "./connect.js";
import { hostName, origin, portNumber, repeated } from "./flags.js";
import { printable } from "../core/printable.js";
import { FlagError } from "./render.js";
import type { Globals } from "./flags.js";

/** `--host`, checked as a host name and kept as written: the server listens on "::1", a Host header says "[::1]". */
const checkedHost = (value: string): string => {
  hostName(value);
  return value;
};
// Listening on every interface names no host a client would use.
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * `durable-agents mcp --agents ./agents.js`: a user's agents as MCP tools, over stdio for
 * desktop clients (stdout carries only the protocol; anything else goes to stderr), or over
 * Streamable HTTP with `--port`.
 */
export function mcpCommand(program: Command, globals: () => Globals & ConnectionFlags): void {
  program
    .command("mcp")
    .description("Serve the agents a module exports as MCP tools (stdio by default; a worker must serve the agents)")
    .requiredOption("--agents <module>", "a module exporting agents (each becomes a tool named by its id), or `tools`: [{ agent, name, description, input?, output? }]")
    .option("--port <port>", "serve Streamable HTTP on this port (path /mcp) instead of stdio", portNumber)
    .option("--host <host>", "the HTTP interface", checkedHost, "127.0.0.1")
    .option("--allowed-host <name>", "with --port: a host name clients may reach the server by, besides loopback and --host (repeat for several)", repeated(hostName))
    .option("--allowed-origin <origin>", "with --port: a browser origin whose requests are served, e.g. https://app.example.com (repeat for several)", repeated(origin))
    .option("--as <principalId>", "who stdio calls act for (the client's authorize hook sees it)")
    .action(async (flags: { agents: string; port?: number; host: string; allowedHost?: string[]; allowedOrigin?: string[]; as?: string }) => {
      const tools = await toolsFrom(flags.agents);
      // The interface it listens on is a name clients use, unless it is every interface.
      const listening = WILDCARDS.has(flags.host) ? [] : [flags.host];
      const allowedHosts = [...listening, ...(flags.allowedHost ?? [])];
      // Loaded here, not at start: no other command needs the MCP server and its SDK.
      const { createMcpServer } = await import("../mcp/server.js");
      const g = globals();
      const { agents, close } = await connectClient(g);
      const principal: Principal | undefined = flags.as ? { id: flags.as } : undefined;
      const mcp = createMcpServer({
        agents,
        tools,
        ...(principal ? { principal } : {}),
        allowedHosts,
        ...(flags.allowedOrigin ? { allowedOrigins: flags.allowedOrigin } : {}),
        onError: (err) => g.io.stderr(`durable-agents mcp: ${printable(String(err))}\n`),
      });
      if (flags.port === undefined) {
        const server = await mcp.serveStdio();
        // The client ends the session by closing stdin.
        await new Promise<void>((done) => {
          const closed = server.onclose;
          server.onclose = () => (closed?.(), done());
        });
        await close();
        return;
      }
      const port = flags.port;
      const { serve } = await import("@hono/node-server");
      const http = await new Promise<Server>((ready) => {
        const s = serve({ fetch: (request) => (new URL(request.url).pathname === "/mcp" ? mcp.fetch(request) : Promise.resolve(new Response("not found", { status: 404 }))), port, hostname: flags.host }, () => ready(s as Server));
      });
      const names = [...LOOPBACK_HOSTS, ...allowedHosts.filter((h) => !(LOOPBACK_HOSTS as readonly string[]).includes(h))];
      g.io.stderr(`MCP over Streamable HTTP at http://${flags.host}:${(http.address() as AddressInfo).port}/mcp (answering Host ${names.join(", ")}; more with --allowed-host)\n`);
      await new Promise<void>(() => undefined);
    });
}

async function toolsFrom(path: string): Promise<McpAgentTool[]> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (err) {
    throw new FlagError(`cannot load the agent module "${path}": ${(err as Error).message}`);
  }
  if (Array.isArray(mod.tools) && mod.tools.length > 0 && mod.tools.every((t) => typeof (t as { name?: unknown })?.name === "string" && (t as { agent?: unknown }).agent)) {
    return mod.tools as McpAgentTool[];
  }
  const found = Object.values(mod).filter((v): v is AgentDefinition => (v as { kind?: unknown } | null)?.kind === "agent");
  if (found.length === 0) throw new FlagError(`"${path}" exports no agents (define them with defineAgent and export them)`);
  return found.map((agent) => ({ agent, name: agent.id, description: `Runs the agent "${agent.id}" with your prompt. It may defer for a human's approval: then get_run waits for its outcome.` }));
}
