import { Client } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { AgentClient, defineAgent } from "durable-agents";
import { address } from "../docs-support/env.js";
const support = defineAgent({ id: "support", model: "llama3.1:8b", system: "You help customers." });
const connection = await NativeConnection.connect({ address });
// ---cut---
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { aiSdkModel } from "durable-agents/ai-sdk";
import { createAgentWorker } from "durable-agents/worker";

// Any AI SDK provider (@ai-sdk/anthropic, @ai-sdk/google, …): each agent's `model` name picks its model.
// Or pass one LanguageModel for all.
const provider = createOpenAICompatible({ name: "local", baseURL: process.env.OLLAMA_BASE_URL ?? "http://localhost:11434/v1" });
const worker = await createAgentWorker({ connection, taskQueue: "agents", agents: [support], model: aiSdkModel(provider) });
// ---end---
await worker.runUntil(async () => {
  const agents = new AgentClient({ client: new Client({ connection }), taskQueue: "agents" });
  const result = await agents.run(support, { prompt: "Where is my order?" });
  console.log(result.status === "completed" ? `answer: ${result.text}` : result);
});
await connection.close();
