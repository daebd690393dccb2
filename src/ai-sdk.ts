/**
 * `durable-agents/ai-sdk`: any AI SDK provider as a worker's model. An entry of its own
 * because its types come from the AI SDK (`ai`, an optional peer): `durable-agents/worker`
 * must type-check, `skipLibCheck` off, where `ai` is not installed.
 *
 * @example
 * ```ts
 * import { anthropic } from "@ai-sdk/anthropic";
 * import { aiSdkModel } from "durable-agents/ai-sdk";
 * import { createAgentWorker } from "durable-agents/worker";
 *
 * // A provider: each agent's `model` name picks its model. Or pass one LanguageModel for all.
 * await createAgentWorker({ connection, taskQueue: "agents", agents: [support], model: aiSdkModel(anthropic) });
 * ```
 *
 * @packageDocumentation
 * @module durable-agents/ai-sdk
 */
export { aiSdkModel, type AiSdkLanguageModel } from "./model/ai-sdk.js";
