/**
 * What a read that no worker answers reports (AI1015), decided by what the server says of the
 * task queue's pollers. The server is a stand-in here: an overloaded server that does not
 * answer the diagnosis in time cannot be made on demand with a real one.
 */
import type { Client } from "@temporalio/client";
import { describe, expect, it } from "vitest";
import { WorkerUnavailableError } from "../../src/index.js";
import { boundedQuery } from "../../src/client/bounded-query.js";

const deadlineExceeded = () => Object.assign(new Error("deadline exceeded"), { code: 4, details: "deadline exceeded", metadata: {} });

/** A client whose queries never answer, and whose server says `pollers` of the queue (or, with "silent", nothing in time). */
function stalledClient(pollers: number | "silent") {
  const counts = { queries: 0, diagnoses: 0 };
  const client = {
    options: { namespace: "default" },
    withDeadline: async <T>(_at: number, fn: () => Promise<T>) => fn(),
    workflow: {
      getHandle: () => ({
        describe: async () => {
          counts.diagnoses++;
          if (pollers === "silent") throw deadlineExceeded();
          return { taskQueue: "agents" };
        },
      }),
    },
    workflowService: { describeTaskQueue: async () => ({ pollers: Array.from({ length: pollers === "silent" ? 0 : pollers }, () => ({})) }) },
  } as unknown as Client;
  const query = async () => {
    counts.queries++;
    throw deadlineExceeded();
  };
  return { client, query, counts };
}

describe("boundedQuery", () => {
  it("fails at once when the server says no worker polls the queue", async () => {
    const { client, query, counts } = stalledClient(0);
    const err = await boundedQuery(client, { timeoutMs: 10 }, "run-1", query).catch((e: unknown) => e);
    expect(WorkerUnavailableError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({ code: "AI1015", fields: { taskQueue: "agents", workflowId: "run-1", pollers: 0 } });
    expect((err as Error).message).toMatch(/no worker polls it/);
    expect(counts.queries).toBe(1);
  });

  it("asks again while workers poll, then names them as busy", async () => {
    const { client, query, counts } = stalledClient(2);
    const err = await boundedQuery(client, { timeoutMs: 10 }, "run-1", query).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "AI1015", fields: { pollers: 2 } });
    expect((err as Error).message).toMatch(/2 worker\(s\) polled it lately but none answered/);
    expect(counts.queries).toBe(3);
  });

  it("does not claim that no worker runs when an overloaded server did not say: it asks again, and says the server did not answer", async () => {
    const { client, query, counts } = stalledClient("silent");
    const err = await boundedQuery(client, { timeoutMs: 10, taskQueue: "agents" }, "thread-1", query).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "AI1015", fields: { taskQueue: "agents", workflowId: "thread-1" } });
    expect((err as WorkerUnavailableError).fields.pollers).toBeUndefined();
    expect((err as Error).message).not.toMatch(/no worker polls it/);
    expect((err as Error).message).toMatch(/did not say in time whether a worker polls it/);
    expect(counts.queries).toBe(3);
    expect(counts.diagnoses).toBe(3);
  });
});
