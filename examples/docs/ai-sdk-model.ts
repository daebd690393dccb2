import { NativeConnection } from "@temporalio/worker";
import type { AgentDefinition } from "durable-agents";
declare const support: AgentDefinition;
// ---cut---
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { aiSdkModel } from "durable-agents/ai-sdk";
import { createAgentWorker } from "durable-agents/worker";

// Any AI SDK provider (@ai-sdk/anthropic, @ai-sdk/google, …): each agent's `model` name picks its model.
// Or pass one LanguageModel for all.
const provider = createOpenAICompatible({ name: "local", baseURL: "http://localhost:11434/v1" });
await createAgentWorker({ connection: await NativeConnection.connect(), taskQueue: "agents", agents: [support], model: aiSdkModel(provider) });
