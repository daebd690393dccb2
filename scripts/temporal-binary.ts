/**
 * Where the `temporal` CLI (and so the local dev server) comes from: found on this machine,
 * or built from source with Go. Used by scripts/ensure-temporal.ts and by `startTemporal()`.
 */
import { execFile } from "node:child_process";
import { constants as fsConstants } from "node:fs";
import { access, mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

/** The CLI version we build; pinned so every machine runs the same server. */
export const TEMPORAL_CLI_VERSION = "v1.5.1";
export const TEMPORAL_CLI_MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;

const EXE = process.platform === "win32" ? "temporal.exe" : "temporal";

function cacheBinDir(): string {
  const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cacheHome, "durable-agents", "bin");
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
    const candidate = join(dir, EXE);
    if (await isExecutable(candidate)) {
      log?.(`using temporal CLI at ${candidate}`);
      return candidate;
    }
  }
  return undefined;
}

/**
 * Builds the pinned CLI into our cache dir with `go install`. A cold Go cache takes a few
 * minutes, during which `go install` prints nothing: hence the heartbeat.
 */
export async function installTemporalBinary(log: (line: string) => void): Promise<string> {
  const binDir = cacheBinDir();
  await mkdir(binDir, { recursive: true });
  log(`building ${TEMPORAL_CLI_MODULE} with go install (a few minutes on first run)...`);
  const startedAt = Date.now();
  const seconds = (): number => Math.round((Date.now() - startedAt) / 1000);
  const heartbeat = setInterval(() => log(`still building temporal CLI (${seconds()}s)...`), 30_000);
  try {
    await promisify(execFile)("go", ["install", TEMPORAL_CLI_MODULE], { env: { ...process.env, GOBIN: binDir } });
  } catch (err) {
    const { code, stderr } = err as NodeJS.ErrnoException & { stderr?: string };
    if (code === "ENOENT") throw new Error("`go` is not installed (not found on PATH)");
    throw new Error(stderr?.trim() || (err as Error).message);
  } finally {
    clearInterval(heartbeat);
  }
  const binary = join(binDir, EXE);
  if (!(await isExecutable(binary))) throw new Error(`go install succeeded but ${binary} is missing`);
  log(`built ${binary} in ${seconds()}s`);
  return binary;
}
