/**
 * The one Temporal runtime of a test process. Integration files share their process
 * (vitest.config.ts: `isolate: false`) and Temporal allows one `Runtime` per process, so it is
 * installed here, once, whichever file comes first. It prints errors only: expected failures
 * (max turns, unknown agents) would otherwise fill the output with warnings. A test that
 * wants to read the warnings too listens with `onRuntimeLog`.
 */
import { DefaultLogger, Runtime, type LogEntry } from "@temporalio/worker";

// Kept on the process, not the module: vitest evaluates a setup file anew for each test file.
const LISTENERS = Symbol.for("durable-agents.test-runtime.listeners");
const processState = globalThis as { [LISTENERS]?: Set<(entry: LogEntry) => void> };
if (!processState[LISTENERS]) {
  const listeners = (processState[LISTENERS] = new Set());
  const printer = new DefaultLogger("ERROR");
  Runtime.install({
    logger: new DefaultLogger("WARN", (entry) => {
      for (const listener of listeners) listener(entry);
      if (entry.level === "ERROR") printer.log(entry.level, entry.message, entry.meta);
    }),
  });
}

/** Hands `listener` every warning and error the runtime logs until the returned function is called. */
export function onRuntimeLog(listener: (entry: LogEntry) => void): () => void {
  const listeners = processState[LISTENERS]!;
  listeners.add(listener);
  return () => listeners.delete(listener);
}
