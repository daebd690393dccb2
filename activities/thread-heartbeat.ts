import { Context } from "@temporalio/activity";

/**
 * Heartbeats every `everyMs` while `work` runs. Temporal tells an activity it was
 * cancelled only in answer to a heartbeat, so this is what bounds how long a stopped
 * thread's model request or tool keeps running. (The worker throttles the RPCs to its
 * `maxHeartbeatThrottleInterval`, which `threads.stopLatency` sets.)
 */
export async function withFrequentHeartbeat<T>(everyMs: number, work: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  // No heartbeat at the start: an immediate one costs every call a server round trip, and
  // a stop in the first interval is still seen at the first beat.
  const timer = setInterval(() => ctx.heartbeat(), Math.max(50, everyMs));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
