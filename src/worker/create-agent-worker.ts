import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@temporalio/client";
import { bundleWorkflowCode, Worker, type NativeConnection, type WorkerOptions } from "@temporalio/worker";
import { AgentRegistry } from "../../activities/agent-registry.js";
import { createActivities } from "../../activities/index.js";
import type { AgentDefinition } from "../define-agent.js";
import type { Model } from "../model/model.js";

/** The workflow bundle's entry: `.ts` when running from source, `.js` once built. */
export function agentWorkflowsPath(): string {
  const base = new URL("../../workflows/index", import.meta.url);
  const js = fileURLToPath(`${base.href}.js`);
  return existsSync(js) ? js : fileURLToPath(`${base.href}.ts`);
}

/**
 * Bundles the agent workflows once. Bundling takes seconds; pass the result as
 * `workflowBundle` when a process starts several workers.
 */
export function bundleAgentWorkflows(): ReturnType<typeof bundleWorkflowCode> {
  return bundleWorkflowCode({ workflowsPath: agentWorkflowsPath(), logger: quietBundlerLogger });
}

export interface AgentWorkerOptions {
  /** A `NativeConnection` to the Temporal server. Model calls that miss the worker's cache query runs through it. */
  connection: NativeConnection;
  /** Default `"default"`. */
  namespace?: string;
  /** The task queue `AgentClient` starts runs on. */
  taskQueue: string;
  /** The agents this worker can run. */
  agents: AgentDefinition[];
  /** The model provider, e.g. `openaiModel({ baseURL, apiKey })`. */
  model: Model;
  /** A prebuilt bundle from `bundleAgentWorkflows()`; bundled at creation when absent. */
  workflowBundle?: Awaited<ReturnType<typeof bundleWorkflowCode>>;
  /** How many threads the worker keeps in memory so model calls carry only new messages. Default 1000. */
  threadCacheSize?: number;
  /** Anything else for Temporal's `Worker.create` (concurrency, cache size, identity, …). */
  worker?: Omit<Partial<WorkerOptions>, "connection" | "namespace" | "taskQueue" | "activities" | "workflowsPath" | "workflowBundle">;
}

/** Creates a Temporal worker that runs the given agents. Call `run()` on it. */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const namespace = options.namespace ?? "default";
  const registry = new AgentRegistry(options.agents);
  const client = new Client({ connection: options.connection, namespace });
  const activities = createActivities({
    registry,
    model: options.model,
    client,
    ...(options.threadCacheSize !== undefined ? { threadCacheSize: options.threadCacheSize } : {}),
  });
  const workflowBundle = options.workflowBundle ?? (await bundleAgentWorkflows());
  return Worker.create({
    ...options.worker,
    connection: options.connection,
    namespace,
    taskQueue: options.taskQueue,
    activities,
    workflowBundle,
  });
}

// The bundler reports every module at info level; only problems are worth a user's screen.
const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string, meta?: Record<string, unknown>) => console.warn(message, meta ?? ""),
  error: (message: string, meta?: Record<string, unknown>) => console.error(message, meta ?? ""),
};
