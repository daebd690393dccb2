import { Client, type ConnectionLike } from "@temporalio/client";
import type { DataConverter, Duration } from "@temporalio/common";
import { durationMs } from "../core/duration.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import { DEFAULT_QUERY_TIMEOUT_MS } from "./bounded-query.js";
import { clientDataConverter } from "./data-converter.js";

/** How a client reaches Temporal: shared by `AgentClient` and `ThreadsClient`. */
export interface ClientConnectionOptions {
  /** A `Connection` or `NativeConnection`; ignored when `client` is given. */
  connection?: ConnectionLike;
  /** An existing Temporal client to reuse (e.g. `agentClient.client`). */
  client?: Client;
  /** Default `"default"`. */
  namespace?: string;
  /** Task queue the agent workers poll. */
  taskQueue: string;
  /**
   * How long a read that only a worker can answer waits for one: `state()`,
   * `deferrals.get()`, a parked run's acknowledgment, and the thread reads (`state`,
   * `listMessages`, `streamUpdates`, …). Past it the read fails with AI1015 naming the
   * task queue when no worker polls it; when workers do (busy, or just stopped), after up
   * to three times as long. Default `"5s"`; raise it for runs whose histories take a
   * worker longer to replay.
   */
  queryTimeout?: Duration;
  /**
   * How payloads are converted and encoded, e.g. `{ payloadCodecs: [aesGcmCodec({ keys, current })] }`:
   * the same as the workers'. Ignored when `client` is given (configure that client instead).
   */
  dataConverter?: DataConverter;
}

/**
 * The Temporal client, task queue and query timeout a façade works with; AI1001 naming
 * `subject` without a task queue or with a timeout that is not a duration.
 */
export function connect(options: ClientConnectionOptions | undefined, subject: string): { client: Client; taskQueue: string; queryTimeoutMs: number } {
  if (!options?.taskQueue) throw new InvalidDefinitionError({ subject, problem: "taskQueue is required" });
  const queryTimeoutMs = options.queryTimeout === undefined ? DEFAULT_QUERY_TIMEOUT_MS : durationMs(options.queryTimeout, `${subject} queryTimeout`, "5s");
  const client =
    options.client ??
    new Client({
      namespace: options.namespace ?? "default",
      ...(options.connection ? { connection: options.connection } : {}),
      dataConverter: clientDataConverter(options.dataConverter),
    });
  return { client, taskQueue: options.taskQueue, queryTimeoutMs };
}
