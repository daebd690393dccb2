/**
 * The chat example's one HTTP server: the front door under `/agents` (threads, and the
 * approvals inbox the managers' page reads) and the page (Vite in middleware mode, so `.tsx`
 * is served as is). `npm run chat` starts it; the browser tests start it the same way.
 */
import { realpathSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { getRequestListener } from "@hono/node-server";
import { createServer as createVite, type ViteDevServer } from "vite";
import type { AgentClient, ThreadsClient } from "../../src/index.js";
import { createAgentHttpHandler } from "../../src/http.js";
import { principalOf } from "./access.js";

export interface ChatAppOptions {
  agents: AgentClient;
  threads?: ThreadsClient;
  port?: number;
  host?: string;
}

export interface ChatApp {
  url: string;
  close(): Promise<void>;
}

const root = fileURLToPath(new URL(".", import.meta.url));
const repo = fileURLToPath(new URL("../..", import.meta.url));

export async function startChatApp(options: ChatAppOptions): Promise<ChatApp> {
  const threads = options.threads ?? options.agents.threads;
  const frontDoor = getRequestListener(createAgentHttpHandler({ agents: options.agents, threads, authenticate: (request) => principalOf(request.headers), basePath: "/agents" }));
  const vite: ViteDevServer = await createVite({
    root,
    configFile: false,
    logLevel: "warn",
    appType: "spa",
    server: {
      middlewareMode: true,
      hmr: false,
      // node_modules may be a link to another checkout: let Vite serve from there too.
      fs: { allow: [repo, realpathSync(new URL("../../node_modules", import.meta.url))] },
    },
    // Pre-bundled up front, so a first visit does not reload the page to add a dependency.
    optimizeDeps: { include: ["react", "react-dom/client", "react/jsx-runtime", "react/jsx-dev-runtime", "@ai-sdk/react"] },
  });

  const server: Server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (url.startsWith("/agents/") || url === "/agents") return void frontDoor(req, res);
    vite.middlewares(req, res);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${address.port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await vite.close();
    },
  };
}
