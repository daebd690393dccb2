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
  agents, // its authorize hook decides each row and page (run.state, thread.list, thread.messages)
  authenticate: async (request) => sessions.principalOf(request.headers.get("cookie")), // no principal: 401 (AI1049)
  console: true, // off by default; or { title, pageSize, refreshInterval }
});
const server = serve({ fetch: handler, port: Number(process.env.PORT ?? 8787) });
// Open http://localhost:8787/console signed in (PORT=0 takes any free port: server.address() says which).
// ---end---
const base = await listeningUrl(server);
console.log(`console: ${base}/console`);
const runId = `console-${Date.now()}`;
await agents.run(support, { prompt: "Where is my parcel?", runId, principal: { id: "sam" } });
const page = await fetch(`${base}/console/runs/${runId}`, { headers: { cookie: "session=sam" } });
const text = await page.text();
console.log(`GET /console/runs/${runId}: ${page.status}, shows the answer: ${text.includes("It is on its way.")}`);
const anonymous = await fetch(`${base}/console`);
console.log(`without a session: ${anonymous.status}`);
server.close();
await worker.close();
await agents.client.connection.close();
