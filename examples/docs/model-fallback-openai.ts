import { NativeConnection } from "@temporalio/worker";
import type { AgentDefinition } from "durable-agents";
declare const support: AgentDefinition;
// ---cut---
import type { Model } from "durable-agents";
import { createAgentWorker, openaiModel } from "durable-agents/worker";

// openaiModel speaks to one server: one per server, and a Model that hands each name to the one serving it.
const gateway = openaiModel({ baseURL: "http://localhost:8000/v1", apiKey: process.env.GATEWAY_API_KEY });
const local = openaiModel({ baseURL: "http://localhost:11434/v1", apiKey: "ollama" });
const model: Model = { complete: (request) => (request.model.startsWith("llama") ? local : gateway).complete(request) };
await createAgentWorker({ connection: await NativeConnection.connect(), taskQueue: "agents", agents: [support], model });
