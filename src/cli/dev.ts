import type { Command } from "commander";
import { portNumber } from "./flags.js";
import type { Globals } from "./flags.js";

/** `durable-agents dev`: the local Temporal dev server the demo uses, kept running, with its UI. */
export function devCommand(program: Command, globals: () => Globals): void {
  program
    .command("dev")
    .description("Start a local Temporal dev server with the SDK's search attributes registered, and keep it running (Ctrl-C stops it)")
    .option("--port <port>", "gRPC port", portNumber, 7233)
    .option("--ui-port <port>", "web UI port", portNumber, 8233)
    .option("--db-filename <file>", "keep state in this SQLite file across restarts")
    .option("--namespace <ns>", "namespace to create", "default")
    .action(async (flags: { port: number; uiPort: number; dbFilename?: string; namespace: string }) => {
      const { json, io } = globals();
      const uiPort = flags.uiPort;
      // Loaded here, not at start: no other command needs the dev server's helpers.
      const { startTemporal } = await import("../testing/dev-server.js");
      const server = await startTemporal({
        local: true,
        port: flags.port,
        uiPort,
        namespace: flags.namespace,
        ...(flags.dbFilename ? { dbFilename: flags.dbFilename } : {}),
        log: (line) => io.stderr(`${line}\n`),
      });
      const host = server.address.slice(0, server.address.lastIndexOf(":"));
      const ui = `http://${host}:${uiPort}`;
      const ready = { address: server.address, namespace: server.namespace, ui };
      io.stdout(
        json
          ? `${JSON.stringify(ready)}\n`
          : [`Temporal dev server at ${server.address} (namespace ${server.namespace})`, `Web UI: ${ui}`, `Connect with TEMPORAL_ADDRESS=${server.address}. Ctrl-C stops it.`, ""].join("\n"),
      );
      // Nothing else keeps the process (and so its server) alive; the dev server module stops
      // the server on SIGINT/SIGTERM, and the signal then ends the process.
      setInterval(() => undefined, 1 << 30);
      await new Promise<void>(() => undefined);
    });
}
