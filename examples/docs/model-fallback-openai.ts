import { Client } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { AgentClient, defineAgent } from "durable-agents";
import { address } from "../docs-support/env.js";
const support = defineAgent({ id: "support", model: "gpt-4.1", fallbackModels: ["llama3.1:8b"], system: "You help customers." });
const connection = await NativeConnection.connect({ address });
// ---cut---
import type { Model } from "durable-agents";
import { createAgentWorker, openaiModel } from "durable-agents/worker";

// openaiModel speaks to one server: one per server, and a Model that hands each name to the one serving it.
const gateway = openaiModel({ baseURL: process.env.GATEWAY_BASE_URL ?? "http://localhost:8000/v1", apiKey: process.env.GATEWAY_API_KEY });
const local = openaiModel({ baseURL: process.env.OLLAMA_BASE_URL ?? "http://localhost:11434/v1", apiKey: "ollama" });
const model: Model = { complete: (request) => (request.model.startsWith("llama") ? local : gateway).complete(request) };
const worker = await createAgentWorker({ connection, taskQueue: "agents", agents: [support], model });
// ---end---
await worker.runUntil(async () => {
  const agents = new AgentClient({ client: new Client({ connection }), taskQueue: "agents" });
  const result = await agents.run(support, { prompt: "Is the gateway still up?" });
  console.log(result.status === "completed" ? `answer: ${result.text}; fallback usage: ${JSON.stringify(result.usage.fallback)}` : result);
});
await connection.close();
