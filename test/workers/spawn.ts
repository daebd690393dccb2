import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

// Every child this test file started, so afterAll can make sure none outlives it.
const spawned = new Set<ChildProcess>();

/** Starts `test/workers/<name>.ts` in a child process and resolves once it printed "ready". */
export function spawnWorker(name: string, env: Record<string, string>): Promise<ChildProcess> {
  return spawnReady(fileURLToPath(new URL(`./${name}.ts`, import.meta.url)), env);
}

/**
 * Starts the TypeScript file `script` in a child process with `env` added to ours, and
 * resolves once it printed "ready"; its stderr goes to ours, or to the file descriptor given.
 */
export async function spawnReady(script: string, env: Record<string, string>, stderr: "inherit" | number = "inherit"): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", stderr],
  });
  spawned.add(child);
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("ready")) resolve();
    });
    child.once("exit", (code, signal) => reject(new Error(`${script} exited (${signal ?? code}) before it was ready`)));
  });
  return child;
}

export async function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  await exited;
}

/** SIGKILLs every child still running (for afterAll). */
export async function killAll(): Promise<void> {
  await Promise.all([...spawned].map((child) => kill(child, "SIGKILL")));
  spawned.clear();
}
