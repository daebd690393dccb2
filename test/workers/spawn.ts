import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

// Every child this test file started, so afterAll can make sure none outlives it.
const spawned = new Set<ChildProcess>();

/** Starts `test/workers/<name>.ts` in a child process and resolves once it printed "ready". */
export async function spawnWorker(name: string, env: Record<string, string>): Promise<ChildProcess> {
  const script = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  spawned.add(child);
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("ready")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`worker ${name} exited with ${code} before it was ready`)));
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
