import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Command } from "commander";
import { connectClient } from "./connect.js";
import { portNumber } from "./flags.js";
import type { Globals } from "./flags.js";

/** Starts of the dev server on ports picked for `--port 0` / `--ui-port 0` before giving up. */
const PICKED_PORT_ATTEMPTS = 3;

/** Who the dev console's visitors are: anyone on this machine, as on the dev server's own ports. */
const DEVELOPER = { id: "developer" };

/**
 * `durable-agents dev`: the local Temporal dev server the demo uses, kept running, with its
 * UI, and the console over it (runs and threads of `--task-queue`), on loopback only.
 */
export function devCommand(program: Command, globals: () => Globals): void {
  program
    .command("dev")
    .description("Start a local Temporal dev server with the SDK's search attributes registered, and keep it running (Ctrl-C stops it)")
    .option("--port <port>", "gRPC port (0: any free port, printed)", portNumber, 7233)
    .option("--ui-port <port>", "web UI port (0: any free port, printed)", portNumber, 8233)
    .option("--db-filename <file>", "keep state in this SQLite file across restarts")
    .option("--namespace <ns>", "namespace to create", "default")
    .option("--console-port <port>", "the console's port, on 127.0.0.1 (0: any free port)", portNumber, 8234)
    .option("--no-console", "serve no console")
    .action(async (flags: { port: number; uiPort: number; dbFilename?: string; namespace: string; consolePort: number; console: boolean }) => {
      const g = globals();
      const { json, io } = g;
      // Loaded here, not at start: no other command needs the dev server's helpers.
      const [{ startTemporal }, { freeLoopbackPort }] = await Promise.all([import("../testing/dev-server.js"), import("../testing/free-port.js")]);
      const log = (line: string) => io.stderr(`${line}\n`);
      // A port 0 is one we pick: someone else may bind it before the server does (a test
      // suite, another dev server), so a start that fails is tried again on fresh picks.
      const picked = flags.port === 0 || flags.uiPort === 0;
      let server: Awaited<ReturnType<typeof startTemporal>> | undefined;
      let uiPort = flags.uiPort;
      for (let attempt = 1; !server; attempt++) {
        uiPort = flags.uiPort === 0 ? await freeLoopbackPort() : flags.uiPort;
        try {
          server = await startTemporal({
            local: true,
            // Undefined: the server's launcher picks a free one.
            ...(flags.port === 0 ? {} : { port: flags.port }),
            uiPort,
            namespace: flags.namespace,
            ...(flags.dbFilename ? { dbFilename: flags.dbFilename } : {}),
            log,
          });
        } catch (err) {
          if (!picked || attempt >= PICKED_PORT_ATTEMPTS) throw err;
          log(`the dev server did not start on the ports picked (${(err as Error).message}); trying others`);
        }
      }
      const host = server.address.slice(0, server.address.lastIndexOf(":"));
      const ui = `http://${host}:${uiPort}`;
      const consoleAt = flags.console ? await serveConsole(g, server, flags.consolePort) : undefined;
      const ready = { address: server.address, namespace: server.namespace, ui, ...(consoleAt ? { console: consoleAt.url, taskQueue: consoleAt.taskQueue } : {}) };
      io.stdout(
        json
          ? `${JSON.stringify(ready)}\n`
          : [
              `Temporal dev server at ${server.address} (namespace ${server.namespace})`,
              `Web UI: ${ui}`,
              ...(consoleAt ? [`Console: ${consoleAt.url} (runs and threads of task queue "${consoleAt.taskQueue}"; anyone on this machine can use it)`] : []),
              `Connect with TEMPORAL_ADDRESS=${server.address}. Ctrl-C stops it.`,
              "",
            ].join("\n"),
      );
      // Nothing else keeps the process (and so its server) alive; the dev server module stops
      // the server on SIGINT/SIGTERM, and the signal then ends the process.
      setInterval(() => undefined, 1 << 30);
      await new Promise<void>(() => undefined);
    });
}

/**
 * The console over the dev server, for the task queue the connection flags name. Loopback
 * only, and only by a loopback name (`Host`, and `Origin` when a browser sends one): a web
 * page elsewhere can neither rebind its name to it nor post to it. Every visitor is
 * `developer`, with no `authorize` hook: this machine's users can already do anything on the
 * dev server's own ports.
 */
async function serveConsole(g: Globals, server: { address: string; namespace: string }, port: number): Promise<{ url: string; taskQueue: string }> {
  const [{ createAgentHttpHandler }, { hostCheck }, { serve }] = await Promise.all([import("../http/handler.js"), import("../mcp/host-check.js"), import("@hono/node-server")]);
  const { agents } = await connectClient({ ...g, address: server.address, namespace: server.namespace });
  const handler = createAgentHttpHandler({ agents, console: true, authenticate: () => DEVELOPER });
  const allowed = hostCheck({}, "durable-agents dev");
  const fetch = async (request: Request): Promise<Response> => {
    const refused = allowed(request);
    if (refused) return Response.json({ error: { code: refused.code, message: refused.message } }, { status: 403 });
    if (new URL(request.url).pathname === "/") return Response.redirect(new URL("/console", request.url), 302);
    return handler(request);
  };
  const listen = (at: number) =>
    new Promise<Server>((ready, fail) => {
      const s = serve({ fetch, port: at, hostname: "127.0.0.1" }, () => ready(s as Server)) as Server;
      s.once("error", fail);
    });
  // The default port taken (a second dev server, another tool): any free one, printed below.
  const http = await listen(port).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "EADDRINUSE" || port === 0) throw err;
    return listen(0);
  });
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/console`, taskQueue: agents.taskQueue };
}
