/**
 * Waiting for a run writes nothing to its history: `run()` and `settled()` read (the run's
 * search attributes, its history's new events, the deferral record) instead of sending
 * an update. A parked run polled any number of times keeps the history it had, and a run
 * Temporal closed under it (terminated, timed out) reads AI1014.
 */
import { randomUUID } from "node:crypto";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { NativeConnection } from "@temporalio/worker";
import { serveParkBells } from "../src/stream/park-bell.js";
import { kill, spawnWorker } from "./workers/spawn.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AgentClient, defineAgent, RunTerminatedError, type DeferredAck } from "../src/index.js";
import { settledUpdate } from "../src/workflow.js";
import { approvalOptions, gatedAgent, linkFor, outbox, payoutAgent } from "./fixtures/approvals.js";
import { weatherAgent } from "./fixtures/agents.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";

let h: Harness;
let agents: AgentClient;
let taskQueue: string;

const patient = defineAgent({
  ...approvalOptions,
  id: "payouts-reasking",
  onExpired: (expired, ctx) => {
    outbox.push({ runId: ctx.runId, tool: "reask", toolCallId: ctx.toolCallId, deferralId: ctx.deferralId, token: ctx.deferral.token, restored: ctx.restored });
    return ctx.defer({ meta: expired.meta, ttl: "1h" });
  },
});

beforeAll(async () => {
  h = await startHarness();
  ({ agents, taskQueue } = await h.worker([payoutAgent, weatherAgent, patient, gatedAgent], {
    deferral: { secret: SECRET },
    client: { deferral: { secret: SECRET } },
  }));
});
afterAll(() => h?.close());

const historyLength = async (runId: string) => Number((await agents.workflowHandle(runId).describe()).historyLength);

/** The run's history holds no update: waiting for it never wrote one. */
async function updatesIn(runId: string): Promise<number> {
  const { events } = await agents.workflowHandle(runId).fetchHistory();
  return (events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionUpdateAdmittedEventAttributes).length;
}

/** Records the type of every query this client sends until the spy is restored. */
function spyQueries() {
  const service = agents.client.workflowService;
  const queries: string[] = [];
  const original = service.queryWorkflow.bind(service);
  const spy = vi.spyOn(service, "queryWorkflow").mockImplementation((request, ...rest) => {
    queries.push(request.query?.queryType ?? "");
    return original(request, ...rest);
  });
  return { queries, spy };
}

async function deferredRun(): Promise<{ runId: string; ack: DeferredAck }> {
  const runId = uid("settle");
  h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 5 } }] }, { text: "Paid 5." }]);
  const ack = await agents.run(payoutAgent, { prompt: runId, runId });
  if (ack.status !== "deferred") throw new Error(`expected a deferral, got ${JSON.stringify(ack)}`);
  return { runId, ack };
}

/** Runs `count` calls, at most `concurrency` at once. */
async function pooled<T>(count: number, concurrency: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await call(i);
      }
    }),
  );
  return results;
}

