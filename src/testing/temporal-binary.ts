/**
 * Where Temporal's binaries come from: found on this machine, or built from source with Go
 * into one cache dir (~/.cache/durable-agents/bin). The `temporal` CLI runs the dev server
 * (scripts/ensure-temporal.ts, `startTemporal()`); `temporal-server` and `temporal-sql-tool`
 * run the PostgreSQL-backed server (temporal-postgres.ts).
 */
import { execFile } from "node:child_process";
import { constants as fsConstants } from "node:fs";
import { access, cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

/** The CLI version we build; pinned so every machine runs the same server. */
export const TEMPORAL_CLI_VERSION = "v1.5.1";
export const TEMPORAL_CLI_MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;

/**
 * Modules the CLI is built with at a newer version than its own go.mod asks. Its SQLite
 * driver (modernc.org/sqlite v1.34.1) can deliver a cancelled request's interrupt to the
 * next statement on the dev server's one in-memory connection, and every call then fails
 * with "interrupted (9)" for seconds (CI lost a run to it); v1.44.3 closes that race and
 * is the version Temporal's own server moved to.
 */
export const TEMPORAL_CLI_RAISED = ["modernc.org/sqlite@v1.44.3"] as const;

/** The dev server's CLI as we build it (see {@link TEMPORAL_CLI_RAISED}). */
export const TEMPORAL_CLI_BINARY: GoBinary = {
  name: "temporal",
  module: TEMPORAL_CLI_MODULE,
  raise: [...TEMPORAL_CLI_RAISED],
};

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
  /**
   * `module@version`s to build with instead of the lower versions `module`'s go.mod asks
   * (Go's minimal version selection keeps the higher). The build then runs in a scratch
   * module, and a stamp file beside the binary records the recipe, so a binary cached by
   * an older recipe is rebuilt.
   */
  raise?: string[];
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

/**
 * PATH `temporal`, then our cache dir (where {@link installTemporalBinary} puts it, used only
 * when built by today's recipe), then `~/go/bin`. A binary the user put on PATH is theirs to
 * choose.
 */
export async function findTemporalBinary(log?: (line: string) => void): Promise<string | undefined> {
  const pathDirs = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  const cached = await findGoBinary(TEMPORAL_CLI_BINARY);
  for (const candidate of [
    ...pathDirs.map((dir) => join(dir, exe("temporal"))),
    ...(cached ? [cached] : []),
    join(homedir(), "go", "bin", exe("temporal")),
  ]) {
    if (await isExecutable(candidate)) {
      log?.(`using temporal CLI at ${candidate}`);
      return candidate;
    }
  }
  return undefined;
}

/** Builds the pinned CLI into our cache dir with Go. */
export async function installTemporalBinary(log: (line: string) => void): Promise<string> {
  return installGoBinary(TEMPORAL_CLI_BINARY, log);
}

/** What {@link installGoBinary} writes beside a binary built with raised modules. */
function recipe(binary: GoBinary): string {
  return [binary.module, ...(binary.raise ?? [])].join("\n") + "\n";
}

const stampFile = (target: string): string => `${target}.recipe`;

/**
 * `binary` from our cache dir only (a server on PATH may be any version), and only when it
 * reports the pinned version.
 */
export async function findGoBinary(binary: GoBinary): Promise<string | undefined> {
  const candidate = join(cacheBinDir(), exe(binary.name));
  if (!(await isExecutable(candidate))) return undefined;
  if (binary.raise) {
    const stamp = await readFile(stampFile(candidate), "utf8").catch(() => "");
    if (stamp !== recipe(binary)) return undefined;
  }
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
 * Builds `binary` into our cache dir with `go install`, or with `go get` and `go build` in a
 * scratch module when it raises modules. `go install` names the file after the package's
 * last path element (`server`, `sql`), so it builds into a scratch dir and the result is
 * renamed. A cold Go cache takes minutes, during which Go prints nothing: hence the
 * heartbeat.
 */
export async function installGoBinary(binary: GoBinary, log: (line: string) => void): Promise<string> {
  const binDir = cacheBinDir();
  await mkdir(binDir, { recursive: true });
  const scratch = await mkdtemp(join(binDir, `.build-${binary.name}-`));
  log(`building ${binary.module}${binary.raise ? ` with ${binary.raise.join(", ")}` : ""} with Go (minutes on first run)...`);
  const startedAt = Date.now();
  const seconds = (): number => Math.round((Date.now() - startedAt) / 1000);
  const heartbeat = setInterval(() => log(`still building ${binary.name} (${seconds()}s)...`), 30_000);
  try {
    const pkg = binary.module.slice(0, binary.module.lastIndexOf("@"));
    const pkgName = pkg.split("/").pop()!;
    const go = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      promisify(execFile)("go", args, { cwd: scratch, env: { ...process.env, ...env }, maxBuffer: 16 * 2 ** 20 });
    if (binary.raise) {
      await go(["mod", "init", "durable-agents.local/build"]);
      await go(["get", binary.module, ...binary.raise]);
      await go(["build", "-o", join(scratch, exe(pkgName)), pkg]);
    } else {
      await go(["install", binary.module], { GOBIN: scratch });
    }
    const target = join(binDir, exe(binary.name));
    await rename(join(scratch, exe(pkgName)), target);
    if (!(await isExecutable(target))) throw new Error(`go install succeeded but ${target} is missing`);
    if (binary.raise) await writeFile(stampFile(target), recipe(binary));
    else await rm(stampFile(target), { force: true });
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
