/**
 * One way for the demo, the tests and the benchmarks to get a Temporal server.
 *
 * Resolution order (first that works wins):
 *  1. `TEMPORAL_ADDRESS` is set: use that server as-is (we do not own it).
 *  2. `TEMPORAL_TARGET=postgres`: the real Temporal server on a fresh local PostgreSQL
 *     (temporal-postgres.ts), the shape users deploy; its failures are errors, no
 *     fallback to a dev server.
 *  3. A `temporal` CLI binary is found, or built with Go (temporal-binary.ts): run its
 *     dev server through @temporalio/testing's `TestWorkflowEnvironment.createLocal`.
 *  4. `createLocal` downloads a dev server (needs internet).
 * Otherwise a {@link TemporalUnavailableError} explains the four options.
 */
import { constants as fsConstants } from "node:fs";
import { access, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestWorkflowEnvironment } from "@temporalio/testing";
import { findTemporalBinary, installTemporalBinary, TEMPORAL_CLI_MODULE } from "./temporal-binary.js";
import * as searchAttributeKeys from "../core/search-attributes.js";
import { track, untrack } from "./stop-on-signal.js";

export interface DevServerOptions {
  /**
   * SQLite file to persist state in. Without it the server keeps its state in a scratch file
   * (in `/dev/shm` where there is one) that `stop()` deletes, rather than in SQLite's memory
   * mode: a request cancelled mid-statement makes the driver drop its connection, and an
   * in-memory database goes with its last connection.
   */
  dbFilename?: string;
  /** gRPC port; a free one is picked when omitted. */
  port?: number;
  /** Namespace to create and use. Default "default". */
  namespace?: string;
  /**
   * Start a local server even when `TEMPORAL_ADDRESS` is set: for callers that must own
   * the server (to restart it on its db file).
   */
  local?: boolean;
  /** Progress lines (install, start). Default: stderr. */
  log?: (line: string) => void;
  /** Serve Temporal's web UI on this port (HTTP, on the same host as the server). Off when omitted. */
  uiPort?: number;
  /**
   * Serve the server's Prometheus metrics on this port (`/metrics`), among them the `action`
   * counter Temporal Cloud bills by. Off when omitted.
   */
  metricsPort?: number;
  /**
   * Dynamic config values beyond the defaults here, e.g.
   * `{ "system.enableEagerWorkflowStart": true }` for eager workflow start.
   */
  dynamicConfig?: Record<string, string | number | boolean>;
}

/** Values of `TEMPORAL_TARGET`: the CLI dev server (default), or Temporal on PostgreSQL. */
export const TEMPORAL_TARGETS = ["dev", "postgres"] as const;

export interface TemporalServerHandle {
  address: string;
  namespace: string;
  /** true when we started it */
  owned: boolean;
  /** Stops a server we started; a no-op for an external one and when already stopped. */
  stop(): Promise<void>;
  /** stop and start again on the same port and db file (only when owned, needs dbFilename) */
  restart(): Promise<void>;
}

export class TemporalUnavailableError extends Error {
  readonly code = "TEMPORAL_UNAVAILABLE";

  /** @param attempts what was tried and how it failed, appended to the message */
  constructor(readonly attempts: string[] = []) {
    super(
      [
        "No Temporal server is available. Any one of these fixes it:",
        "  1. set TEMPORAL_ADDRESS (and optionally TEMPORAL_NAMESPACE) to a running server;",
        "  2. put the `temporal` CLI on PATH;",
        `  3. install Go so we can \`go install ${TEMPORAL_CLI_MODULE}\`;`,
        "  4. allow internet access so @temporalio/testing can download its dev server.",
        ...(attempts.length > 0 ? ["Tried:", ...attempts.map((a) => `  - ${a}`)] : []),
      ].join("\n"),
    );
    this.name = "TemporalUnavailableError";
  }
}

/**
 * The dev server runs one history shard whose task-queue readers poll at most 20 times a
 * second, so every task waits ~40 ms before a worker sees it. Lifting the cap makes the
 * local server behave like a real cluster's latency, for tests and benchmarks alike.
 */
const DEV_DYNAMIC_CONFIG: Record<string, number> = {
  "history.transferProcessorMaxPollRPS": 10_000,
  "history.timerProcessorMaxPollRPS": 10_000,
  "history.visibilityProcessorMaxPollRPS": 10_000,
};

