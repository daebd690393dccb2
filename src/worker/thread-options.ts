import type { Duration } from "@temporalio/common";
import { durationMs } from "../core/duration.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import { DEFAULT_MODEL_CALLS } from "../core/contracts.js";
import type { ThreadStatusChange } from "../core/thread-contracts.js";
import type { ActivitySettings, StreamSettings } from "../../activities/settings.js";
import { isStreamTransport, type StreamTransport } from "../stream/transport.js";

/**
 * Worker settings for threads (`createAgentWorker({ threads })`). `stopLatency` and
 * `modelMaxAttempts` apply to agent runs' calls as well: runs and threads share one
 * agent-step layer.
 */
export interface ThreadWorkerOptions {
  /**
   * Called on every status transition of every thread this worker runs, as a local
   * activity: at least once, in order per thread, never again on replay. Keep it quick
   * (hand the change to a queue): the thread's next preparation waits for it. A hook
   * that throws is tried 3 times (10 s each at most), then given up; the thread goes on.
   */
  onStatusChange?: (change: ThreadStatusChange) => void | Promise<void>;
  /**
   * How soon `stopThread` and `agents.cancel()` reach a running model request or tool:
   * while calls run, the worker reads their workflows' pending activities this often (a
   * describe, which Temporal does not bill) and makes a cancelled call heartbeat at once,
   * and the worker's `maxHeartbeatThrottleInterval` is set to it (unless you set that
   * yourself). Default `"500ms"`, so a cancel lands within about a second.
   */
  stopLatency?: Duration;
  /**
   * Streaming of answers to readers (`followUpdates`, the events route). `false` turns
   * streaming off on this worker. See {@link ThreadStreamOptions}.
   */
  stream?: false | ThreadStreamOptions;
  /**
   * Attempts of one model call when it fails with something worth retrying (429, 5xx,
   * network), honouring `retry-after`, before the thread's turn or the agent run fails
   * with AI1003. 400/401/403/404 and context overflow never retry. Default 8. Runs and
   * threads started before this worker's version keep the policy they started with.
   */
  modelMaxAttempts?: number;
}

/** How a worker streams answers (`createAgentWorker({ threads: { stream } })`). */
export interface ThreadStreamOptions {
  /**
   * Where the answer's deltas and the thread's new entries go while a turn runs.
   *
   * A {@link StreamTransport} sends them straight to readers, with no Temporal action:
   * `directStreamTransport()` reaches readers in other processes that can connect to the
   * worker (it serves them from an endpoint of its own, no broker); `inProcessStreamTransport()`
   * reaches readers in this process only; `redisStreamTransport` from `durable-agents/redis`
   * reaches every process on one Redis. Readers in a process the transport does not reach
   * still see every message and status, by reading the thread, but no deltas.
   *
   * `"workflow"` sends the deltas into the thread by signal instead: readers in any process
   * that can reach Temporal see them, for a billed signal per batch (see docs/cost.md).
   *
   * Default with `createAgentWorker`: a `directStreamTransport` on this host's private address and a
   * free port, encoding batches with the worker's payload codecs (`worker.dataConverter`);
   * clients given no transport follow it, and by-signal workers too. Default with
   * `durableAgentsPlugin` on a `Worker.create` of your own: `"workflow"` (give it a
   * `directStreamTransport()` and await its `listen()` before `Worker.create`).
   */
  transport?: StreamTransport | "workflow";
  /**
   * At most one batch of deltas per interval. Default `"50ms"` on a transport and `"250ms"`
   * with `"workflow"`, where the interval doubles after every 20 batches of one answer.
   */
  batchInterval?: Duration;
  /**
   * With `"workflow"`: the most batches one answer sends (default 60), so what streaming
   * adds to history stays bounded however long the answer.
   */
  maxBatches?: number;
}

/** `options` checked (AI1001 when wrong), with the defaults filled in, as the activities take them. */
export function resolveThreadWorkerOptions(options: ThreadWorkerOptions = {}): ActivitySettings {
  const bad = (problem: string) => new InvalidDefinitionError({ subject: "createAgentWorker threads option", problem });
  if (options.onStatusChange !== undefined && typeof options.onStatusChange !== "function") throw bad("onStatusChange must be a function");
  const modelMaxAttempts = options.modelMaxAttempts ?? DEFAULT_MODEL_CALLS.modelMaxAttempts;
  if (!Number.isInteger(modelMaxAttempts) || modelMaxAttempts < 1) throw bad("modelMaxAttempts must be a positive integer");
  if (options.stream !== undefined && options.stream !== false && (typeof options.stream !== "object" || options.stream === null)) {
    throw bad("stream must be false or an object ({ transport, interval, maxBatches })");
  }
  const maxBatches = options.stream === false ? 0 : (options.stream?.maxBatches ?? 60);
  if (!Number.isInteger(maxBatches) || maxBatches < 0) throw bad("stream.maxBatches must be a whole number");
  return {
    ...(options.onStatusChange ? { onStatusChange: options.onStatusChange } : {}),
    stopLatencyMs: durationMs(options.stopLatency ?? "500ms", "createAgentWorker threads.stopLatency", "500ms"),
    stream: options.stream === false ? false : resolveStream(options.stream, maxBatches, bad),
    modelMaxAttempts,
  };
}

function resolveStream(options: ThreadStreamOptions | undefined, maxBatches: number, bad: (problem: string) => Error): StreamSettings {
  // Only a missing transport means the default: null is as wrong as any other non-transport.
  const transport = options?.transport === undefined ? "workflow" : options.transport;
  if (transport !== "workflow" && !isStreamTransport(transport)) {
    throw bad('stream.transport must be a StreamTransport (inProcessStreamTransport(), directStreamTransport(), redisStreamTransport()) or "workflow"');
  }
  const fallback = transport === "workflow" ? "250ms" : "50ms";
  return { intervalMs: durationMs(options?.batchInterval ?? fallback, "createAgentWorker threads.stream.batchInterval", fallback), maxBatches, transport };
}
