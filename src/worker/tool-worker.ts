import { Worker, type NativeConnection, type WorkerOptions } from "@temporalio/worker";
import { AgentRegistry } from "../../activities/agent-registry.js";
import { createToolActivities } from "../../activities/index.js";
import { resolveDeferralConfig, type DeferralConfig } from "../deferral/config.js";
import type { AgentDefinition } from "../core/define-agent.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import { ToolWorkerPlugin } from "./tool-plugin.js";
import { workerClient } from "./worker-client.js";
import { resolveThreadWorkerOptions, type ThreadWorkerOptions } from "./thread-options.js";

export interface ToolWorkerOptions {
  /** A `NativeConnection` to the Temporal server. */
  connection: NativeConnection;
  /** Default `"default"`. */
  namespace?: string;
  /** The queue named by the tools' `queue` option. */
  taskQueue: string;
  /** The agents whose tools this worker may run (it looks tools up by agent and name). */
  agents: AgentDefinition[];
  /** How many tool calls run at once on this worker: the work pool's size. */
  concurrency: number;
  /**
   * Needed when a tool on this queue defers an agent run, or is an async tool (its callback
   * gets an answer token; without it creation fails with RC5040): the same secret as the agent workers.
   */
  deferral?: DeferralConfig;
  /** Only `stopLatency` matters here: how soon a stopped thread's tool call is cancelled. */
  threads?: Pick<ThreadWorkerOptions, "stopLatency">;
  /**
   * Anything else for Temporal's `Worker.create`, e.g. `maxTaskQueueActivitiesPerSecond` for
   * a rate limit across workers, or the agent workers' `dataConverter` (required when they
   * use a payload codec: tool calls' inputs and results pass through it).
   */
  worker?: Omit<Partial<WorkerOptions>, "connection" | "namespace" | "taskQueue" | "activities" | "workflowsPath" | "workflowBundle">;
}

/**
 * A worker that runs only tool calls (of agent runs and thread turns) from one task queue,
 * at most `concurrency` at a time: Temporal's form of a work pool. Route tools to it with
 * `defineTool({ queue })`; start as many of these as the pool needs, each adding its
 * `concurrency`.
 */
export async function createToolWorker(options: ToolWorkerOptions): Promise<Worker> {
  if (!Number.isInteger(options?.concurrency) || options.concurrency < 1) {
    throw new InvalidDefinitionError({ subject: "createToolWorker", problem: "concurrency must be a positive integer" });
  }
  const namespace = options.namespace ?? "default";
  const registry = new AgentRegistry(options.agents);
  const threads = resolveThreadWorkerOptions(options.threads);
  // The worker's own client: its data converter and codec reach the tools' signals and queries too.
  const client = workerClient();
  const deferral = options.deferral ? resolveDeferralConfig(options.deferral) : undefined;
  registry.assertAnswerTokensMintable(deferral, options.taskQueue);
  const activities = createToolActivities({ registry, client, deferral, settings: threads });
  return Worker.create({
    ...options.worker,
    connection: options.connection,
    namespace,
    taskQueue: options.taskQueue,
    maxConcurrentActivityTaskExecutions: options.concurrency,
    plugins: [...(options.worker?.plugins ?? []), new ToolWorkerPlugin(activities, threads.stopLatencyMs)],
  });
}
