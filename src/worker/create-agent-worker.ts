import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@temporalio/client";
import { bundleWorkflowCode, Worker, type InjectedSinks, type NativeConnection, type WorkerOptions } from "@temporalio/worker";
import { AgentRegistry } from "../../activities/agent-registry.js";
import { createActivities } from "../../activities/index.js";
import type { DeferralEvent } from "../core/deferral-record.js";
import type { DurableAgentsSinks } from "../core/sinks.js";
import { resolveDeferralConfig, type DeferralConfig } from "../deferral/config.js";
import type { AgentDefinition } from "../core/define-agent.js";
import type { Model } from "../core/model.js";
import { resolveThreadWorkerOptions, type ThreadWorkerOptions } from "../threads/worker-options.js";

/** The workflow bundle's entry: `.ts` when running from source, `.js` once built. */
export function agentWorkflowsPath(): string {
  const base = new URL("../../workflows/index", import.meta.url);
  const js = fileURLToPath(`${base.href}.js`);
  return existsSync(js) ? js : fileURLToPath(`${base.href}.ts`);
}

/**
 * Bundles the agent workflows (plus your own, from `workflowsPath`) once. Bundling takes
 * seconds; pass the result as `workflowBundle` when a process starts several workers.
 */
export function bundleAgentWorkflows(options: { workflowsPath?: string } = {}): ReturnType<typeof bundleWorkflowCode> {
  if (!options.workflowsPath) return bundleWorkflowCode({ workflowsPath: agentWorkflowsPath(), logger: quietBundlerLogger });
  // The generated entry lives in a temp dir: let it resolve packages from where the SDK's resolve.
  const sdkModules = dirname(dirname(dirname(createRequire(import.meta.url).resolve("@temporalio/workflow/package.json"))));
  return bundleWorkflowCode({
    workflowsPath: combinedEntry(options.workflowsPath),
    logger: quietBundlerLogger,
    webpackConfigHook: (config) => ({
      ...config,
      resolve: { ...config.resolve, modules: [...(config.resolve?.modules ?? ["node_modules"]), sdkModules] },
    }),
  });
}

// One bundle holds one entry module: re-export the agent workflows and the user's from a generated one.
function combinedEntry(userWorkflowsPath: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "durable-agents-bundle-")), "workflows.ts");
  writeFileSync(
    file,
    `export * from ${JSON.stringify(agentWorkflowsPath())};\nexport * from ${JSON.stringify(resolve(userWorkflowsPath))};\n`,
  );
  return file;
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
  /**
   * Enables deferral: the secret that signs resume tokens (the same on every client) and
   * the default TTL. Without it, a tool that defers fails with RC5052.
   */
  deferral?: DeferralConfig;
  /**
   * Listeners for deferral transitions. Each fires once per transition in the worker that
   * made it, never again when a workflow replays.
   */
  on?: Partial<Record<DeferralEvent["type"], (event: DeferralEvent) => void>>;
  /** Your own activities, registered next to the SDK's (for your own workflows). */
  activities?: Record<string, (...args: any[]) => Promise<unknown>>;
  /** Your own workflows (e.g. ones using `defer()` from `durable-agents/workflow`), bundled alongside. */
  workflowsPath?: string;
  /** A prebuilt bundle from `bundleAgentWorkflows()`; bundled at creation when absent. */
  workflowBundle?: Awaited<ReturnType<typeof bundleWorkflowCode>>;
  /** How many threads the worker keeps in memory so model calls carry only new messages. Default 1000. */
  threadCacheSize?: number;
  /** Chat threads: status hook, how fast a stop lands, streaming batches, model retries. */
  threads?: ThreadWorkerOptions;
  /** Anything else for Temporal's `Worker.create` (concurrency, cache size, identity, …). */
  worker?: Omit<Partial<WorkerOptions>, "connection" | "namespace" | "taskQueue" | "activities" | "workflowsPath" | "workflowBundle">;
}

/** Creates a Temporal worker that runs the given agents. Call `run()` on it. */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const namespace = options.namespace ?? "default";
  const registry = new AgentRegistry(options.agents);
  const deferral = options.deferral ? resolveDeferralConfig(options.deferral) : undefined;
  const client = new Client({ connection: options.connection, namespace });
  const threads = resolveThreadWorkerOptions(options.threads);
  const activities = createActivities({
    threads,
    registry,
    model: options.model,
    client,
    ...(deferral ? { deferral } : {}),
    ...(options.threadCacheSize !== undefined ? { threadCacheSize: options.threadCacheSize } : {}),
  });
  const workflowBundle =
    options.workflowBundle ?? (await bundleAgentWorkflows(options.workflowsPath ? { workflowsPath: options.workflowsPath } : {}));
  return Worker.create({
    // Cancellation reaches an activity only in answer to a heartbeat: this bounds how long a stopped thread's calls run on.
    maxHeartbeatThrottleInterval: threads.stopLatencyMs,
    ...options.worker,
    connection: options.connection,
    namespace,
    taskQueue: options.taskQueue,
    activities: { ...options.activities, ...activities },
    workflowBundle,
    sinks: { ...options.worker?.sinks, ...eventSinks(options.on) },
  });
}

function eventSinks(listeners: AgentWorkerOptions["on"] = {}): InjectedSinks<DurableAgentsSinks> {
  return {
    durableAgents: {
      event: {
        fn: (_info, event) => {
          try {
            listeners[event.type]?.(event);
          } catch (err) {
            // A failing listener must not fail the workflow task that reported the event.
            console.error(`durable-agents: the "${event.type}" listener threw`, err);
          }
        },
        callDuringReplay: false,
      },
    },
  };
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
