/**
 * A TCP proxy between the workers and the Temporal frontend, so the soak can cut their
 * connections the way a flaky network or a load balancer's restart does: `drop()` resets
 * every open connection and refuses new ones for a while; gRPC clients reconnect on their own.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  /** `127.0.0.1:<port>`, to give the workers instead of the server's address. */
  address: string;
  /** Resets every open connection, and refuses connections for `refuseMs` after. */
  drop(refuseMs: number): number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = splitAddress(target);
  const open = new Set<Socket>();
  let refuseUntil = 0;
  const server: Server = createServer((client) => {
    if (Date.now() < refuseUntil) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection({ host, port });
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.setNoDelay(true);
      socket.on("close", () => open.delete(socket));
      // A reset on one side is passed to the other, as a dropped connection would be.
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: listening } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${listening}`,
    drop(refuseMs) {
      refuseUntil = Date.now() + refuseMs;
      const count = open.size;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
      return count;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function splitAddress(address: string): [string, number] {
  const at = address.lastIndexOf(":");
  return [address.slice(0, at), Number(address.slice(at + 1))];
}
