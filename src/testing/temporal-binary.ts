/**
 * Where Temporal's binaries come from: found on this machine, or built from source with Go
 * into one cache dir (~/.cache/durable-agents/bin). The `temporal` CLI runs the dev server
 * (scripts/ensure-temporal.ts, `startTemporal()`); `temporal-server` and `temporal-sql-tool`
 * run the PostgreSQL-backed server (temporal-postgres.ts).
 */
import { execFile } from "node:child_process";
import { constants as fsConstants } from "node:fs";
import { access, cp, mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

/** The CLI version we build; pinned so every machine runs the same server. */
export const TEMPORAL_CLI_VERSION = "v1.5.1";
export const TEMPORAL_CLI_MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;

/** The server version of the PostgreSQL lane and of docker-compose.yml; keep the two equal. */
export const TEMPORAL_SERVER_VERSION = "v1.29.1";

/** A binary `go install` builds into our cache dir under `name`. */
export interface GoBinary {
  /** File name in the cache dir (without `.exe`). */
  name: string;
  /** `go install` argument, `module/path@version`. */
  module: string;
  /** Substring of `<binary> --version` output that proves the pinned version; unchecked when omitted. */
  versionText?: string;
}

export const TEMPORAL_SERVER_BINARY: GoBinary = {
  name: "temporal-server",
  module: `go.temporal.io/server/cmd/server@${TEMPORAL_SERVER_VERSION}`,
  versionText: TEMPORAL_SERVER_VERSION.slice(1),
};
export const TEMPORAL_SQL_TOOL_BINARY: GoBinary = {
  name: "temporal-sql-tool",
  module: `go.temporal.io/server/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
  versionText: TEMPORAL_SERVER_VERSION.slice(1),
};

const exe = (name: string): string => (process.platform === "win32" ? `${name}.exe` : name);

export function cacheDir(): string {
  const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cacheHome, "durable-agents");
}

function cacheBinDir(): string {
  return join(cacheDir(), "bin");
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** PATH `temporal`, then our cache dir (where {@link installTemporalBinary} puts it), then `~/go/bin`. */
export async function findTemporalBinary(log?: (line: string) => void): Promise<string | undefined> {
  const pathDirs = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  for (const dir of [...pathDirs, cacheBinDir(), join(homedir(), "go", "bin")]) {
    const candidate = join(dir, exe("temporal"));
    if (await isExecutable(candidate)) {
      log?.(`using temporal CLI at ${candidate}`);
      return candidate;
    }
  }
  return undefined;
}

/** Builds the pinned CLI into our cache dir with `go install`. */
export async function installTemporalBinary(log: (line: string) => void): Promise<string> {
  return installGoBinary({ name: "temporal", module: TEMPORAL_CLI_MODULE }, log);
}

/**
 * `binary` from our cache dir only (a server on PATH may be any version), and only when it
 * reports the pinned version.
 */
export async function findGoBinary(binary: GoBinary): Promise<string | undefined> {
  const candidate = join(cacheBinDir(), exe(binary.name));
  if (!(await isExecutable(candidate))) return undefined;
  if (binary.versionText) {
    const output = await promisify(execFile)(candidate, ["--version"]).then(
      ({ stdout, stderr }) => stdout + stderr,
      () => "",
    );
    if (!output.includes(binary.versionText)) return undefined;
  }
  return candidate;
}

/** {@link findGoBinary}, else {@link installGoBinary}. */
export async function ensureGoBinary(binary: GoBinary, log: (line: string) => void): Promise<string> {
  const found = await findGoBinary(binary);
  if (found) {
    log(`using ${binary.name} at ${found}`);
    return found;
  }
  return installGoBinary(binary, log);
}

/**
 * Builds `binary` into our cache dir with `go install`. `go install` names the file after
 * the package's last path element (`server`, `sql`), so it builds into a scratch dir and the
 * result is renamed. A cold Go cache takes minutes, during which `go install` prints
 * nothing: hence the heartbeat.
 */
export async function installGoBinary(binary: GoBinary, log: (line: string) => void): Promise<string> {
  const binDir = cacheBinDir();
  await mkdir(binDir, { recursive: true });
  const scratch = await mkdtemp(join(binDir, `.build-${binary.name}-`));
  log(`building ${binary.module} with go install (minutes on first run)...`);
  const startedAt = Date.now();
  const seconds = (): number => Math.round((Date.now() - startedAt) / 1000);
  const heartbeat = setInterval(() => log(`still building ${binary.name} (${seconds()}s)...`), 30_000);
  try {
    await promisify(execFile)("go", ["install", binary.module], { env: { ...process.env, GOBIN: scratch }, maxBuffer: 16 * 2 ** 20 });
    const pkgName = binary.module.slice(0, binary.module.lastIndexOf("@")).split("/").pop()!;
    const target = join(binDir, exe(binary.name));
    await rename(join(scratch, exe(pkgName)), target);
    if (!(await isExecutable(target))) throw new Error(`go install succeeded but ${target} is missing`);
    log(`built ${target} in ${seconds()}s`);
    return target;
  } catch (err) {
    const { code, stderr } = err as NodeJS.ErrnoException & { stderr?: string };
    if (code === "ENOENT" && !stderr) throw new Error("`go` is not installed (not found on PATH)");
    throw new Error(stderr?.trim() || (err as Error).message);
  } finally {
    clearInterval(heartbeat);
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The server's `schema/` dir (PostgreSQL, MySQL, Cassandra schemas and their versioned
 * upgrades), copied into our cache from the Go module the server is built from, so a cached
 * server needs no module cache.
 */
export async function ensureTemporalSchemaDir(log: (line: string) => void): Promise<string> {
  const dir = join(cacheDir(), `temporal-server-${TEMPORAL_SERVER_VERSION}`, "schema");
  if (await isExecutable(dir)) return dir;
  log(`fetching the schema of go.temporal.io/server@${TEMPORAL_SERVER_VERSION} from the Go module cache...`);
  const { stdout } = await promisify(execFile)("go", ["mod", "download", "-json", `go.temporal.io/server@${TEMPORAL_SERVER_VERSION}`], {
    cwd: tmpdir(), // outside any go.mod
  });
  const moduleDir = (JSON.parse(stdout) as { Dir?: string }).Dir;
  if (!moduleDir) throw new Error(`go mod download gave no module dir: ${stdout}`);
  const scratch = `${dir}.partial-${process.pid}`;
  await cp(join(moduleDir, "schema"), scratch, { recursive: true });
  await rename(scratch, dir);
  return dir;
}
