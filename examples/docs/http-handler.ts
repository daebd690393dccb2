import { Connection } from "@temporalio/client";
import { AgentClient, type Principal } from "durable-agents";
declare const sessions: { principalOf(cookie: string | null): Promise<Principal | undefined> };
const agents = new AgentClient({ connection: await Connection.connect(), taskQueue: "agents", deferral: { secret: process.env.DEFERRAL_SECRET! } });
// ---cut---
import { serve } from "@hono/node-server";
import { createAgentHttpHandler } from "durable-agents/http";

const handler = createAgentHttpHandler({
  agents, // an AgentClient with deferral: { secret } and its authorize hook
  threads: agents.threads, // optional; default agents.threads
  authenticate: async (request) => sessions.principalOf(request.headers.get("cookie")), // or undefined: anonymous
  basePath: "/agents", // optional
});
serve({ fetch: handler, port: 8787 }); // Node

// Next.js (app/agents/[...path]/route.ts, basePath "/agents"); Bun.serve and Deno.serve take `fetch: handler` as is;
// Express: app.use(getRequestListener(handler)) with getRequestListener from @hono/node-server.
export const GET = handler, POST = handler, DELETE = handler;