describe("waiting writes no history", () => {
  it("answers 200 settled() calls, 20 at a time, on a parked run with its acknowledgment, and its history stays as it was", async () => {
    const { runId, ack } = await deferredRun();
    expect(ack).toMatchObject({ status: "deferred", deferralId: linkFor(runId).deferralId });
    expect(await updatesIn(runId)).toBe(0);
    const before = await historyLength(runId);

    // A call that wrote even one event would show in the length; 20 at once is past the 10
    // updates Temporal lets one workflow hold in flight.
    const acks = await pooled(200, 20, () => agents.handle(runId).settled());
    for (const each of acks) expect(each).toEqual(ack);
    // run() on the same id attaches to the parked run and answers the same.
    expect(await agents.run(payoutAgent, { prompt: runId, runId })).toEqual(ack);
    expect(await historyLength(runId)).toBe(before);

    // The same object the workflow's own settled update (kept for older clients) answers with.
    expect(await agents.workflowHandle(runId).executeUpdate(settledUpdate)).toEqual(ack);
  });

  it("answers a deferral with a schema from the run's history, with no billed query: the same acknowledgment its record gives", async () => {
    const { runId } = await deferredRun();
    const { queries, spy } = spyQueries();
    try {
      const ack = await agents.handle(runId).settled();
      expect(ack).toEqual({ status: "deferred", deferralId: linkFor(runId).deferralId, schema: expect.objectContaining({ type: "object" }), expiresAt: expect.any(String) });
      // The status line (Temporal's metadata query, not billed) and nothing else.
      expect(queries.filter((q) => q !== "__temporal_workflow_metadata")).toEqual([]);
      spy.mockRestore();
      expect(await agents.workflowHandle(runId).executeUpdate(settledUpdate)).toEqual(ack);
    } finally {
      spy.mockRestore();
    }
  });

  it("returns the result of a run that completes, with no update in its history", async () => {
    const runId = uid("settle-done");
    h.model.script(runId, [{ toolCalls: [{ name: "getWeather", arguments: { city: "Oslo" } }] }, { text: "Cold in Oslo." }]);
    const result = await agents.run(weatherAgent, { prompt: runId, runId });
    expect(result).toMatchObject({ status: "completed", text: "Cold in Oslo.", turnsUsed: 2 });
    expect(await updatesIn(runId)).toBe(0);
    // Settling a run that already closed reads its result.
    await expect(agents.handle(runId).settled()).resolves.toMatchObject({ status: "completed", text: "Cold in Oslo." });
  });

  it("wakes a settled() that started while the run was still working once it parks, a few turns in", async () => {
    const runId = uid("settle-later");
    // The first answer waits until the settled() is under way.
    const hold = h.model.hold();
    h.model.script(runId, [
      { toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }], hold },
      { toolCalls: [{ name: "sendPayout", arguments: { amount: 2 } }] },
      { toolCalls: [{ name: "askApproval", arguments: { amount: 3 } }] },
    ]);
    const handle = await agents.start(payoutAgent, { prompt: runId, runId });
    const settling = handle.settled();
    // The wait began before the run parked: its first model call had not been answered yet.
    await hold.reached;
    expect((await agents.state({ runId })).status).toBe("running");
    hold.release();
    const ack = await settling;
    expect(ack).toEqual({ status: "deferred", deferralId: linkFor(runId).deferralId, schema: expect.any(Object), expiresAt: expect.any(String) });
    expect((await agents.state({ runId })).turnsUsed).toBe(3);
    expect(await updatesIn(runId)).toBe(0);
  });

  it("acknowledges a park it saw happen from the history alone, with no query at all: a handler's schema and a gated call's approval", async () => {
    const { queries, spy } = spyQueries();
    const watched = async (agent: typeof payoutAgent, call: { name: string; arguments: Record<string, unknown> }) => {
      const runId = uid("settle-watched");
      const hold = h.model.hold();
      h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }], hold }, { toolCalls: [call] }]);
      const settling = (await agents.start(agent, { prompt: runId, runId })).settled();
      await hold.reached;
      hold.release();
      return { runId, ack: await settling };
    };
    try {
      const schema = await watched(payoutAgent, { name: "askApproval", arguments: { amount: 3 } });
      const gated = await watched(gatedAgent, { name: "gatedPayout", arguments: { amount: 3 } });
      expect(queries).toEqual([]);
      spy.mockRestore();
      expect(schema.ack).toMatchObject({ status: "deferred", schema: expect.objectContaining({ type: "object" }) });
      expect(gated.ack).toMatchObject({ status: "deferred" });
      expect(gated.ack).not.toHaveProperty("schema");
      // Exactly what the workflow itself acknowledges, expiry to the millisecond.
      for (const { runId, ack } of [schema, gated]) expect(await agents.workflowHandle(runId).executeUpdate(settledUpdate)).toEqual(ack);
    } finally {
      spy.mockRestore();
    }
  });

  it("wakes again when the run re-asks after an expiry: the acknowledgment of the new deferral", async () => {
    const runId = uid("settle-reask");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 3, ttl: "1s" } }] }]);
    const first = await agents.run(patient, { prompt: runId, runId });
    expect(first).toMatchObject({ status: "deferred", deferralId: linkFor(runId).deferralId });
    const fresh = await vi.waitFor(async () => {
      const ack = await agents.handle(runId).settled();
      if (ack.status !== "deferred" || ack.deferralId === linkFor(runId).deferralId) throw new Error("still the first deferral");
      return ack;
    }, { timeout: 15_000, interval: 50 });
    expect(fresh.status === "deferred" && fresh.deferralId).toBe(linkFor(runId, "reask").deferralId);
    expect(await updatesIn(runId)).toBe(0);
  });
});

