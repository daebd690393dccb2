/**
 * The PostgreSQL-backed server itself (TEMPORAL_TARGET=postgres, src/testing/temporal-postgres.ts):
 * what the suite's shared one registered, and that a server started and stopped here leaves
 * no process behind. Runs only in the PostgreSQL lane (vitest.postgres.config.ts).
 */
import { readdir, readFile } from "node:fs/promises";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { Connection } from "@temporalio/client";
import proto from "@temporalio/proto";
import { describe, expect, inject, it } from "vitest";
import * as searchAttributeKeys from "../../src/core/search-attributes.js";
import { startTemporal } from "../../src/testing/index.js";

const { IndexedValueType } = proto.temporal.api.enums.v1;

/** Live (not zombie) processes whose command line starts with a `postgres` or `temporal-server` binary, by pid, with their parent's pid. */
async function serverProcesses(): Promise<Map<number, number>> {
  const pids = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const [cmdline, stat] = await Promise.all([readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => ""), readFile(`/proc/${entry}/stat`, "utf8").catch(() => "")]);
    const exe = cmdline.split("\0")[0] ?? "";
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state !== "Z" && /(^|\/)(postgres|temporal-server)$|^postgres: /.test(exe)) pids.set(Number(entry), Number(ppid));
  }
  return pids;
}

/**
 * Processes in `now` that are neither in `before` nor children of a process in it. The lane's
 * shared server keeps running beside these tests, and its PostgreSQL forks a backend
 * whenever that server opens a connection: those are not the started cluster's.
 */
function newSince(before: Map<number, number>, now: Map<number, number>): number[] {
  return [...now].filter(([pid, ppid]) => !before.has(pid) && !before.has(ppid)).map(([pid]) => pid);
}

function answers(address: string): Promise<boolean> {
  const at = address.lastIndexOf(":");
  return new Promise((resolve) => {
    const socket = connect(Number(address.slice(at + 1)), address.slice(0, at));
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("Temporal on PostgreSQL", () => {
  it("registered the SDK's search attributes with their types, stored in SQL visibility columns", async () => {
    const connection = await Connection.connect({ address: inject("temporalAddress") });
    try {
      const namespace = inject("temporalNamespace");
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      // SQL visibility stores a custom attribute in one of its predefined columns (Keyword01, Datetime01, ...), named per namespace.
      const { config } = await connection.workflowService.describeNamespace({ namespace });
      const aliases = Object.entries(config?.customSearchAttributeAliases ?? {});
      for (const key of Object.values(searchAttributeKeys)) {
        expect(IndexedValueType[customAttributes?.[key.name] ?? 0], key.name).toBe(`INDEXED_VALUE_TYPE_${key.type}`);
        const column = aliases.find(([, alias]) => alias === key.name)?.[0];
        expect(column, key.name).toMatch(new RegExp(`^${key.type === "DATETIME" ? "Datetime" : "Keyword"}\\d+$`));
      }
    } finally {
      await connection.close();
    }
  });

  it("stop() ends the Temporal server and PostgreSQL it started, leaving no process and freeing the port", async () => {
    const before = await serverProcesses();
    const server = await startTemporal({ local: true, log: () => undefined });
    const started = newSince(before, await serverProcesses());
    try {
      expect(server.owned).toBe(true);
      expect(await answers(server.address)).toBe(true);
      // One temporal-server and a PostgreSQL postmaster with its helpers.
      expect(started.length).toBeGreaterThan(1);
    } finally {
      await server.stop();
    }
    expect(await answers(server.address)).toBe(false);
    const left = await serverProcesses();
    expect(started.filter((pid) => left.has(pid))).toEqual([]);
  });

  it("a server that cannot start (its port taken) fails with the server's log, stopping PostgreSQL and removing its files", async () => {
    const squatter = createServer();
    const taken = await occupyPort(squatter);
    const clusters = async () => (await readdir(tmpdir())).filter((name) => name.startsWith("durable-agents-pg-"));
    const [before, dirsBefore] = [await serverProcesses(), await clusters()];
    try {
      await expect(startTemporal({ local: true, port: taken, log: () => undefined })).rejects.toThrow(/temporal-server exited .*while starting[\s\S]*address already in use/);
    } finally {
      squatter.close();
    }
    expect(newSince(before, await serverProcesses())).toEqual([]);
    expect(await clusters()).toEqual(dirsBefore);
  });
});

/** Listens on a free port low enough for the server's port layout (membership ports sit 300 below and must fit a smallint). */
async function occupyPort(server: Server): Promise<number> {
  for (;;) {
    const port = 21_000 + Math.floor(Math.random() * 10_000);
    const listening = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (listening) return port;
  }
}
