/**
 * The `durable-agents` command as the tests run it: `runCli` runs a command line in this
 * process, from source, with its own environment and output (most cases: several at once);
 * `spawnCli` runs the package's bin, compiled (`tsconfig.build.json`) once per test run by
 * test/global-setup.ts and spawned by node, as an operator runs it.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";
import { main } from "../src/cli/program.js";
import { SECRET, type Harness } from "./harness.js";

export const root = fileURLToPath(new URL("..", import.meta.url));
/** Where global-setup compiled the command (in dist/), beside the operator's module of the runs test. */
export const artifacts = inject("cliArtifacts");
export const bin = `${artifacts}/dist/src/cli/main.js`;

/** What the command reads to reach the suite's server and the agents' worker on `taskQueue`. */
export function cliEnv(h: Harness, taskQueue: string): Record<string, string> {
  return { TEMPORAL_ADDRESS: h.address, TEMPORAL_NAMESPACE: h.namespace, DURABLE_AGENTS_TASK_QUEUE: taskQueue, DEFERRAL_SECRET: SECRET, NO_COLOR: "1" };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the command line with `env` over this process's environment, in this process: what
 * it prints and its exit code, as the bin would give them (a spawned node costs about a
 * second of CPU, mostly loading the Temporal client). Never throws.
 */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await main(["node", "durable-agents", ...args], {
    env: { ...process.env, ...env },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stderrIsTTY: false,
  });
  return { code, stdout, stderr };
}

/**
 * Runs the compiled bin with `env` over this process's environment; never throws: the exit
 * code is part of what is asserted. Past `timeoutMs` it is stopped (SIGTERM, which stops a
 * dev server it started) and reads as exit code 1.
 */
export function spawnCli(args: string[], env: Record<string, string>, timeoutMs = 0): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, cwd: root, timeout: timeoutMs }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
