/**
 * `npm run chat`: the chat example, all in one process. Starts Temporal (TEMPORAL_ADDRESS,
 * or a local dev server), the scripted model unless OPENAI_API_KEY is set, a worker, the
 * HTTP front door and the page, then prints the URL. Ctrl-C stops it.
 */
import { randomBytes } from "node:crypto";
import { Client, Connection } from "@temporalio/client";
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { startScriptedModelServer, startTemporal, type ScriptedModelServer } from "../../src/testing/index.js";
import { createAgentWorker, openaiModel } from "../../src/worker.js";
import { chatAgentClient } from "./access.js";
import { supportAgent } from "./agent.js";
import { startChatApp } from "./app-server.js";
import { scriptedReplies } from "./scripted-replies.js";

const say = (line: string) => console.log(line);
Runtime.install({ logger: new DefaultLogger("ERROR") });
const PORT = Number(process.env.PORT ?? 5173);

async function main() {
  say("Starting Temporal (TEMPORAL_ADDRESS, or a local dev server) …");
  const server = await startTemporal({ log: (line) => say(`  ${line}`) });
  let scripted: ScriptedModelServer | undefined;
  if (!process.env.OPENAI_API_KEY) {
    scripted = await startScriptedModelServer();
    scripted.respondToAny(scriptedReplies);
    say("Using the scripted model (set OPENAI_API_KEY for a real one).");
  } else {
    say(`Using ${process.env.OPENAI_BASE_URL ?? "the OpenAI API"} with model ${supportAgent.model}.`);
  }
  const model = openaiModel(scripted ? { baseURL: scripted.url, apiKey: "scripted" } : { baseURL: process.env.OPENAI_BASE_URL, maxRetries: 2 });

  // Mints the approval requests' tokens (the gated tools need one); a real deployment reads it from a secret store.
  const secret = randomBytes(32).toString("base64");
  const taskQueue = "durable-agents-chat";
  const native = await NativeConnection.connect({ address: server.address });
  const worker = await createAgentWorker({ connection: native, namespace: server.namespace, taskQueue, agents: [supportAgent], model, deferral: { secret } });
  const running = worker.run();
  const connection = await Connection.connect({ address: server.address });
  // Each person sees only their own threads; the manager decides refunds (access.ts).
  const agents = chatAgentClient({ client: new Client({ connection, namespace: server.namespace }), taskQueue, secret });
  const app = await startChatApp({ agents, port: PORT, host: "127.0.0.1" });

  say(`\nChat: ${app.url}?user=sam   (a customer; ?user=lee is another, who cannot see sam's threads)`);
  say(`Manager: ${app.url}?user=mia   (approves refunds in the inbox)`);
  say("Ask about an order (“where is order 1234?”), to cancel one (you confirm it in the chat), or for a refund, which waits for the manager. Ctrl-C to stop.");
  await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
  await app.close();
  if (worker.getState() === "RUNNING") worker.shutdown();
  await running;
  await native.close();
  await connection.close();
  await scripted?.close();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
