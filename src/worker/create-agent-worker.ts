import type { PayloadCodec } from "@temporalio/common";
import { bundleWorkflowCode, Worker, type BundleOptions, type NativeConnection, type WorkerOptions, type WorkerPlugin } from "@temporalio/worker";
import { defaultStreamTransport } from "../stream/default.js";
import { isDirectStreamTransport } from "../stream/direct.js";
import type { StreamTransport } from "../stream/transport.js";
import { durableAgentsPlugin, type DurableAgentsPluginOptions } from "./plugin.js";
import { agentWorkflowsPath, withAgentWorkflows } from "./workflow-modules.js";

export { agentWorkflowsPath };

/**
 * Bundles the agent workflows (plus your own, from `workflowsPath`) once. Bundling takes
 * seconds; pass the result as `workflowBundle` when a process starts several workers.
 * Everything else is `bundleWorkflowCode`'s: pass `workflowInterceptorModules` here, since
 * a worker given a bundle ignores its `interceptors.workflowModules`.
 */
export function bundleAgentWorkflows(
  options: Partial<Omit<BundleOptions, "plugins">> = {},
): ReturnType<typeof bundleWorkflowCode> {
  return bundleWorkflowCode(withAgentWorkflows({ logger: quietBundlerLogger, ...options, workflowsPath: options.workflowsPath ?? agentWorkflowsPath() }));
}

export interface AgentWorkerOptions extends DurableAgentsPluginOptions {
  /** A `NativeConnection` to the Temporal server; the activities' queries and signals go through it too. */
  connection: NativeConnection;
  /** Default `"default"`. */
  namespace?: string;
  /** The task queue `AgentClient` starts runs on. */
  taskQueue: string;
  /** Your own activities, registered next to the SDK's (for your own workflows). */
  activities?: Record<string, (...args: any[]) => Promise<unknown>>;
  /** Your own workflows (e.g. ones using `defer()` from `durable-agents/workflow`), bundled alongside. */
  workflowsPath?: string;
  /** A prebuilt bundle from `bundleAgentWorkflows()`; without it the worker bundles at creation. */
  workflowBundle?: Awaited<ReturnType<typeof bundleWorkflowCode>>;
  /**
   * Anything else for Temporal's `Worker.create`: concurrency, cache size, identity, and
   * `dataConverter` (a payload codec reaches the SDK's own queries and signals too),
   * `interceptors` (workflow interceptor modules apply to agent runs and threads; with a
   * `workflowBundle`, give them to `bundleAgentWorkflows` instead), further `plugins`.
   */
  worker?: Omit<Partial<WorkerOptions>, "connection" | "namespace" | "taskQueue" | "activities" | "workflowsPath" | "workflowBundle">;
}

/**
 * Creates a Temporal worker that runs the given agents. Call `run()` on it. A shorthand
 * for `Worker.create` with `durableAgentsPlugin`, which you can use directly instead.
 * Given no `threads.stream.transport`, it streams answers on a `directStreamTransport` of
 * its own (this host's private address, a free port, the worker's payload codecs), which it closes
 * when the worker stops; the plugin alone streams by signal.
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const { connection, namespace, taskQueue, activities, workflowsPath, worker, ...given } = options;
  const { plugin, owned } = withDefaultTransport(given, worker?.dataConverter?.payloadCodecs ?? []);
  // A direct stream transport's endpoint listens before the worker exists: the plugin checks it, and announces it while the worker runs.
  const transport = plugin.threads?.stream ? plugin.threads.stream.transport : undefined;
  if (isDirectStreamTransport(transport)) await transport.listen();
  // Bundled here rather than by Temporal, when nothing of the worker's shapes the bundle:
  // the plugin then knows the code, and gives the worker a short build id from it.
  const workflowBundle = options.workflowBundle ?? (workflowsPath || shapesBundle(worker, connection) ? undefined : await bundleAgentWorkflows());
  return Worker.create({
    ...worker,
    connection,
    namespace: namespace ?? "default",
    taskQueue,
    ...(activities ? { activities } : {}),
    ...(workflowBundle ? { workflowBundle } : workflowsPath ? { workflowsPath } : {}),
    plugins: [...(worker?.plugins ?? []), durableAgentsPlugin(plugin), ...(owned ? [closesWhenDone(owned)] : [])],
  });
}

/**
 * The worker's options with the default stream transport filled in when streaming is on
 * and no transport is named; `owned` is that transport, which the worker closes when it stops.
 */
function withDefaultTransport(plugin: DurableAgentsPluginOptions, codecs: readonly PayloadCodec[]): { plugin: DurableAgentsPluginOptions; owned?: StreamTransport } {
  const stream = plugin.threads?.stream;
  // Anything but an object (false, or a wrong value the plugin refuses with AI1001) stays as given.
  if (stream === false || (stream !== undefined && (typeof stream !== "object" || stream === null)) || stream?.transport !== undefined) return { plugin };
  const owned = defaultStreamTransport(codecs);
  return { plugin: { ...plugin, threads: { ...plugin.threads, stream: { ...stream, transport: owned } } }, owned };
}

/** Closes the worker's own stream endpoint once the worker has stopped. */
function closesWhenDone(transport: StreamTransport): WorkerPlugin {
  return {
    name: "durable-agents-stream",
    async runWorker(worker, next) {
      try {
        await next(worker);
      } finally {
        await transport.close();
      }
    },
  };
}

/** True when a worker option goes into the workflow bundle Temporal would build. */
function shapesBundle(worker: AgentWorkerOptions["worker"], connection: NativeConnection): boolean {
  return Boolean(
    worker?.interceptors?.workflowModules?.length ||
      worker?.dataConverter?.payloadConverterPath ||
      worker?.dataConverter?.failureConverterPath ||
      worker?.bundlerOptions ||
      worker?.plugins?.length ||
      connection.plugins?.length,
  );
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
