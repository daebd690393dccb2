import { Client, type ConnectionLike } from "@temporalio/client";
import { InvalidDefinitionError } from "../core/errors/invalid-definition.js";

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
}

/** The Temporal client and task queue a façade works with; AI1001 naming `subject` without a task queue. */
export function connect(options: ClientConnectionOptions | undefined, subject: string): { client: Client; taskQueue: string } {
  if (!options?.taskQueue) throw new InvalidDefinitionError({ subject, problem: "taskQueue is required" });
  const client =
    options.client ?? new Client({ namespace: options.namespace ?? "default", ...(options.connection ? { connection: options.connection } : {}) });
  return { client, taskQueue: options.taskQueue };
}
