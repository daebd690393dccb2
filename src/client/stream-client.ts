import { Client, Connection } from "@temporalio/client";

interface Shared {
  client: Client;
  close(): Promise<void>;
  users: number;
}

const shared = new WeakMap<Client, Shared>();

/**
 * A client to poll thread streams with: `base`'s server, credentials, namespace, data
 * converter (the one it loaded, so its codec decodes what is polled) and interceptors, on
 * a second connection without the gRPC retry interceptor. While a workflow task runs, Temporal buffers one query per workflow and refuses the rest
 * with RESOURCE_EXHAUSTED; the default client retries that only after a second or more, so
 * pollers in several processes would starve each other exactly while deltas flow. Failing
 * at once lets the poller try again after a few milliseconds (see `isQueryBusy`). One
 * connection per base client, shared while anyone polls; `release()` when done. A client
 * on a connection we cannot copy (e.g. a NativeConnection) is used as it is.
 */
export function acquireStreamClient(base: Client): { client: Client; release(): void } {
  let entry = shared.get(base);
  if (!entry) {
    const connection = base.connection;
    if (connection instanceof Connection) {
      const fast = Connection.lazy({ ...connection.options, interceptors: [] });
      const client = new Client({ connection: fast, namespace: base.options.namespace, dataConverter: base.options.loadedDataConverter, interceptors: base.options.interceptors });
      entry = { client, close: () => fast.close(), users: 0 };
    } else {
      entry = { client: base, close: async () => undefined, users: 0 };
    }
    shared.set(base, entry);
  }
  entry.users++;
  const held = entry;
  let released = false;
  return {
    client: held.client,
    release() {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      if (shared.get(base) === held) shared.delete(base);
      void held.close().catch(() => undefined);
    },
  };
}

/** Pause before retrying a read the workflow was too busy to answer: short and random, so pollers interleave. */
export const busyPauseMs = (): number => 2 + Math.random() * 20;
