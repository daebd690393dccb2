import { Client } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { AgentClient } from "durable-agents";
import { createAgentWorker } from "durable-agents/worker";
import { address, prebuiltBundle } from "../docs-support/env.js";
// ---cut---
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { defineAgent } from "durable-agents";
import { aiSdkModel } from "durable-agents/ai-sdk";

export const support = defineAgent({
  id: "support",
  model: "gpt-4.1",
  // Asked in order, in the same attempt, while the one before is out (408, 429, 5xx, timeouts, a cut stream).
  fallbackModels: ["gpt-4.1-mini", "llama3.1:8b"],
  system: "You help customers.",
});

// The worker's model is handed each name in turn: route them to their providers.
const gateway = createOpenAICompatible({ name: "gateway", baseURL: process.env.GATEWAY_BASE_URL ?? "http://localhost:8000/v1" });
const local = createOpenAICompatible({ name: "local", baseURL: process.env.OLLAMA_BASE_URL ?? "http://localhost:11434/v1" });
export const model = aiSdkModel((name) => (name.startsWith("llama") ? local(name) : gateway(name)));
// ---end---
const connection = await NativeConnection.connect({ address });
const worker = await createAgentWorker({ connection, taskQueue: "agents", agents: [support], model, ...prebuiltBundle() });
await worker.runUntil(async () => {
  const agents = new AgentClient({ client: new Client({ connection }), taskQueue: "agents" });
  const result = await agents.run(support, { prompt: "Is the gateway up?" });
  console.log(result.status === "completed" ? `answer: ${result.text}; fallback usage: ${JSON.stringify(result.usage.fallback)}` : result);
});
await connection.close();
