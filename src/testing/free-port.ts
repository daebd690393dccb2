import { createServer } from "node:net";

/**
 * A port free on 127.0.0.1 now, for a server we start that cannot bind port 0 and say which
 * it took. Someone else may bind it before that server does: callers that can, start again
 * on a fresh pick when the start fails.
 */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
