// The servers this process started (Temporal dev servers, Redis) are stopped when it is told to end.

/** `stop()` of every server this process started and has not stopped yet. */
const running = new Set<() => Promise<void>>();
const TERMINATION_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * A server we start is a child process: if the parent dies of a signal, nothing stops it and
 * it keeps its port and files. And Temporal's Runtime listens for these signals (to stop
 * workers), so the parent would not even exit. We stop our servers first, then let the signal
 * take its default course (exit; workers cannot finish without their server anyway) unless
 * something else in the process still listens for it.
 */
async function stopServersOnSignal(signal: NodeJS.Signals): Promise<void> {
  for (const s of TERMINATION_SIGNALS) process.off(s, stopServersOnSignal);
  await Promise.allSettled([...running].map((stop) => stop()));
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/** Stops `stop`'s server when the process gets SIGINT or SIGTERM, until `untrack(stop)`. */
export function track(stop: () => Promise<void>): void {
  if (running.size === 0) for (const s of TERMINATION_SIGNALS) process.on(s, stopServersOnSignal);
  running.add(stop);
}

export function untrack(stop: () => Promise<void>): void {
  running.delete(stop);
  if (running.size === 0) for (const s of TERMINATION_SIGNALS) process.off(s, stopServersOnSignal);
}
