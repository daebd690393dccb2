import type { ThreadStatusChange } from "../src/core/thread-contracts.js";
import type { StreamTransport } from "../src/stream/transport.js";

/**
 * What the activities need of the worker's `threads` option, already checked and with its
 * defaults filled in (the worker's `resolveThreadWorkerOptions` makes it). Declared here, on
 * the activities' side, so the worker depends on its activities and not the other way.
 */
export interface ActivitySettings {
  onStatusChange?: (change: ThreadStatusChange) => void | Promise<void>;
  stopLatencyMs: number;
  stream: false | StreamSettings;
  modelMaxAttempts: number;
}

/** How a worker's model calls stream, when they do. */
export interface StreamSettings {
  intervalMs: number;
  maxBatches: number;
  transport: StreamTransport | "workflow";
}
