import { Context } from "@temporalio/activity";

/**
 * Heartbeats the current activity while `work` runs. Temporal tells an activity it was
 * cancelled only in answer to a heartbeat, so the interval is what bounds how long a
 * cancelled run's or a stopped thread's model request or tool keeps running: half the
 * worker's stop latency (its `maxHeartbeatThrottleInterval` is that latency too), and a
 * third of the heartbeat timeout at most, so a worker that died is noticed in time.
 */
export async function withHeartbeat<T>(stopLatencyMs: number, work: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  // A local activity hears of its cancellation from the worker itself, and has no server record to beat on.
  if (ctx.info.isLocal) return work();
  const timeoutMs = ctx.info.heartbeatTimeoutMs;
  const everyMs = Math.max(50, Math.min(stopLatencyMs / 2, timeoutMs ? timeoutMs / 3 : Infinity));
  // No heartbeat at the start: an immediate one costs every call a server round trip, and
  // a cancel in the first interval is still seen at the first beat.
  const timer = setInterval(() => ctx.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
