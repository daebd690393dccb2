/**
 * Debian's packages for the servers the tests start (PostgreSQL, Redis), installed on a
 * machine that lacks them when we may: as root, with apt-get.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";

const run = promisify(execFile);

/** True when a missing server can be installed here: root, with apt-get. */
export const canInstallWithApt = (): boolean => process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");

/** `apt-get …args`, non-interactive; a failure's message is apt-get's stderr. */
export async function aptGet(...args: string[]): Promise<void> {
  await run("apt-get", args, { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, maxBuffer: 64 * 2 ** 20 }).catch((err: { stderr?: string; message: string }) => {
    throw new Error(`apt-get ${args.join(" ")} failed: ${err.stderr?.trim() || err.message}`);
  });
}

/**
 * Installs `packages`, refreshing the package lists first only when the install fails
 * without them (a fresh container has none; elsewhere the update is a slow no-op).
 */
export async function aptInstall(packages: string[]): Promise<void> {
  try {
    await aptGet("install", "-y", ...packages);
  } catch {
    await aptGet("update");
    await aptGet("install", "-y", ...packages);
  }
}
