// `durable-agents/worker`: what a worker process needs.
export { createAgentWorker, bundleAgentWorkflows, agentWorkflowsPath, type AgentWorkerOptions } from "./worker/create-agent-worker.js";
export { durableAgentsPlugin, DurableAgentsPlugin, type DurableAgentsPluginOptions } from "./worker/plugin.js";
export { openaiModel, type OpenAIModelOptions } from "./model/openai.js";
export { activityBinding, mintResumeToken } from "./deferral/token.js";
export { resumeDigest } from "./core/proof.js";
export type { DeferralConfig } from "./deferral/config.js";
export { createToolWorker, type ToolWorkerOptions } from "./threads/tool-worker.js";
export type { ThreadWorkerOptions } from "./threads/worker-options.js";
