import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { SimplePlugin } from "@temporalio/plugin";
import type { BundleOptions, InjectedSinks, ReplayWorkerOptions, Worker, WorkerOptions } from "@temporalio/worker";
import { AgentRegistry } from "../../activities/agent-registry.js";
import { createActivities } from "../../activities/index.js";
import type { AgentDefinition } from "../core/define-agent.js";
import type { DeferralEvent } from "../core/deferral-record.js";
import type { Model } from "../core/model.js";
import type { DurableAgentsSinks } from "../core/sinks.js";
import type { StreamTransport } from "../stream/transport.js";
import { isDirectStreamTransport, type DirectStreamTransport } from "../stream/direct.js";
import { startBeacon } from "../stream/direct-beacon.js";
import { StreamTransportInvalidError } from "../core/errors/setup.js";
import { resolveDeferralConfig, type DeferralConfig } from "../deferral/config.js";
import { AgentTelemetry } from "../otel/agent-telemetry.js";
import { resolveThreadWorkerOptions, type ThreadWorkerOptions } from "./thread-options.js";
import { workerClient } from "./worker-client.js";
import { StoredParks } from "./stored-parks.js";
import { workflowLoggerSink } from "./workflow-logger.js";
import { agentWorkflowsPath, withAgentWorkflows } from "./workflow-modules.js";

/** What `durableAgentsPlugin` needs: the agents a worker runs and how. */
export interface DurableAgentsPluginOptions {
  /** The agents the worker runs. Every worker on a task queue should register the same ones. */
  agents: AgentDefinition[];
  /** The model provider, e.g. `openaiModel({ baseURL, apiKey })`. */
  model: Model;
  /**
   * Enables deferral: the secret that signs resume tokens and async tools' answer tokens
   * (the same on every client) and the default TTL. Without it, a tool that defers fails
   * with RC5052, and a worker whose agents have async tools (run on its queue) is refused
   * at creation with RC5040.
   */
  deferral?: DeferralConfig;
  /**
   * Listeners for deferral transitions (deferred, resumed, expired, and denied while
   * waiting). Each fires once per transition in the worker that made it, never again when
   * a workflow replays.
   */
  on?: Partial<Record<DeferralEvent["type"], (event: DeferralEvent) => void>>;
  /** How many threads the worker keeps in memory so model calls carry only new messages. Default 1000. */
  threadCacheSize?: number;
  /** Chat threads: status hook, how fast a stop lands, streaming batches, model retries. */
  threads?: ThreadWorkerOptions;
  /**
   * Put message content on the OpenTelemetry spans: the messages each model call sends and
   * its answer, each tool call's arguments and result. Default false: spans leave the
   * worker unencrypted, whatever codec protects payloads in Temporal. Spans and metrics
   * themselves need no option: they are recorded once the application registers an SDK.
   */
  captureContent?: boolean;
}

/**
 * What every durable-agents worker adds: its activities, and a heartbeat throttle short
 * enough for a stop to reach them. Cancellation reaches an activity only in answer to a
 * heartbeat, so the throttle bounds how long a stopped thread's calls run on; a worker
 * that sets `maxHeartbeatThrottleInterval` itself keeps its own.
 */
export class DurableAgentsActivitiesPlugin extends SimplePlugin {
  readonly #stopLatencyMs: number;

  /** @internal Made by `DurableAgentsPlugin` and `createToolWorker`. */
  constructor(name: string, activities: object, stopLatencyMs: number) {
    super({ name, activities });
    this.#stopLatencyMs = stopLatencyMs;
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    const configured = super.configureWorker(options);
    return { ...configured, maxHeartbeatThrottleInterval: configured.maxHeartbeatThrottleInterval ?? this.#stopLatencyMs };
  }
}

/** See `DurableAgentsPlugin.configureWorker`: how long a task waits for a dead worker's sticky queue. */
export const DEFAULT_STICKY_SCHEDULE_TO_START = "1s";

/**
 * The durable-agents worker as a Temporal plugin. Added to a worker it registers the
 * agent activities and the event sink, puts the agent workflows next to the worker's own
 * `workflowsPath` (in the bundle Temporal builds, without writing any file), and sets
 * `maxHeartbeatThrottleInterval` to the threads' `stopLatency` and
 * `stickyQueueScheduleToStartTimeout` to one second (so a run resumed after its worker
 * crashed moves on within about a second, not ten) unless the worker sets them. A run
 * that fails with a benign code (an expired deferral, RC5047) is logged at debug, not as
 * Temporal's "Workflow failed" warning (through the workflows' logger sink, which wraps a
 * `defaultWorkerLogger` sink the worker sets).
 * Everything else stays the worker's: its data converter and codec (the activities'
 * queries and signals go through the worker's own client), its interceptors, workflow
 * interceptor modules included, and its other plugins.
 *
 * It is a bundler plugin too: `bundleWorkflowCode({ workflowsPath, plugins: [plugin] })`
 * builds a bundle holding both, for `workflowBundle`.
 *
 * @experimental Temporal's plugin API is experimental; this follows it.
 */
export class DurableAgentsPlugin extends DurableAgentsActivitiesPlugin {
  readonly #sinks: InjectedSinks<DurableAgentsSinks>;
  readonly #transport: StreamTransport | "workflow" | undefined;
  readonly #parks = new StoredParks();

