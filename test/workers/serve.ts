/**
 * What every child-process worker does: read its env, connect, run an agent worker until
 * SIGTERM, and print "ready" once polling so spawnWorker() knows it can go on. A child of a
 * test inherits DURABLE_AGENTS_TEST_BUNDLE (test/workflow-bundle.ts) and runs the test run's bundle.
 */
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { type AgentDefinition } from "../../src/index.js";
import { openaiModel, createAgentWorker, type AgentWorkerOptions } from "../../src/worker.js";
import { inheritedWorkflowBundle } from "../workflow-bundle.js";

export function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

/** Serves `agents` on TASK_QUEUE at TEMPORAL_ADDRESS with the model at MODEL_URL. */
export async function serveAgents(agents: AgentDefinition[], extra: Partial<AgentWorkerOptions> = {}): Promise<void> {
  Runtime.install({ logger: new DefaultLogger("WARN") });
  const connection = await NativeConnection.connect({ address: env("TEMPORAL_ADDRESS") });
  const worker = await createAgentWorker({
    connection,
    taskQueue: env("TASK_QUEUE"),
    agents,
    model: openaiModel({ baseURL: env("MODEL_URL"), apiKey: "test" }),
    // The test run's bundle when a test spawned this worker; a bench's worker bundles itself.
    ...inheritedWorkflowBundle(),
    // STICKY_TIMEOUT: a bench compares crash recovery under Temporal's own default.
    ...(process.env.STICKY_TIMEOUT ? { worker: { stickyQueueScheduleToStartTimeout: process.env.STICKY_TIMEOUT } } : {}),
    ...extra,
  });
  const running = worker.run();
  console.log("ready");
  process.on("SIGTERM", () => worker.shutdown());
  await running;
  await connection.close();
}
