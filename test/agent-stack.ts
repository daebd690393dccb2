/**
 * What the tests and the benchmarks both run agents against: a Temporal server (given, or
 * started here), a client and a native connection to it, one scripted model server, the SDK's
 * workflow bundle (given, or built here), and workers that run in the background until `close()`.
 * No vitest here: the benchmarks import it too.
 */
import { randomUUID } from "node:crypto";
import { Connection, type ConnectionOptions } from "@temporalio/client";
import { NativeConnection, type Worker } from "@temporalio/worker";
import { AgentClient, type AgentClientOptions, type AgentDefinition } from "../src/index.js";
import { openaiModel, bundleAgentWorkflows, createAgentWorker, mintResumeToken, type AgentWorkerOptions } from "../src/worker.js";
import { startTemporal, startScriptedModelServer, type ScriptedModelServer } from "../src/testing/index.js";

/** The deferral secret tests and benches share between workers and clients (32+ bytes). */
export const TEST_SECRET = "test-secret-0123456789-abcdefghijklmnop";

/** What a test's worker changes; `connection` too (the stack's NativeConnection by default; the test closes its own). */
export interface WorkerOverrides extends Partial<Omit<AgentWorkerOptions, "agents">> {
  /** Options for the AgentClient made alongside. */
  client?: Partial<AgentClientOptions>;
}

export interface AgentStackOptions {
  /** A running server to use and leave running; without it one is started and `close()` stops it. */
  temporal?: { address: string; namespace: string };
  /** Progress lines of the server start. */
  log?: (line: string) => void;
  /** Options of the client connection beyond its address. */
  connection?: Omit<ConnectionOptions, "address">;
  /** A workflow bundle built already (the test run builds one for all); without it one is built here. */
  bundle?: AgentStack["bundle"];
}

export interface AgentStack {
  address: string;
  namespace: string;
  connection: Connection;
  native: NativeConnection;
  model: ScriptedModelServer;
  bundle: Awaited<ReturnType<typeof bundleAgentWorkflows>>;
  /** A worker for `agents` on a fresh task queue, running until `close()`, and a client for it. */
  worker(
    agents: AgentDefinition[],
    overrides?: WorkerOverrides,
  ): Promise<{ worker: Worker; agents: AgentClient; taskQueue: string; running: Promise<void> }>;
  /** Runs any worker in the background until `close()`. */
  run(worker: Worker): Promise<void>;
  /** Stops the workers, then closes what was opened here, the server last if it was started here. */
  close(): Promise<void>;
}

export async function startAgentStack(options: AgentStackOptions = {}): Promise<AgentStack> {
  const cleanup: Array<() => Promise<unknown>> = [];
  const close = async (): Promise<void> => {
    const errors: unknown[] = [];
    for (const step of cleanup.splice(0).reverse()) await step().catch((err: unknown) => errors.push(err));
    if (errors.length > 0) throw errors[0];
  };
  try {
    let temporal = options.temporal;
    if (!temporal) {
      const started = await startTemporal({ log: options.log });
      cleanup.push(() => started.stop());
      temporal = started;
    }
    const { address, namespace } = temporal;
    const opened = <T extends { close(): Promise<unknown> }>(resource: Promise<T>): Promise<T> =>
      resource.then((value) => {
        cleanup.push(() => value.close());
        return value;
      });
    const pending = {
      connection: opened(Connection.connect({ ...options.connection, address })),
      native: opened(NativeConnection.connect({ address })),
      model: opened(startScriptedModelServer()),
      bundle: options.bundle ? Promise.resolve(options.bundle) : bundleAgentWorkflows(),
    };
    // Everything settles before the first failure is thrown, so close() finds all that did open.
    await Promise.allSettled(Object.values(pending));
    const connection = await pending.connection;
    const native = await pending.native;
    const model = await pending.model;
    const bundle = await pending.bundle;

    const workers: Array<{ worker: Worker; running: Promise<void> }> = [];
    cleanup.push(async () => {
      // A test may have shut its worker down already; shutting down twice throws.
      for (const w of workers) if (w.worker.getState() === "RUNNING") w.worker.shutdown();
      await Promise.allSettled(workers.map((w) => w.running));
    });
    const run = (worker: Worker): Promise<void> => {
      const running = worker.run();
      workers.push({ worker, running });
      return running;
    };
    return {
      address,
      namespace,
      connection,
      native,
      model,
      bundle,
      async worker(agentDefs, { client: clientOptions, ...overrides } = {}) {
        const taskQueue = overrides.taskQueue ?? `tq-${randomUUID()}`;
        const worker = await createAgentWorker({
          connection: native,
          namespace,
          agents: agentDefs,
          model: openaiModel({ baseURL: model.url, apiKey: "scripted" }),
          workflowBundle: bundle,
          ...overrides,
          taskQueue,
        });
        const running = run(worker);
        const agents = new AgentClient({ connection, namespace, taskQueue, ...clientOptions });
        return { worker, agents, taskQueue, running };
      },
      run,
      close,
    };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}

/**
 * Mints the token a worker handed out (in another process, say) the way an approval
 * service holding the secret would: from the record and the execution it is bound to.
 */
export async function tokenFor(agents: AgentClient, deferralId: string, secret: string = TEST_SECRET): Promise<string> {
  const record = await agents.deferrals.get({ deferralId });
  const { runId: firstRunId } = await agents.client.workflow.getHandle(record.runId).describe();
  const binding = { namespace: agents.client.options.namespace, workflowId: record.runId, firstRunId };
  return mintResumeToken(secret, deferralId, record.toolCallId, { binding });
}
