/**
 * A production-shaped Temporal on this machine, without Docker: the real server
 * (`temporal-server`, all four services in one process) on PostgreSQL persistence with SQL
 * visibility, configured by scripts/temporal-server/postgres.yaml, the file
 * docker-compose.yml runs too. `startTemporal()` uses it under `TEMPORAL_TARGET=postgres`.
 *
 * Each start gets a fresh PostgreSQL cluster in a temp dir on free ports (it never meets a
 * PostgreSQL or Temporal already running), the schema steps compose takes
 * (scripts/temporal-server/setup-schema.sh), a namespace and the SDK's search attributes.
 * `restart()` restarts the Temporal server on the same database; `stop()` stops both and
 * removes the cluster. scripts/temporal-postgres.ts runs it from a shell.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync } from "node:fs";
import { chown, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Connection } from "@temporalio/client";
import * as searchAttributeKeys from "../core/search-attributes.js";
import { aptGet, canInstallWithApt } from "./apt.js";
import { ensureGoBinary, ensureTemporalSchemaDir, TEMPORAL_SERVER_BINARY, TEMPORAL_SQL_TOOL_BINARY } from "./temporal-binary.js";

const run = promisify(execFile);

/**
 * The dir holding postgres.yaml, dynamicconfig.yaml and setup-schema.sh: the package's
 * scripts/temporal-server/, which docker-compose.yml mounts too, reached from src/testing/
 * or, built, from dist/src/testing/ (the build copies no YAML).
 */
export const SERVER_CONFIG_DIR = [new URL("../../scripts/temporal-server/", import.meta.url), new URL("../../../scripts/temporal-server/", import.meta.url)]
  .map((url) => fileURLToPath(url))
  .find((dir) => existsSync(join(dir, "postgres.yaml"))) ?? fileURLToPath(new URL("../../scripts/temporal-server/", import.meta.url));

const PG_USER = "temporal";
const PG_PASSWORD = "temporal";
/** How long namespace retention keeps a closed run; the value docker-compose.yml sets too. */
const RETENTION_SECONDS = 24 * 3600;

export interface PostgresTemporalOptions {
  /** Frontend gRPC port; a free range is picked when omitted (the other services sit at fixed offsets). */
  port?: number;
  /** Namespace to create and use. Default "default". */
  namespace?: string;
  /** Progress lines. Default: stderr. */
  log?: (line: string) => void;
  /** Serve the server's Prometheus metrics on this loopback port (`/metrics`), as the dev server's `--metrics-port`. */
  metricsPort?: number;
}

export interface PostgresTemporal {
  address: string;
  namespace: string;
  /** Stops the Temporal server and PostgreSQL and removes the cluster's dir; idempotent. */
  stop(): Promise<void>;
  /** Stops and starts the Temporal server on the same database and ports. */
  restart(): Promise<void>;
  /** The PostgreSQL cluster under it, for a table of a test's own (a bench's ledger) beside Temporal's. */
  postgres: { host: string; port: number; user: string; password: string };
}

/** PostgreSQL cannot be installed or started here: the lane prints this and skips. */
export class PostgresUnavailableError extends Error {
  readonly code = "POSTGRES_UNAVAILABLE";
  constructor(reason: string) {
    super(`PostgreSQL is not available: ${reason}`);
    this.name = "PostgresUnavailableError";
  }
}

const defaultLog = (line: string): void => {
  process.stderr.write(`[temporal-postgres] ${line}\n`);
};

const isRoot = (): boolean => process.getuid?.() === 0;

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return isRoot() ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
}