  constructor(options: DurableAgentsPluginOptions) {
    const threads = resolveThreadWorkerOptions(options.threads);
    const registry = new AgentRegistry(options.agents);
    const telemetry = new AgentTelemetry({ captureContent: options.captureContent ?? false });
    registry.assertAnswerTokensMintable(options.deferral, undefined);
    const activities = createActivities({
      registry,
      model: options.model,
      client: workerClient(),
      threads,
      telemetry,
      ...(options.deferral ? { deferral: resolveDeferralConfig(options.deferral) } : {}),
      ...(options.threadCacheSize !== undefined ? { threadCacheSize: options.threadCacheSize } : {}),
    });
    super("durable-agents", activities, threads.stopLatencyMs);
    this.#transport = threads.stream === false ? undefined : threads.stream.transport;
    this.#sinks = eventSinks(options.on, telemetry, this.#transport, this.#parks);
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    assertListening(this.#transport);
    const configured = super.configureWorker(options);
    return {
      ...configured,
      ...shortBuildId(configured),
      // A run's next workflow task goes to the sticky queue of the worker that last ran it.
      // When that worker died (SIGKILL, OOM, a lost host) nobody polls that queue, and the
      // task waits out this timeout before the server hands it to the shared queue: with
      // Temporal's 10 s default, a resume after a crash stalled ten seconds. A live worker
      // picks a sticky task up within milliseconds, so one second costs nothing; a worker
      // that sets it keeps its own.
      stickyQueueScheduleToStartTimeout: configured.stickyQueueScheduleToStartTimeout ?? DEFAULT_STICKY_SCHEDULE_TO_START,
      ...withAgentWorkflowsPath(configured),
      sinks: {
        ...configured.sinks,
        ...this.#sinks,
        // Temporal's name for the workflows' logger sink that a worker may set (its own is reserved).
        defaultWorkerLogger: workflowLoggerSink(configured.taskQueue, configured.sinks?.defaultWorkerLogger as Parameters<typeof workflowLoggerSink>[1]),
      },
    };
  }

  override async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    const stop = announce(this.#transport, worker);
    const detach = this.#parks.attach(worker);
    try {
      await super.runWorker(worker, next);
    } finally {
      detach();
      await stop?.();
    }
  }

  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    const configured = super.configureReplayWorker(options);
    return { ...configured, ...withAgentWorkflowsPath(configured) };
  }

