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
const gateway = createOpenAICompatible({ name: "gateway", baseURL: "http://localhost:8000/v1" });
const local = createOpenAICompatible({ name: "local", baseURL: "http://localhost:11434/v1" });
export const model = aiSdkModel((name) => (name.startsWith("llama") ? local(name) : gateway(name)));
