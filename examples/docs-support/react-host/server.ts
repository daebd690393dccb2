/**
 * Serves the docs' React examples (react-host/main.tsx mounts them) with Vite, beside the
 * front door under `/agents`, as a page and its API share an origin in an app (the test
 * imports this file, so it names the source by path). The examples
 * import `durable-agents/react`, which here is this repository's source. A request's bearer
 * token is its person's id (the examples' stand-in for a login).
 */
import { realpathSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { getRequestListener } from "@hono/node-server";
import { createServer as createVite } from "vite";
import type { AgentClient } from "../../../src/index.js";
import { createAgentHttpHandler } from "../../../src/http.js";

const root = fileURLToPath(new URL(".", import.meta.url));
const repo = fileURLToPath(new URL("../../..", import.meta.url));

export async function startReactHost(agents: AgentClient): Promise<{ url: string; close(): Promise<void> }> {
  const frontDoor = getRequestListener(
    createAgentHttpHandler({
      agents,
      basePath: "/agents",
      authenticate: (request) => {
        const token = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
        return token ? { id: token } : undefined;
      },
    }),
  );
  const vite = await createVite({
    root,
    configFile: false,
    logLevel: "warn",
    appType: "spa",
    resolve: { alias: { "durable-agents/react": `${repo}src/react.ts` } },
    server: { middlewareMode: true, hmr: false, fs: { allow: [repo, realpathSync(`${repo}node_modules`)] } },
    optimizeDeps: { include: ["react", "react-dom/client", "react/jsx-runtime", "react/jsx-dev-runtime", "@ai-sdk/react"] },
  });
  const server: Server = createServer((req, res) => {
    if (req.url === "/agents" || req.url?.startsWith("/agents/")) return void frontDoor(req, res);
    vite.middlewares(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await vite.close();
    },
  };
}
