/**
 * Shared test plumbing: a client and native connection to the suite's Temporal server,
 * one scripted model server, one workflow bundle, and workers on fresh task queues.
 */
import { randomUUID } from "node:crypto";
import { Connection } from "@temporalio/client";
import { DefaultLogger, NativeConnection, Runtime, type Worker } from "@temporalio/worker";
import { inject } from "vitest";
import { AgentClient, type AgentClientOptions } from "../src/client/agent-client.js";
import type { AgentDefinition } from "../src/core/define-agent.js";
import { openaiModel } from "../src/model/openai.js";
import { startScriptedModelServer, type ScriptedModelServer } from "../src/testing/scripted-model-server.js";
import { bundleAgentWorkflows, createAgentWorker, type AgentWorkerOptions } from "../src/worker/create-agent-worker.js";

/** The secret tests share between workers and clients (32+ bytes). */
export const SECRET = "test-secret-0123456789-abcdefghijklmnop";

export interface WorkerOverrides extends Partial<Omit<AgentWorkerOptions, "connection" | "agents" | "model">> {
  /** Options for the AgentClient made alongside. */
  client?: Partial<AgentClientOptions>;
}

// Expected failures (max turns, unknown agents) would otherwise fill the output with warnings.
Runtime.install({ logger: new DefaultLogger("ERROR") });

export interface Harness {
  address: string;
  namespace: string;
  connection: Connection;
  native: NativeConnection;
  model: ScriptedModelServer;
  bundle: Awaited<ReturnType<typeof bundleAgentWorkflows>>;
  /** A worker for `agents` on a fresh task queue (running in the background) and a client for it. */
  worker(
    agents: AgentDefinition[],
    overrides?: WorkerOverrides,
  ): Promise<{ worker: Worker; agents: AgentClient; taskQueue: string; running: Promise<void> }>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const address = inject("temporalAddress");
  const namespace = inject("temporalNamespace");
  const [connection, native, model, bundle] = await Promise.all([
    Connection.connect({ address }),
    NativeConnection.connect({ address }),
    startScriptedModelServer(),
    bundleAgentWorkflows(),
  ]);
  const workers: Array<{ worker: Worker; running: Promise<void> }> = [];
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
        model: openaiModel({ baseURL: model.url, apiKey: "test" }),
        workflowBundle: bundle,
        ...overrides,
        taskQueue,
      });
      const running = worker.run();
      workers.push({ worker, running });
      const agents = new AgentClient({ connection, namespace, taskQueue, ...clientOptions });
      return { worker, agents, taskQueue, running };
    },
    async close() {
      for (const w of workers) if (w.worker.getState() === "RUNNING") w.worker.shutdown();
      await Promise.allSettled(workers.map((w) => w.running));
      await model.close();
      await native.close();
      await connection.close();
    },
  };
}

export const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Narrows a run's settled state to a completed result; fails the test on a deferral. */
export async function completed<T extends { status: string }>(settled: Promise<T>): Promise<Extract<T, { status: "completed" }>> {
  const value = await settled;
  if (value.status !== "completed") throw new Error(`expected the run to complete, it settled as ${JSON.stringify(value)}`);
  return value as Extract<T, { status: "completed" }>;
}