/** Where a server's scratch database goes: memory-backed `/dev/shm` when this machine has it. */
async function scratchRoot(): Promise<string> {
  try {
    await access("/dev/shm", fsConstants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
}

const defaultLog = (line: string): void => {
  process.stderr.write(`[temporal] ${line}\n`);
};

/** A dev server from `executable`, or from the SDK's download when it is undefined. */
async function startLocal(
  executable: string | undefined,
  options: DevServerOptions,
  namespace: string,
  log: (line: string) => void,
): Promise<TemporalServerHandle> {
  // Imported lazily: it loads Temporal's native runtime, which an external server never needs.
  const { TestWorkflowEnvironment } = await import("@temporalio/testing");
  const scratch = options.dbFilename ? undefined : await mkdtemp(join(await scratchRoot(), "durable-agents-temporal-"));
  const dbFilename = options.dbFilename ?? join(scratch!, "temporal.db");
  const launch = async (port: number | undefined): Promise<TestWorkflowEnvironment> => {
    const startedAt = Date.now();
    const started = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: executable ? { type: "existing-path", path: executable } : undefined,
        namespace,
        port,
        dbFilename,
        searchAttributes: Object.values(searchAttributeKeys),
        ...(options.uiPort !== undefined ? { ui: true, uiPort: options.uiPort } : {}),
        log: { format: "pretty", level: "error" },
        extraArgs: [
          ...Object.entries({ ...DEV_DYNAMIC_CONFIG, ...options.dynamicConfig }).flatMap(([key, value]) => ["--dynamic-config-value", `${key}=${JSON.stringify(value)}`]),
          ...(options.metricsPort !== undefined ? ["--metrics-port", String(options.metricsPort)] : []),
          // A scratch database need not survive a machine crash: spare it the journal file and the syncs.
          ...(scratch ? ["--sqlite-pragma", "journal_mode=memory", "--sqlite-pragma", "synchronous=off"] : []),
          // The server's banner would land on our stdout, which benches keep for their result.
          "--output",
          "none",
        ],
      },
    });
    log(`temporal dev server ready at ${started.address} in ${Date.now() - startedAt}ms`);
    return started;
  };

  let env: TestWorkflowEnvironment | undefined;
  try {
    env = await launch(options.port);
  } catch (err) {
    if (scratch) await rm(scratch, { recursive: true, force: true });
    throw err;
  }
  const { address } = env;
  const stop = async (): Promise<void> => {
    const stopping = env;
    env = undefined;
    untrack(stop);
    await stopping?.teardown();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  };
  track(stop);
  return {
    address,
    namespace,
    owned: true,
    stop,
    async restart() {
      if (!options.dbFilename) {
        throw new Error("restart() needs dbFilename: without it the server would come back empty");
      }
      await stop();
      env = await launch(Number(address.slice(address.lastIndexOf(":") + 1)));
      track(stop);
    },
  };
}

/**
 * A Temporal server with the SDK's search attributes registered (see the module comment for
 * where it comes from). A server started here is stopped by `stop()`, or when this process
 * gets SIGINT or SIGTERM. It loads Temporal's `Runtime`: call `Runtime.install()`, if at all,
 * before this.
 */
export async function startTemporal(options: DevServerOptions = {}): Promise<TemporalServerHandle> {
  const log = options.log ?? defaultLog;
  const externalAddress = options.local ? undefined : process.env.TEMPORAL_ADDRESS;
  if (externalAddress) {
    const namespace = process.env.TEMPORAL_NAMESPACE || options.namespace || "default";
    log(`using external temporal server at ${externalAddress} (namespace ${namespace})`);
    return {
      address: externalAddress,
      namespace,
      owned: false,
      stop: async () => {},
      restart: async () => {
        throw new Error("cannot restart an external server (TEMPORAL_ADDRESS is set)");
      },
    };
  }

  const target = process.env.TEMPORAL_TARGET || "dev";
  if (!(TEMPORAL_TARGETS as readonly string[]).includes(target)) {
    throw new TemporalUnavailableError([`TEMPORAL_TARGET=${JSON.stringify(target)} is not one of ${TEMPORAL_TARGETS.join(", ")}`]);
  }
  if (target === "postgres") return startOnPostgres(options, log);

  const namespace = options.namespace ?? "default";
  const attempts: string[] = [];
  let binary = await findTemporalBinary(log);
  if (!binary) {
    attempts.push("no `temporal` on PATH, in the cache dir or in ~/go/bin");
    try {
      binary = await installTemporalBinary(log);
    } catch (err) {
      attempts.push(`go install: ${(err as Error).message}`);
    }
  }
  // A binary that exists but fails to start is a real error, not a reason to download another.
  if (binary) return startLocal(binary, options, namespace, log);

  try {
    log("falling back to the dev server @temporalio/testing downloads...");
    return await startLocal(undefined, options, namespace, log);
  } catch (err) {
    attempts.push(`@temporalio/testing download: ${(err as Error).message}`);
  }
  throw new TemporalUnavailableError(attempts);
}

/**
 * `TEMPORAL_TARGET=postgres`. Every start is a fresh database: `dbFilename` has no meaning
 * here, and `restart()` always keeps the data (it restarts the server, not PostgreSQL).
 */
async function startOnPostgres(options: DevServerOptions, log: (line: string) => void): Promise<TemporalServerHandle> {
  // Imported lazily: only this target needs it.
  const { startPostgresTemporal } = await import("./temporal-postgres.js");
  if (options.uiPort !== undefined) log("uiPort is ignored under TEMPORAL_TARGET=postgres (no UI in that process)");
  const server = await startPostgresTemporal({ port: options.port, namespace: options.namespace, log, ...(options.metricsPort !== undefined ? { metricsPort: options.metricsPort } : {}) });
  const stop = async (): Promise<void> => {
    untrack(stop);
    await server.stop();
  };
  track(stop);
  return { address: server.address, namespace: server.namespace, owned: true, stop, restart: () => server.restart() };
}
