/**
 * The dev-server helper itself. Uses its OWN server with a SQLite file (not the shared one
 * from global-setup) because it restarts it. No worker: a started workflow just sits on its
 * task queue, which is enough to prove state survives a restart.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, Connection } from "@temporalio/client";
import { defineSearchAttributeKey, SearchAttributeType } from "@temporalio/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SEARCH_ATTRIBUTES,
  startTemporal,
  TemporalUnavailableError,
  type TemporalServerHandle,
} from "../src/testing/dev-server.js";

const DeferralStatus = defineSearchAttributeKey("DeferralStatus", SearchAttributeType.KEYWORD);

async function withClient<T>(server: TemporalServerHandle, fn: (client: Client, connection: Connection) => Promise<T>) {
  const connection = await Connection.connect({ address: server.address });
  try {
    return await fn(new Client({ connection, namespace: server.namespace }), connection);
  } finally {
    await connection.close();
  }
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

  it("owns the server and registers our search attributes", async () => {
    expect(server.owned).toBe(true);
    expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
    const { customAttributes } = await withClient(server, (_client, connection) =>
      connection.operatorService.listSearchAttributes({ namespace: server.namespace }),
    );
    for (const name of Object.keys(SEARCH_ATTRIBUTES)) {
      expect(customAttributes ?? {}, name).toHaveProperty(name);
    }
  });

  it("keeps a running workflow across restart()", async () => {
    const workflowId = `persist-${Date.now()}`;
    const runId = await withClient(server, async (client) => {
      const handle = await client.workflow.start("noWorkerWorkflow", {
        taskQueue: "no-worker-here",
        workflowId,
        typedSearchAttributes: [{ key: DeferralStatus, value: "pending" }],
      });
      return handle.firstExecutionRunId;
    });

    const restartedAt = performance.now();
    await server.restart();
    console.info(`dev server restart: ${Math.round(performance.now() - restartedAt)}ms`);

    const description = await withClient(server, (client) => client.workflow.getHandle(workflowId).describe());
    expect(description.runId).toBe(runId);
    expect(description.status.name).toBe("RUNNING");
    expect(description.typedSearchAttributes.get(DeferralStatus)).toBe("pending");

    await withClient(server, (client) => client.workflow.getHandle(workflowId).terminate("test done"));
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