describe("inProcessParks: a worker in the caller's process", () => {
  /** Every read of `runId`'s history through `agents`' connection hangs until the returned release. */
  const holdHistoryReads = (runId: string) => {
    const service = agents.client.workflowService;
    const held: Array<() => void> = [];
    const original = service.getWorkflowExecutionHistory.bind(service);
    const spy = vi.spyOn(service, "getWorkflowExecutionHistory").mockImplementation(async (request, ...rest) => {
      if (request.execution?.workflowId === runId) await new Promise<void>((resolve) => held.push(resolve));
      return original(request, ...rest);
    });
    return {
      held: () => held.length,
      release: () => {
        spy.mockRestore();
        for (const resume of held) resume();
      },
    };
  };
  const deferralStatus = async (runId: string) =>
    (await agents.workflowHandle(runId).describe()).typedSearchAttributes.getAll().find((pair) => pair.key.name === "DeferralStatus")?.value;

  it("hands run() the park's acknowledgment once Temporal has stored it, while the history cannot be read: the one the workflow gives", async () => {
    // The default: no option set.
    const told = new AgentClient({ client: agents.client, taskQueue, deferral: { secret: SECRET } });
    const runId = uid("settle-bell");
    h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }] }, { toolCalls: [{ name: "askApproval", arguments: { amount: 3 } }] }]);
    const reads = holdHistoryReads(runId);
    let ack: Awaited<ReturnType<typeof agents.run>>;
    let statusWhenAnswered: unknown;
    try {
      ack = await told.run(payoutAgent, { prompt: runId, runId });
      // Read at once, before anything else: the park is already stored and listed.
      statusWhenAnswered = await deferralStatus(runId);
      expect(reads.held()).toBeGreaterThan(0);
    } finally {
      reads.release();
    }
    expect(statusWhenAnswered).toBe("deferred");
    expect(ack).toEqual({ status: "deferred", deferralId: linkFor(runId).deferralId, schema: expect.objectContaining({ type: "object" }), expiresAt: expect.any(String) });
    // Exactly what the workflow acknowledges once the park is stored, expiry to the millisecond.
    expect(await agents.workflowHandle(runId).executeUpdate(settledUpdate)).toEqual(ack);
    // And what a caller reading the history alone is told.
    expect(await agents.handle(runId).settled()).toEqual(ack);
  });

  it("answers only once Temporal has stored the park, however late the worker's completion reaches it", async () => {
    // The worker reaches the server through a proxy that holds what it sends from the moment
    // the run parks: a bell rung as the workflow parks would answer while the park is unsent.
    const proxy = await holdingProxy(h.address);
    const slow = await NativeConnection.connect({ address: proxy.address });
    const runId = uid("settle-stored");
    const { worker, running, agents: told } = await h.worker([payoutAgent], {
      connection: slow,
      deferral: { secret: SECRET },
      // Listeners run as the parking activation ends, before its completion is sent.
      on: { deferred: (event) => void (event.runId === runId && proxy.hold()) },
      client: { deferral: { secret: SECRET } },
    });
    try {
      h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 3 } }] }]);
      let answered = false;
      const answer = told.run(payoutAgent, { prompt: runId, runId }).then((ack) => ((answered = true), ack));
      await proxy.holding;
      const timers = async () => ((await agents.workflowHandle(runId).fetchHistory()).events ?? []).filter((e) => e.timerStartedEventAttributes).length;
      // The worker has sent its completion into the proxy, which holds it: nothing is stored, nothing answered.
      expect(await timers()).toBe(0);
      expect(answered).toBe(false);
      proxy.release();
      const ack = await answer;
      // Read at once: the park's timer (it names the deferral) is in the history.
      expect(await timers()).toBe(1);
      expect(ack.status).toBe("deferred");
    } finally {
      proxy.release();
      worker.shutdown();
      await running;
      await slow.close();
      await proxy.close();
    }
  });

  it("still answers from the history when the run parks on a worker in another process, though one here serves the queue", async () => {
    const queue = uid("settle-elsewhere");
    const child = await spawnWorker("approval-worker", { TEMPORAL_ADDRESS: h.address, NAMESPACE: h.namespace, TASK_QUEUE: queue, MODEL_URL: h.model.url, SECRET });
    // As if a worker of this process polled the queue too: its bell will never ring for this run.
    const serving = serveParkBells({ namespace: h.namespace, taskQueue: queue });
    try {
      const told = new AgentClient({ client: agents.client, taskQueue: queue, deferral: { secret: SECRET } });
      const runId = uid("settle-elsewhere");
      h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 3 } }] }]);
      expect(await told.run(payoutAgent, { prompt: runId, runId })).toEqual({ status: "deferred", deferralId: expect.any(String), schema: expect.any(Object), expiresAt: expect.any(String) });
    } finally {
      serving();
      await kill(child, "SIGTERM");
    }
  });

  it("with inProcessParks: false, answers from the history only", async () => {
    const reader = new AgentClient({ client: agents.client, taskQueue, deferral: { secret: SECRET }, inProcessParks: false });
    const runId = uid("settle-no-bell");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 3 } }] }]);
    const reads = holdHistoryReads(runId);
    let answered = false;
    let running: Promise<Awaited<ReturnType<typeof agents.run>>>;
    try {
      running = reader.run(payoutAgent, { prompt: runId, runId });
      void running.then(() => (answered = true), () => undefined);
      await vi.waitFor(async () => expect(await deferralStatus(runId)).toBe("deferred"), { timeout: 15_000 });
      // A workflow task after the park's: a bell would have rung by now.
      await agents.workflowHandle(runId).executeUpdate(settledUpdate);
      expect(answered).toBe(false);
    } finally {
      reads.release();
    }
    expect(await running).toEqual(await agents.workflowHandle(runId).executeUpdate(settledUpdate));
  });

  it("refuses an inProcessParks that is not a boolean with AI1001, before anything is sent", () => {
    expect(() => new AgentClient({ client: agents.client, taskQueue, inProcessParks: "yes" as never })).toThrow(expect.objectContaining({ code: "AI1001" }));
  });
});

