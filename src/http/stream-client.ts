import { Client, Connection } from "@temporalio/client";

/**
 * The client a thread's poller reads the stream with: the threads client's own server,
 * credentials, namespace, data converter and interceptors, on a second connection without
 * the gRPC retry interceptor. While a workflow task runs, Temporal buffers one query per
 * workflow and refuses the rest with RESOURCE_EXHAUSTED; the default client retries that
 * on its own after a second or more, so pollers in several processes would starve each
 * other exactly while deltas flow. Failing at once lets the poller retry after a few
 * milliseconds instead. Clients on a connection we cannot copy are used as they are.
 */
export function streamClient(base: Client): { client: Client; close(): Promise<void> } {
  const connection = base.connection;
  if (!(connection instanceof Connection)) return { client: base, close: async () => undefined };
  const fast = Connection.lazy({ ...connection.options, interceptors: [] });
  const client = new Client({
    connection: fast,
    namespace: base.options.namespace,
    dataConverter: base.options.dataConverter,
    interceptors: base.options.interceptors,
  });
  return { client, close: () => fast.close() };
}