  override configureBundler(options: BundleOptions): BundleOptions {
    return withAgentWorkflows(super.configureBundler(options));
  }
}

/**
 * The worker's build id: the first 12 hex digits of the SHA-256 of its workflow bundle,
 * where Temporal's default is its package name and version and the whole digest (90
 * characters). Temporal stamps it on every workflow task and activity start, six times
 * in each turn of a tool loop: about a tenth of the turn's history bytes (docs/cost.md).
 * It still changes with the workflow code, and is the same digest's prefix. Left to
 * Temporal when the worker sets a build id or opts into versioning, or bundles at
 * creation (`workflowsPath`: the code is not known yet here).
 */
function shortBuildId(options: WorkerOptions): Pick<WorkerOptions, "buildId"> {
  // Without versioning the build id is only a stamp (Temporal marks the option deprecated for versioning's sake).
  if (options.buildId !== undefined || options.useVersioning || options.workerDeploymentOptions) return {};
  const bundle = options.workflowBundle;
  const code = !bundle ? undefined : "code" in bundle ? bundle.code : readFileSync(bundle.codePath, "utf8");
  return code === undefined ? {} : { buildId: createHash("sha256").update(code).digest("hex").slice(0, 12) };
}

/**
 * The durable-agents worker as a Temporal plugin, for your own `Worker.create`:
 *
 * ```ts
 * const worker = await Worker.create({
 *   connection, taskQueue: "agents", workflowsPath: require.resolve("./workflows"),
 *   dataConverter, interceptors,
 *   plugins: [durableAgentsPlugin({ agents: [weather], model: openaiModel() })],
 * });
 * ```
 *
 * Your workflows must not export a name the agent workflows use (`agentRun`, `agentThread`).
 */
export function durableAgentsPlugin(options: DurableAgentsPluginOptions): DurableAgentsPlugin {
  return new DurableAgentsPlugin(options);
}

// A worker given neither workflows nor a bundle runs the agent workflows alone; the bundler
// plugin hook adds ours to a path of the user's, and a prebuilt bundle already holds them.
function withAgentWorkflowsPath(options: { workflowsPath?: string; workflowBundle?: unknown }): { workflowsPath?: string } {
  return options.workflowsPath || options.workflowBundle ? {} : { workflowsPath: agentWorkflowsPath() };
}

function eventSinks(
  listeners: DurableAgentsPluginOptions["on"] = {},
  telemetry: AgentTelemetry,
  transport: StreamTransport | "workflow" | undefined,
  parks: StoredParks,
): InjectedSinks<DurableAgentsSinks> {
  return {
    durableAgents: {
      event: {
        fn: (_info, event) => {
          guarded("recording a deferral metric failed", () => telemetry.deferralEvent(event));
          guarded(`the "${event.type}" listener threw`, () => listeners[event.type]?.(event));
        },
        callDuringReplay: false,
      },
      stepBegan: {
        fn: (_info, { agentId, ...request }) => guarded("opening a step span failed", () => telemetry.beginStep(agentId, request)),
        callDuringReplay: false,
      },
      stepEnded: {
        fn: (_info, end) => guarded("closing a step span failed", () => telemetry.endStep(end)),
        callDuringReplay: false,
      },
      // The acknowledgment of a park, to the run's callers in this process once Temporal has stored it (stored-parks.ts).
      parked: {
        fn: (info, ack) => parks.hold(info.runId, { namespace: info.namespace, taskQueue: info.taskQueue, workflowId: info.workflowId }, ack),
        callDuringReplay: false,
      },
      // A thread's new entries, to readers subscribed to the transport. Best effort: a reader
      // that misses one reads it from the thread by query, which stays the source of truth.
      stream: {
        fn: (info, threadId, batch) => {
          if (!transport || transport === "workflow") return;
          // A transport that throws rather than rejects is as harmless: the log stays the truth.
          try {
            transport.publish(threadId, batch, { runId: info.runId }).catch(() => undefined);
          } catch {
            // ignored, like a rejection
          }
        },
        callDuringReplay: false,
      },
    },
  };
}

/** On a `directStreamTransport`, the endpoint must be listening before the worker is made (createAgentWorker starts it). */
function assertListening(transport: StreamTransport | "workflow" | undefined): void {
  if (isDirectStreamTransport(transport) && transport.url === undefined) {
    throw new StreamTransportInvalidError({
      transport: "directStreamTransport",
      problem: "its endpoint is not listening: await transport.listen() before Worker.create (createAgentWorker does it for you)",
    });
  }
}

/**
 * On a `directStreamTransport`, the worker announces its endpoint while it runs (a beacon
 * poll, `startBeacon`): readers find it among the pollers of the queue's beacon. Its endpoint
 * checks readers' stream keys with the worker's own client (its connection, namespace and
 * data converter: a codec decodes the memo). Returns how to stop announcing.
 */
function announce(transport: StreamTransport | "workflow" | undefined, worker: Worker): (() => Promise<void>) | undefined {
  const announcement = isDirectStreamTransport(transport) ? transport.announcement : undefined;
  if (!announcement) return undefined;
  const { options } = worker;
  // Without a connection of its own the worker uses Temporal's default one, which a plugin cannot reach: readers then read the thread.
  if (!options.connection || !worker.client) return undefined;
  const stopVerifying = (transport as DirectStreamTransport).verifyWith(worker.client);
  const stopBeacon = startBeacon(options.connection, options.namespace, options.taskQueue, announcement);
  return async () => {
    stopVerifying();
    await stopBeacon();
  };
}

/** A sink's work, logged when it throws: a failing listener or exporter must not fail the workflow task that reported it. */
function guarded(what: string, work: () => unknown): void {
  try {
    work();
  } catch (err) {
    console.error(`durable-agents: ${what}`, err);
  }
}