describe("a run Temporal closed before it finished", () => {
  it("reads AI1014 from settled() and result() once terminated, with the operator's reason", async () => {
    const { runId } = await deferredRun();
    await agents.workflowHandle(runId).terminate("operator stopped it");
    for (const read of [() => agents.handle(runId).settled(), () => agents.result({ runId }), () => agents.run(payoutAgent, { prompt: runId, runId })]) {
      const err = await read().catch((e: unknown) => e);
      expect(RunTerminatedError.isInstance(err)).toBe(true);
      expect(err).toMatchObject({ code: "AI1014", fields: { runId, closedAs: "terminated", reason: "operator stopped it" } });
    }
  });

  it("rejects a settled() already waiting when the run is terminated under it", async () => {
    const runId = uid("settle-terminated");
    // The model never answers: the run is terminated while its call waits.
    const hold = h.model.hold();
    h.model.script(runId, [{ toolCalls: [{ name: "sendPayout", arguments: { amount: 1 } }], hold }]);
    const handle = await agents.start(payoutAgent, { prompt: runId, runId });
    const settling = handle.settled().catch((e: unknown) => e);
    await hold.reached;
    await agents.workflowHandle(runId).terminate();
    expect(await settling).toMatchObject({ code: "AI1014", fields: { runId, closedAs: "terminated" } });
  });

  it("reads AI1014 for a run that timed out (a Temporal execution timeout)", async () => {
    const runId = uid("settle-timeout");
    h.model.script(runId, [{ toolCalls: [{ name: "askApproval", arguments: { amount: 1 } }] }]);
    await agents.client.workflow.start("agentRun", {
      workflowId: runId,
      taskQueue,
      args: [{ version: 1, agentId: payoutAgent.id, prompt: runId }],
      workflowExecutionTimeout: "2s",
    });
    const err = await agents.result({ runId }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "AI1014", fields: { runId, closedAs: "timed-out" } });
    await expect(agents.handle(runId).settled()).rejects.toMatchObject({ code: "AI1014" });
  });
});

describe("hostile and odd input", () => {
  it("reads AI1010 for a run that does not exist", async () => {
    await expect(agents.handle(`nobody-${randomUUID()}`).settled()).rejects.toMatchObject({ code: "AI1010" });
  });
});

/**
 * A TCP proxy to `target`. After `hold()`, what the client sends is kept back (in order)
 * until `release()`; `holding` resolves once something was kept back. Answers pass at once.
 */
async function holdingProxy(target: string) {
  const [host, port] = [target.slice(0, target.lastIndexOf(":")), Number(target.slice(target.lastIndexOf(":") + 1))];
  const sockets = new Set<Socket>();
  let held: Array<() => void> | undefined;
  let kept!: () => void;
  const holding = new Promise<void>((resolve) => (kept = resolve));
  const forward = (send: () => void) => {
    if (!held) return send();
    held.push(send);
    kept();
  };
  const server = createServer((inbound) => {
    const outbound = connect(port, host);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
    inbound.on("data", (chunk) => forward(() => outbound.write(chunk)));
    inbound.on("end", () => forward(() => outbound.end()));
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    holding,
    hold: () => void (held ??= []),
    release: () => {
      const sends = held ?? [];
      held = undefined;
      for (const send of sends) send();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
