/**
 * One way for the demo, the tests and the benchmarks to get a Temporal server.
 *
 * Resolution order (first that works wins):
 *  1. `TEMPORAL_ADDRESS` is set: use that server as-is (we do not own it).
 *  2. A `temporal` CLI binary is found: run `temporal server start-dev`.
 *  3. Go is installed: `go install` the CLI into our cache dir (scripts/temporal-binary.ts), then (2).
 *  4. `@temporalio/testing` downloads a dev server (needs internet).
 * Otherwise a {@link TemporalUnavailableError} explains the four options.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { Connection } from "@temporalio/client";
import { findTemporalBinary, installTemporalBinary, TEMPORAL_CLI_MODULE } from "../../scripts/temporal-binary.js";

/** Custom search attributes the agent workflows rely on; registered at server start. */
export const SEARCH_ATTRIBUTES = {
  DeferralStatus: "Keyword",
  AgentId: "Keyword",
  DeferralExpiresAt: "Datetime",
  DeferralId: "Keyword",
} as const;

export interface DevServerOptions {
  /** SQLite file to persist state in; without it state is lost when the server stops. */
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
}

export interface TemporalServerHandle {
  address: string;
  namespace: string;
  /** true when we started it */
  owned: boolean;
  stop(): Promise<void>;
  /** stop and start again on the same port and db file (only when owned, needs dbFilename) */
  restart(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
/** Lines of server output kept so a failed start can say why. */
const OUTPUT_TAIL_LINES = 40;

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

const defaultLog = (line: string): void => {
  process.stderr.write(`[temporal] ${line}\n`);
};

/** Streams a child's output to `onLine` one line at a time. */
function forwardLines(child: ChildProcess, onLine: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream, crlfDelay: Infinity }).on("line", onLine);
  }
}

/**
 * Picks `count` distinct free ports. All listeners stay open until every port is chosen
 * so the OS cannot hand out the same port twice.
 */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/**
 * Waits until the frontend answers and our search attributes are registered: start-dev
 * opens the port before it has finished registering them, and workflows that upsert an
 * unknown attribute would fail.
 */
async function waitUntilReady(
  address: string,
  namespace: string,
  timeoutMs: number,
  hasExited: () => string | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const exited = hasExited();
    if (exited) throw new Error(`temporal server exited during startup (${exited})`);
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address, connectTimeout: 2_000 });
      const conn = connection;
      const attemptDeadline = Date.now() + 5_000;
      await conn.withDeadline(attemptDeadline, () => conn.workflowService.getSystemInfo({}));
      const { customAttributes } = await conn.withDeadline(attemptDeadline, () =>
        conn.operatorService.listSearchAttributes({ namespace }),
      );
      const missing = Object.keys(SEARCH_ATTRIBUTES).filter((name) => !(name in (customAttributes ?? {})));
      if (missing.length === 0) return;
      lastError = new Error(`search attributes not registered yet: ${missing.join(", ")}`);
    } catch (err) {
      lastError = err;
    } finally {
      await connection?.close().catch(() => undefined);
    }
    await sleep(200);
  }
  throw new Error(`temporal server at ${address} not ready after ${timeoutMs / 1000}s: ${String(lastError)}`);
}

/** A `temporal server start-dev` child process that can be stopped and started again with the same args. */
class CliDevServer implements TemporalServerHandle {
  readonly owned = true;
  private child: ChildProcess | undefined;
  private exitInfo: string | undefined;
  private readonly outputTail: string[] = [];
  /** Kills the child if the parent exits without calling stop(); only sync work is possible here. */
  private readonly killOnExit = (): void => {
    this.child?.kill("SIGTERM");
  };

  constructor(
    private readonly binary: string,
    private readonly args: string[],
    readonly address: string,
    readonly namespace: string,
    private readonly dbFilename: string | undefined,
    private readonly log: (line: string) => void,
  ) {}

