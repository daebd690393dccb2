/**
 * A throwaway Redis for tests of `durable-agents/redis`: Debian's `redis-server` (installed
 * with apt-get when missing and we are root), on a free port of 127.0.0.1, persisting
 * nothing, in a temp dir removed by `stop()`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { aptInstall, canInstallWithApt } from "./apt.js";
import { findExecutable } from "./executable.js";
import { freeLoopbackPort } from "./free-port.js";
import { track, untrack } from "./stop-on-signal.js";

/** A Redis server `startRedis` started. */
export interface RedisServerHandle {
  /** `redis://127.0.0.1:<port>`, for `redisStreamTransport({ url })` or `createClient({ url })`. */
  url: string;
  port: number;
  /** Stops the server (it saves nothing) and removes its dir; idempotent. */
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** Progress lines (an install). Default: stderr. */
  log?: (line: string) => void;
}

/** No `redis-server` here, and none can be installed: the message says what to install. */
export class RedisUnavailableError extends Error {
  readonly code = "REDIS_UNAVAILABLE";
  constructor(reason: string) {
    super(`Redis is not available: ${reason}. Install the redis-server package (Debian/Ubuntu: \`apt-get install redis-server\`; macOS: \`brew install redis\`) or put redis-server on PATH.`);
    this.name = "RedisUnavailableError";
  }
}

const defaultLog = (line: string): void => {
  process.stderr.write(`[redis] ${line}\n`);
};

/** `redis-server` on PATH, else in the usual places; undefined when there is none. */
export function findRedisServer(env: Record<string, string | undefined> = process.env): string | undefined {
  return findExecutable(["redis-server"], ["/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/sbin/redis-server", "/opt/homebrew/bin/redis-server"], env);
}

// One install at a time: two test files asking at once would otherwise fight for dpkg's lock.
let installing: Promise<string> | undefined;

/** The `redis-server` to run, installed from Debian's package when missing and allowed. */
export async function ensureRedisServer(log: (line: string) => void = defaultLog): Promise<string> {
  const found = findRedisServer();
  if (found) return found;
  if (!canInstallWithApt()) throw new RedisUnavailableError("no redis-server on PATH or in /usr/bin, and no apt-get as root to install it");
  installing ??= (async () => {
    log("installing redis-server with apt-get...");
    try {
      await aptInstall(["redis-server"]);
    } catch (err) {
      throw new RedisUnavailableError((err as Error).message);
    }
    const installed = findRedisServer();
    if (!installed) throw new RedisUnavailableError("apt-get installed redis-server but it is not on PATH or in /usr/bin");
    return installed;
  })().finally(() => {
    installing = undefined;
  });
  return installing;
}

/** One inline PING; true when the server answers PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    let answer = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (answer.includes("\r\n")) done(answer.startsWith("+PONG"));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timedOut = await Promise.race([exited.then(() => false), sleep(10_000, true, { ref: false })]);
  if (timedOut) {
    child.kill("SIGKILL");
    await exited;
  }
}

/**
 * Starts a fresh `redis-server` that persists nothing (`--save "" --appendonly no`), on a
 * free port of 127.0.0.1, and resolves once it answers PING. It is stopped by `stop()`, or
 * when this process gets SIGINT or SIGTERM. Without `redis-server`, it is installed with
 * apt-get when we are root; otherwise a {@link RedisUnavailableError} names the package.
 */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServerHandle> {
  const binary = await ensureRedisServer(options.log ?? defaultLog);
  const dir = await mkdtemp(join(tmpdir(), "durable-agents-redis-"));
  // The port is free when picked but not held: another process may take it before Redis
  // binds it, and then Redis exits at once and another port is tried.
  const failures: string[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freeLoopbackPort();
    const child = spawn(
      binary,
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no", "--logfile", ""],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const output: string[] = [];
    // Ready means this child says so (not a process that took the port first) and answers.
    const started = new Promise<boolean>((resolve) => {
      for (const stream of [child.stdout!, child.stderr!]) {
        stream.on("data", (chunk: Buffer) => {
          const text = chunk.toString("utf8");
          output.push(...text.split("\n").filter(Boolean));
          output.splice(0, Math.max(0, output.length - 20));
          if (text.includes("Ready to accept connections")) resolve(true);
        });
      }
      child.once("exit", () => resolve(false));
      child.once("error", (err) => {
        output.push(err.message);
        resolve(false);
      });
      void sleep(30_000, false, { ref: false }).then(resolve);
    });
    const ready = (await started) && (await ping(port));
    if (ready) {
      let stopped = false;
      const stop = async (): Promise<void> => {
        if (stopped) return;
        stopped = true;
        untrack(stop);
        await stopChild(child);
        await rm(dir, { recursive: true, force: true });
      };
      track(stop);
      return { url: `redis://127.0.0.1:${port}`, port, stop };
    }
    const exited = child.exitCode !== null || child.signalCode !== null;
    await stopChild(child);
    failures.push(`port ${port}: ${exited ? "redis-server exited" : "not ready in 30 s"}:\n${output.join("\n")}`);
    // Only a port taken in between is worth another try.
    if (!output.some((line) => line.includes("Address already in use"))) break;
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`redis-server did not start:\n${failures.join("\n")}`);
}
