import { Connection } from "@temporalio/client";
import { AgentClient, defineAgent, type Principal } from "durable-agents";
import { address, listeningUrl, startWorker } from "../docs-support/env.js";
// The reader's login, here a cookie that names the person.
const sessions = { principalOf: async (cookie: string | null): Promise<Principal | undefined> => (cookie?.startsWith("session=") ? { id: cookie.slice("session=".length) } : undefined) };
const support = defineAgent({ id: "support", model: "gpt-4.1-mini", system: "You help customers." });
const worker = await startWorker([support]);
const agents = new AgentClient({ connection: await Connection.connect({ address }), taskQueue: "agents", deferral: { secret: process.env.DEFERRAL_SECRET! } });
// ---cut---
import { serve } from "@hono/node-server";
import { createAgentHttpHandler } from "durable-agents/http";

const handler = createAgentHttpHandler({
  agents, // an AgentClient with deferral: { secret } and its authorize hook
  threads: agents.threads, // optional; default agents.threads
  authenticate: async (request) => sessions.principalOf(request.headers.get("cookie")), // or undefined: anonymous
  basePath: "/agents", // optional
});
const server = serve({ fetch: handler, port: Number(process.env.PORT ?? 8787) }); // Node; PORT=0 takes any free port: server.address() says which

// Next.js (app/agents/[...path]/route.ts, basePath "/agents"); Bun.serve and Deno.serve take `fetch: handler` as is;
// Express: app.use(getRequestListener(handler)) with getRequestListener from @hono/node-server.
export const GET = handler, POST = handler, DELETE = handler;
// ---end---
const response = await fetch(`${await listeningUrl(server)}/agents/runs`, {
  method: "POST",
  headers: { "content-type": "application/json", cookie: "session=sam" },
  body: JSON.stringify({ agent: "support", prompt: "Hello over HTTP", wait: true }),
});
console.log(`POST /agents/runs: ${response.status} ${JSON.stringify(await response.json())}`);
server.close();
await worker.close();
await agents.client.connection.close();
