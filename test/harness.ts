/**
 * Shared test plumbing: a client and native connection to the suite's Temporal server,
 * one scripted model server, one workflow bundle, and workers on fresh task queues.
 */
import { randomUUID } from "node:crypto";
import { Connection } from "@temporalio/client";
import { DefaultLogger, NativeConnection, Runtime, type Worker } from "@temporalio/worker";
import { inject } from "vitest";
import { AgentClient } from "../src/client/agent-client.js";
import type { AgentDefinition } from "../src/define-agent.js";
import { openaiModel } from "../src/model/openai.js";
import { startScriptedModelServer, type ScriptedModelServer } from "../src/testing/scripted-model-server.js";
import { bundleAgentWorkflows, createAgentWorker } from "../src/worker/create-agent-worker.js";

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
  worker(agents: AgentDefinition[], taskQueue?: string): Promise<{ worker: Worker; agents: AgentClient; taskQueue: string; running: Promise<void> }>;
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
    async worker(agentDefs, taskQueue = `tq-${randomUUID()}`) {
      const worker = await createAgentWorker({
        connection: native,
        namespace,
        taskQueue,
        agents: agentDefs,
        model: openaiModel({ baseURL: model.url, apiKey: "test" }),
        workflowBundle: bundle,
      });
      const running = worker.run();
      workers.push({ worker, running });
      return { worker, agents: new AgentClient({ connection, namespace, taskQueue }), taskQueue, running };
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
