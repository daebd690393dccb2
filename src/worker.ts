/**
 * `durable-agents/worker`: what a worker process needs: `createAgentWorker` (or the
 * `durableAgentsPlugin` for a `Worker.create` of your own), tool workers for work pools, the
 * OpenAI-compatible model adapter, and minting resume tokens in activities of your own.
 *
 * @example
 * ```ts
 * import { NativeConnection } from "@temporalio/worker";
 * import { createAgentWorker, openaiModel } from "durable-agents/worker";
 * import { weather } from "./agents.js";
 *
 * const worker = await createAgentWorker({
 *   connection: await NativeConnection.connect({ address: "localhost:7233" }),
 *   taskQueue: "agents",
 *   agents: [weather],
 *   model: openaiModel(),
 *   deferral: { secret: process.env.DEFERRAL_SECRET!, defaultTtl: "72h" },
 * });
 * await worker.run();
 * ```
 *
 * @packageDocumentation
 * @module durable-agents/worker
 */
export { createAgentWorker, bundleAgentWorkflows, agentWorkflowsPath, type AgentWorkerOptions } from "./worker/create-agent-worker.js";
export { durableAgentsPlugin, DurableAgentsActivitiesPlugin, DurableAgentsPlugin, type DurableAgentsPluginOptions } from "./worker/plugin.js";
export { openaiModel, type OpenAIModelOptions } from "./model/openai.js";
export { activityBinding, mintResumeToken } from "./deferral/token.js";
export type { TokenBinding } from "./core/proof.js";
export { resumeDigest } from "./core/proof.js";
export type { DeferralConfig } from "./deferral/config.js";
export { createToolWorker, type ToolWorkerOptions } from "./worker/tool-worker.js";
export type { ThreadStreamOptions, ThreadWorkerOptions } from "./worker/thread-options.js";
