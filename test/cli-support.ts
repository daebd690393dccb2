/**
 * The `durable-agents` command as the tests run it: compiled (`tsconfig.build.json`) once per
 * test run by test/global-setup.ts, and spawned by node, as an operator runs the package's bin.
 */
import { execFile } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";
import { SECRET, type Harness } from "./harness.js";

export const root = fileURLToPath(new URL("..", import.meta.url));
/** Where global-setup compiled the command (in dist/), beside the operator's module of the runs test. */
export const artifacts = inject("cliArtifacts");
export const bin = `${artifacts}/dist/src/cli/main.js`;

/** What the command reads to reach the suite's server and the agents' worker on `taskQueue`. */
export function cliEnv(h: Harness, taskQueue: string): Record<string, string> {
  return { TEMPORAL_ADDRESS: h.address, TEMPORAL_NAMESPACE: h.namespace, DURABLE_AGENTS_TASK_QUEUE: taskQueue, DEFERRAL_SECRET: SECRET, NO_COLOR: "1" };
}

/**
 * Runs the command with `env` over this process's environment; never throws: the exit code is
 * part of what is asserted. Past `timeoutMs` it is stopped (SIGTERM, which stops a dev server
 * it started) and reads as exit code 1.
 */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 0): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, cwd: root, timeout: timeoutMs }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