async function postgresBinDir(): Promise<string | undefined> {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? (await readdir(root)).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const dir = join(root, version, "bin");
    if (existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  // Other layouts put them on PATH.
  const onPath = await run("pg_config", ["--bindir"]).then(({ stdout }) => stdout.trim(), () => "");
  return onPath && existsSync(join(onPath, "initdb")) ? onPath : undefined;
}

/**
 * PostgreSQL's binaries, installed from Debian's packages when missing. The main cluster
 * Debian would create (and start, on the default port) is turned off first: we run our own.
 */
export async function ensurePostgres(log: (line: string) => void = defaultLog): Promise<string> {
  const found = await postgresBinDir();
  if (found) return found;
  if (!canInstallWithApt()) {
    throw new PostgresUnavailableError("no initdb in /usr/lib/postgresql/*/bin or from pg_config, and no apt-get as root to install it");
  }
  log("installing PostgreSQL with apt-get...");
  try {
    await aptGet("update");
    await aptGet("install", "-y", "postgresql-common");
    const conf = "/etc/postgresql-common/createcluster.conf";
    const text = await readFile(conf, "utf8");
    await writeFile(conf, text.replace(/^#?\s*create_main_cluster\s*=.*$/m, "create_main_cluster = false"));
    await aptGet("install", "-y", "-o", "Dpkg::Options::=--force-confold", "postgresql");
  } catch (err) {
    throw new PostgresUnavailableError((err as Error).message);
  }
  const installed = await postgresBinDir();
  if (!installed) throw new PostgresUnavailableError("apt-get installed postgresql but initdb is not in /usr/lib/postgresql/*/bin");
  return installed;
}

/** Everything a start needs that is slow the first time: PostgreSQL, both binaries, the schema. */
export async function ensurePostgresTemporal(log: (line: string) => void = defaultLog) {
  const pgBin = await ensurePostgres(log);
  // One at a time: two parallel Go builds of one module only fight for the cores.
  const server = await ensureGoBinary(TEMPORAL_SERVER_BINARY, log);
  const sqlTool = await ensureGoBinary(TEMPORAL_SQL_TOOL_BINARY, log);
  const schemaDir = await ensureTemporalSchemaDir(log);
  return { pgBin, server, sqlTool, schemaDir };
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

/** The ports postgres.yaml derives from the frontend's. */
const serverPorts = (port: number): number[] => [0, 1, 2, 6, 10, -300, -299, -298, -294].map((offset) => port + offset);

async function freePorts(count: number, pick: () => number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = pick();
    const wanted = count === 1 ? [base] : serverPorts(base);
    if ((await Promise.all(wanted.map(portIsFree))).every(Boolean)) return base;
  }
  throw new Error("found no free port range for the Temporal server");
}

const randomIn = (low: number, high: number) => () => low + Math.floor(Math.random() * (high - low));

/** Starts a fresh PostgreSQL-backed Temporal (see the module comment). */
export async function startPostgresTemporal(options: PostgresTemporalOptions = {}): Promise<PostgresTemporal> {
  const log = options.log ?? defaultLog;
  const namespace = options.namespace ?? "default";
  const startedAt = Date.now();
  const { pgBin, server, sqlTool, schemaDir } = await ensurePostgresTemporal(log);

  // /tmp rather than the user's cache: as root, the postgres user cannot enter /root.
  const dir = await mkdtemp(join(tmpdir(), "durable-agents-pg-"));
  const pgData = join(dir, "data");
  // Below Linux's ephemeral range (32768+), and membership ports must fit PostgreSQL's smallint.
  const pgPort = await freePorts(1, randomIn(15_000, 20_000));
  const port = options.port ?? (await freePorts(9, randomIn(21_000, 32_000)));
  if (isRoot()) await chown(dir, ...(await postgresIds()));

  let pgStarted = false;
  let temporal: ChildProcess | undefined;
  const stopTemporal = async (): Promise<void> => {
    const child = temporal;
    temporal = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timedOut = await Promise.race([exited.then(() => false), sleep(20_000, true, { ref: false })]);
    if (timedOut) {
      log("temporal-server ignored SIGTERM for 20s: killing it");
      child.kill("SIGKILL");
      await exited;
    }
  };
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await stopTemporal();
    if (pgStarted) {
      const [cmd, args] = asPostgres(join(pgBin, "pg_ctl"), ["stop", "-D", pgData, "-m", "fast", "-w"]);
      await run(cmd, args).catch((err: Error) => log(`pg_ctl stop: ${err.message}`));
    }
    await rm(dir, { recursive: true, force: true });
  };

  try {
    const pwFile = join(dir, "pw");
    await writeFile(pwFile, PG_PASSWORD, { mode: 0o600 });
    if (isRoot()) await chown(pwFile, ...(await postgresIds()));
    await pg(pgBin, "initdb", ["-D", pgData, "-U", PG_USER, `--pwfile=${pwFile}`, "--auth=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8"]);
    await pg(pgBin, "pg_ctl", ["start", "-D", pgData, "-w", "-l", join(dir, "postgres.log"), "-o", `-p ${pgPort} -k ${dir} -c listen_addresses=127.0.0.1`]);
    pgStarted = true;

    const env = {
      ...process.env,
      POSTGRES_SEEDS: "127.0.0.1",
      DB_PORT: String(pgPort),
      POSTGRES_USER: PG_USER,
      POSTGRES_PWD: PG_PASSWORD,
      TEMPORAL_PORT: String(port),
      BIND_ON_IP: "127.0.0.1",
      DYNAMIC_CONFIG_FILE_PATH: join(SERVER_CONFIG_DIR, "dynamicconfig.yaml"),
      SCHEMA_DIR: schemaDir,
      SQL_TOOL: sqlTool,
      ...(options.metricsPort !== undefined ? { PROMETHEUS_ENDPOINT: `127.0.0.1:${options.metricsPort}` } : {}),
    };
    await run("sh", [join(SERVER_CONFIG_DIR, "setup-schema.sh")], { env }).catch((err: { stderr?: string; message: string }) => {
      throw new Error(`setup-schema.sh failed: ${err.stderr?.trim() || err.message}`);
    });

    const address = `127.0.0.1:${port}`;
    const launch = async (): Promise<void> => {
      const out = createWriteStream(join(dir, "temporal.log"), { flags: "a" });
      const child = spawn(server, ["--root", "/", "--config", SERVER_CONFIG_DIR, "--env", "postgres", "--allow-no-auth", "start"], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      temporal = child;
      // The log goes to the cluster's dir; its last lines are kept to explain a failed start.
      const lastLines: string[] = [];
      for (const stream of [child.stdout, child.stderr]) {
        // Two sources, one file: neither may end it for the other.
        stream.pipe(out, { end: false });
        stream.on("data", (chunk: Buffer) => {
          lastLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
          lastLines.splice(0, Math.max(0, lastLines.length - 30));
        });
      }
      const ready = new AbortController();
      const exited = new Promise<never>((_resolve, reject) =>
        child.once("close", (code, signal) => {
          out.end();
          ready.abort();
          reject(new Error(`temporal-server exited (${signal ?? code}) while starting:\n${lastLines.join("\n")}`));
        }),
      );
      exited.catch(() => undefined);
      await Promise.race([waitReady(address, namespace, log, ready.signal), exited]);
    };
    await launch();
    log(`temporal-server ${address} on PostgreSQL :${pgPort} ready in ${Date.now() - startedAt}ms`);
    return {
      address,
      namespace,
      stop,
      postgres: { host: "127.0.0.1", port: pgPort, user: PG_USER, password: PG_PASSWORD },
      async restart() {
        if (stopped) throw new Error("restart() after stop()");
        const at = Date.now();
        await stopTemporal();
        await launch();
        log(`temporal-server restarted in ${Date.now() - at}ms`);
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function postgresIds(): Promise<[number, number]> {
  const { stdout } = await run("id", ["-u", "postgres"]);
  const { stdout: gid } = await run("id", ["-g", "postgres"]);
  return [Number(stdout.trim()), Number(gid.trim())];
}

async function pg(binDir: string, tool: string, args: string[]): Promise<void> {
  const [cmd, cmdArgs] = asPostgres(join(binDir, tool), args);
  await run(cmd, cmdArgs).catch((err: { stderr?: string; stdout?: string; message: string }) => {
    throw new Error(`${tool} failed: ${(err.stderr || err.stdout || err.message).trim()}`);
  });
}

/**
 * Up means more than a listening port: the namespace is registered and known to the
 * frontend (services pick a new namespace up from the database a few seconds later), and
 * the SDK's search attributes are registered in SQL visibility. Gives up when the server
 * exits (`exited`).
 */
async function waitReady(address: string, namespace: string, log: (line: string) => void, exited: AbortSignal): Promise<void> {
  const { Connection } = await import("@temporalio/client");
  const deadline = Date.now() + 120_000;
  let connection: Connection | undefined;
  let lastError: unknown;
  try {
    while (Date.now() < deadline && !exited.aborted) {
      try {
        // No retry interceptor: this loop retries itself, and the interceptor's backoff timers
        // outlive the connection (one firing after close() throws "Channel has been shut down"
        // from a timer, in the process that restarted the server).
        connection ??= await Connection.connect({ address, connectTimeout: 2_000, interceptors: [] });
        await ensureNamespace(connection, namespace, log);
        // A visibility read proves the frontend knows the namespace and SQL visibility answers.
        await connection.workflowService.countWorkflowExecutions({ namespace, query: "" });
        return;
      } catch (err) {
        lastError = err;
        await sleep(500);
      }
    }
    if (exited.aborted) throw new Error("temporal-server exited while starting");
    throw new Error(`temporal-server at ${address} not ready after 120s: ${(lastError as Error)?.message}`);
  } finally {
    await connection?.close();
  }
}

async function ensureNamespace(connection: Connection, namespace: string, log: (line: string) => void): Promise<void> {
  const proto = (await import("@temporalio/proto")).default;
  const { IndexedValueType } = proto.temporal.api.enums.v1;
  const described = await connection.workflowService.describeNamespace({ namespace }).catch(() => undefined);
  if (!described) {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: proto.google.protobuf.Duration.fromObject({ seconds: RETENTION_SECONDS }),
    });
    log(`registered namespace ${namespace}`);
  }
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.values(searchAttributeKeys).filter((key) => !customAttributes?.[key.name]);
  if (missing.length > 0) {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((key) => [key.name, IndexedValueType[`INDEXED_VALUE_TYPE_${key.type}`]])),
    });
    log(`registered search attributes ${missing.map((k) => k.name).join(", ")}`);
    throw new Error("search attributes just added: checking again");
  }
}