  async start(): Promise<void> {
    const startedAt = Date.now();
    this.exitInfo = undefined;
    this.outputTail.length = 0;
    // Own stdin pipe and the same process group: a terminal Ctrl+C reaches the server too.
    const child = spawn(this.binary, this.args, { stdio: ["ignore", "pipe", "pipe"] });
    this.child = child;
    process.on("exit", this.killOnExit);
    forwardLines(child, (line) => {
      this.outputTail.push(line);
      if (this.outputTail.length > OUTPUT_TAIL_LINES) this.outputTail.shift();
    });
    child.once("error", (err) => {
      this.exitInfo = `spawn failed: ${err.message}`;
    });
    child.once("exit", (code, signal) => {
      this.exitInfo ??= signal ? `signal ${signal}` : `exit code ${code}`;
      process.off("exit", this.killOnExit);
    });
    try {
      await waitUntilReady(this.address, this.namespace, READY_TIMEOUT_MS, () => this.exitInfo);
    } catch (err) {
      await this.stop();
      const tail = this.outputTail.join("\n");
      throw new Error(`${(err as Error).message}\nserver output (tail):\n${tail || "(none)"}`, { cause: err });
    }
    this.log(`temporal dev server ready at ${this.address} in ${Date.now() - startedAt}ms`);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null && this.exitInfo === undefined) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      // A graceful stop lets SQLite close cleanly; SIGKILL only if the server hangs.
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    process.off("exit", this.killOnExit);
  }

  async restart(): Promise<void> {
    if (!this.dbFilename) {
      throw new Error("restart() needs dbFilename: without it the server would come back empty");
    }
    await this.stop();
    await this.start();
  }
}

/**
 * The dev server runs one history shard whose task-queue readers poll at most 20 times a
 * second, so every task waits ~40 ms before a worker sees it. Lifting the cap makes the
 * local server behave like a real cluster's latency, for tests and benchmarks alike.
 */
export const DEV_DYNAMIC_CONFIG: Record<string, number> = {
  "history.transferProcessorMaxPollRPS": 10_000,
  "history.timerProcessorMaxPollRPS": 10_000,
  "history.visibilityProcessorMaxPollRPS": 10_000,
};

function dynamicConfigArgs(): string[] {
  return Object.entries(DEV_DYNAMIC_CONFIG).flatMap(([key, value]) => ["--dynamic-config-value", `${key}=${value}`]);
}

function cliArgs(ports: { grpc: number; http: number; metrics: number }, namespace: string, dbFilename?: string): string[] {
  const args = [
    "server",
    "start-dev",
    "--headless",
    "--ip",
    "127.0.0.1",
    "--port",
    String(ports.grpc),
    // Fixed (not random) so a restart comes back on exactly the same ports.
    "--http-port",
    String(ports.http),
    "--metrics-port",
    String(ports.metrics),
    "--namespace",
    namespace,
    "--log-level",
    "error",
  ];
  if (dbFilename) args.push("--db-filename", dbFilename);
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push("--search-attribute", `${name}=${type}`);
  args.push(...dynamicConfigArgs());
  return args;
}

async function startCli(binary: string, options: DevServerOptions, namespace: string, log: (line: string) => void) {
  const [grpc = 0, http = 0, metrics = 0] = await freePorts(3);
  const ports = { grpc: options.port ?? grpc, http, metrics };
  const address = `127.0.0.1:${ports.grpc}`;
  const server = new CliDevServer(binary, cliArgs(ports, namespace, options.dbFilename), address, namespace, options.dbFilename, log);
  await server.start();
  return server;
}

/** Last resort: the SDK downloads a dev server binary (needs internet). */
async function startSdkDownload(options: DevServerOptions, namespace: string, log: (line: string) => void) {
  // Imported lazily: it pulls in the native worker runtime, which the other paths never need.
  const { TestWorkflowEnvironment } = await import("@temporalio/testing");
  const extraArgs = [
    ...Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ["--search-attribute", `${name}=${type}`]),
    ...dynamicConfigArgs(),
  ];
  const create = (port: number | undefined) =>
    TestWorkflowEnvironment.createLocal({
      server: { namespace, port, dbFilename: options.dbFilename, ip: "127.0.0.1", extraArgs },
    });
  const startedAt = Date.now();
  let env = await create(options.port);
  try {
    await waitUntilReady(env.address, namespace, READY_TIMEOUT_MS, () => undefined);
  } catch (err) {
    await env.teardown();
    throw err;
  }
  log(`downloaded temporal dev server ready at ${env.address} in ${Date.now() - startedAt}ms`);
  const port = Number(env.address.split(":").pop());
  const handle: TemporalServerHandle = {
    address: env.address,
    namespace,
    owned: true,
    stop: () => env.teardown(),
    async restart() {
      if (!options.dbFilename) {
        throw new Error("restart() needs dbFilename: without it the server would come back empty");
      }
      await env.teardown();
      env = await create(port);
      await waitUntilReady(env.address, namespace, READY_TIMEOUT_MS, () => undefined);
    },
  };
  return handle;
}

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
  if (binary) {
    // A binary that exists but fails to start is a real error, not a reason to download another.
    return startCli(binary, options, namespace, log);
  }

  try {
    log("falling back to the @temporalio/testing dev server download...");
    return await startSdkDownload(options, namespace, log);
  } catch (err) {
    attempts.push(`@temporalio/testing download: ${(err as Error).message}`);
  }
  throw new TemporalUnavailableError(attempts);
}
