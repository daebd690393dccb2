import type { Duration } from "@temporalio/common";
import { durationMs } from "../core/duration.js";
import { InvalidDefinitionError } from "../core/errors/invalid-definition.js";
import type { ThreadStatusChange } from "../core/thread-contracts.js";

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
   * Streaming of answers to `streamUpdates` readers. Deltas are sent to the thread in
   * batches, at most one per `interval` (default `"250ms"`); the interval doubles after
   * every 20 batches of one answer, and one answer sends at most `maxBatches` (default
   * 60): what streaming adds to history stays bounded however long the answer. `false`
   * turns streaming off on this worker.
   */
  stream?: false | { interval?: Duration; maxBatches?: number };
  /**
   * Attempts of one model call when it fails with something worth retrying (429, 5xx,
   * network), honouring `retry-after`, before the thread's turn or the agent run fails
   * with AI1003. 400/401/403/404 and context overflow never retry. Default 8. Runs and
   * threads started before this worker's version keep the policy they started with.
   */
  modelMaxAttempts?: number;
}

export interface ResolvedThreadWorkerOptions {
  onStatusChange?: ThreadWorkerOptions["onStatusChange"];
  stopLatencyMs: number;
  stream: false | { intervalMs: number; maxBatches: number };
  modelMaxAttempts: number;
}

export function resolveThreadWorkerOptions(options: ThreadWorkerOptions = {}): ResolvedThreadWorkerOptions {
  const bad = (problem: string) => new InvalidDefinitionError({ subject: "createAgentWorker threads option", problem });
  if (options.onStatusChange !== undefined && typeof options.onStatusChange !== "function") throw bad("onStatusChange must be a function");
  const modelMaxAttempts = options.modelMaxAttempts ?? 8;
  if (!Number.isInteger(modelMaxAttempts) || modelMaxAttempts < 1) throw bad("modelMaxAttempts must be a positive integer");
  const maxBatches = options.stream === false ? 0 : (options.stream?.maxBatches ?? 60);
  if (!Number.isInteger(maxBatches) || maxBatches < 0) throw bad("stream.maxBatches must be a whole number");
  return {
    ...(options.onStatusChange ? { onStatusChange: options.onStatusChange } : {}),
    stopLatencyMs: durationMs(options.stopLatency ?? "500ms", "createAgentWorker threads.stopLatency", "500ms"),
    stream: options.stream === false ? false : { intervalMs: durationMs(options.stream?.interval ?? "250ms", "createAgentWorker threads.stream.interval", "250ms"), maxBatches },
    modelMaxAttempts,
  };
}
