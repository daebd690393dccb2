/**
 * The dev-server helper itself. Uses its OWN servers (not the shared one from global-setup)
 * because it restarts and kills them. No worker: a started workflow just sits on its task
 * queue, which is enough to prove state survives a restart.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client, Connection } from "@temporalio/client";
import proto from "@temporalio/proto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTemporal, TemporalUnavailableError, type TemporalServerHandle } from "../src/testing/index.js";
import * as searchAttributeKeys from "../src/core/search-attributes.js";

const { IndexedValueType } = proto.temporal.api.enums.v1;

async function withClient<T>(server: TemporalServerHandle, fn: (client: Client, connection: Connection) => Promise<T>) {
  const connection = await Connection.connect({ address: server.address });
  try {
    return await fn(new Client({ connection, namespace: server.namespace }), connection);
  } finally {
    await connection.close();
  }
}

/** Whether anything accepts TCP connections at `address` (host:port). */
function answers(address: string): Promise<boolean> {
  const port = Number(address.slice(address.lastIndexOf(":") + 1));
  return new Promise((resolve) => {
    const socket = connect(port, address.slice(0, address.lastIndexOf(":")));
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Pids of dev server processes serving `address`'s port, from their command lines (Linux). */
async function serverPids(address: string): Promise<number[]> {
  const portArg = `\0--port\0${address.slice(address.lastIndexOf(":") + 1)}\0`;
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes("\0start-dev\0") && cmdline.includes(portArg)) pids.push(Number(entry));
  }
  return pids;
}

describe("startTemporal with a db file", () => {
  let dir: string;
  let server: TemporalServerHandle;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "durable-agents-dev-server-"));
    const startedAt = performance.now();
    server = await startTemporal({ dbFilename: join(dir, "temporal.db"), local: true, log: () => {} });
    console.info(`dev server start: ${Math.round(performance.now() - startedAt)}ms`);
  });

  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("owns the server and registers the SDK's search attributes with their types", async () => {
    expect(server.owned).toBe(true);
    expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
    const { customAttributes } = await withClient(server, (_client, connection) =>
      connection.operatorService.listSearchAttributes({ namespace: server.namespace }),
    );
    const keys = Object.values(searchAttributeKeys);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(IndexedValueType[customAttributes?.[key.name] ?? 0], key.name).toBe(`INDEXED_VALUE_TYPE_${key.type}`);
    }
  });

  it("keeps a running workflow across restart()", async () => {
    const workflowId = `persist-${Date.now()}`;
    const runId = await withClient(server, async (client) => {
      const handle = await client.workflow.start("noWorkerWorkflow", {
        taskQueue: "no-worker-here",
        workflowId,
        typedSearchAttributes: [{ key: searchAttributeKeys.DeferralStatusKey, value: "pending" }],
      });
      return handle.firstExecutionRunId;
    });

    const restartedAt = performance.now();
    await server.restart();
    console.info(`dev server restart: ${Math.round(performance.now() - restartedAt)}ms`);

    const description = await withClient(server, (client) => client.workflow.getHandle(workflowId).describe());
    expect(description.runId).toBe(runId);
    expect(description.status.name).toBe("RUNNING");
    expect(description.typedSearchAttributes.get(searchAttributeKeys.DeferralStatusKey)).toBe("pending");

    await withClient(server, (client) => client.workflow.getHandle(workflowId).terminate("test done"));
  });

  it("stop() ends the server process and frees its port", async () => {
    expect(await serverPids(server.address)).toHaveLength(1);
    await server.stop();
    expect(await answers(server.address)).toBe(false);
    expect(await serverPids(server.address)).toEqual([]);
  });
});

describe("startTemporal without a db file", () => {
  // SQLite's memory mode loses the whole database when the driver drops an interrupted
  // connection: the server keeps its state in a scratch file instead, gone after stop().
  it("runs on a scratch SQLite file under /dev/shm and deletes it on stop()", async () => {
    const server = await startTemporal({ local: true, log: () => undefined });
    try {
      const [pid] = await serverPids(server.address);
      const args = (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0");
      const dbFile = args[args.indexOf("--db-filename") + 1]!;
      expect(args).toContain("--db-filename");
      expect(dbFile.startsWith("/dev/shm/")).toBe(true);
      await expect(stat(dbFile)).resolves.toMatchObject({ size: expect.any(Number) });
      await withClient(server, (client) => client.workflow.start("anything", { taskQueue: "nobody", workflowId: "scratch-db" }));
      await server.stop();
      await expect(stat(dirname(dbFile))).rejects.toMatchObject({ code: "ENOENT" });
    } finally {
      await server.stop();
    }
  });
});

describe("a server started by a process that is told to terminate", () => {
  const devServerModule = new URL("../src/testing/dev-server.ts", import.meta.url).href;
  // Starts a server, prints its address, then idles until a signal ends it.
  const script = `
    const { startTemporal } = await import(${JSON.stringify(devServerModule)});
    const server = await startTemporal({ local: true, log: () => {} });
    console.log(JSON.stringify({ address: server.address }));
    setInterval(() => {}, 60_000);
  `;
  let child: ChildProcess | undefined;
  let address: string | undefined;

  // On a failure, neither the child nor a server it left behind outlives the test.
  afterEach(async () => {
    child?.kill("SIGKILL");
    if (address) for (const pid of await serverPids(address)) process.kill(pid, "SIGKILL");
    child = address = undefined;
  });

  it.each(["SIGTERM", "SIGINT"] as const)("dies with it on %s", async (signal) => {
    const started = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    child = started;
    const exited = new Promise<NodeJS.Signals | null>((resolve) => started.once("exit", (_code, sig) => resolve(sig)));
    address = await new Promise<string>((resolve, reject) => {
      let out = "";
      started.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (!out.includes("\n")) return;
        try {
          resolve((JSON.parse(out) as { address: string }).address);
        } catch {
          reject(new Error(`the child printed something else than its server's address: ${out}`));
        }
      });
      void exited.then(() => reject(new Error(`the child exited before its server was up: ${out}`)));
    });
    expect(await answers(address)).toBe(true);
    expect(await serverPids(address)).toHaveLength(1);

    started.kill(signal);
    // The signal still ends the process the default way, after the server is stopped.
    const stillRunning = sleep(30_000, "still running 30s after the signal", { ref: false });
    expect(await Promise.race([exited, stillRunning])).toBe(signal);
    expect(await answers(address)).toBe(false);
    expect(await serverPids(address)).toEqual([]);
  });
});

describe("TemporalUnavailableError", () => {
  it("names every way to get a server", () => {
    const error = new TemporalUnavailableError(["go install: `go` is not installed"]);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("TEMPORAL_UNAVAILABLE");
    expect(error.message).toContain("TEMPORAL_ADDRESS");
    expect(error.message).toContain("`temporal` CLI on PATH");
    expect(error.message).toContain("go install github.com/temporalio/cli/cmd/temporal@v1.5.1");
    expect(error.message).toMatch(/internet/);
    expect(error.message).toContain("`go` is not installed");
  });
});
