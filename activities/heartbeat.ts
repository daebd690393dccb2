import { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";
import { cancellationWatch } from "./cancellation-watch.js";

/**
 * Heartbeats the current activity while `work` runs, as seldom as liveness allows: at 80%
 * of its heartbeat timeout, so a worker that died is noticed within that timeout, and a call
 * of a few seconds never heartbeats at all (each heartbeat that reaches the server is a
 * billed action). Cancellation reaches the call through the worker's cancellation watch
 * (`client`): it reads the workflow's pending activities every `stopLatencyMs` and makes the
 * call heartbeat once when it was cancelled, which is when Temporal tells it. Without a
 * client, the call heartbeats every half `stopLatencyMs` as it did before the watch.
 */
export async function withHeartbeat<T>(stopLatencyMs: number, work: () => Promise<T>, client?: Client): Promise<T> {
  const ctx = Context.current();
  // A local activity hears of its cancellation from the worker itself, and has no server record to beat on.
  if (ctx.info.isLocal) return work();
  const timeoutMs = ctx.info.heartbeatTimeoutMs;
  // No heartbeat at the start: an immediate one costs every call a server round trip.
  const everyMs = client ? (timeoutMs ? timeoutMs * 0.8 : undefined) : Math.max(50, Math.min(stopLatencyMs / 2, timeoutMs ? timeoutMs / 3 : Infinity));
  const timer = everyMs === undefined ? undefined : setInterval(() => ctx.heartbeat(), Math.max(50, everyMs));
  const untrack = client ? cancellationWatch(client, stopLatencyMs).track(ctx) : undefined;
  try {
    return await work();
  } finally {
    if (timer) clearInterval(timer);
    untrack?.();
  }
}
