import { Context } from "@temporalio/activity";

/**
 * Heartbeats the current activity while `work` runs: a worker that dies mid-call is then
 * noticed after the heartbeat timeout instead of the full call timeout, and cancellation
 * reaches the activity's AbortSignal.
 */
export async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const timeout = ctx.info.heartbeatTimeoutMs;
  if (!timeout) return work();
  // No heartbeat at start: short calls (most of them) then never pay for one.
  const timer = setInterval(() => ctx.heartbeat(), Math.max(100, Math.floor(timeout / 3)));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
