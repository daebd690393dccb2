// `durable-agents`: definitions, the client façade and the typed errors.
export { defineTool, type ToolContext, type ToolDefinition, type ToolOptions } from "./define-tool.js";
export { defineAgent, type AgentDefinition, type AgentOptions } from "./define-agent.js";
export { AgentClient, type AgentClientOptions, type RunHandle, type RunOptions } from "./client/agent-client.js";
export type { AgentResult, RunState, RunStatus } from "../workflows/run-state.js";
export type { ChatMessage, ToolCall, Usage } from "./model/messages.js";
export type { Model, ModelRequest, ModelResponse, ModelDelta, ToolSpec } from "./model/model.js";
export { isContextOverflow } from "./model/context-overflow.js";
export { DeferError, type DeferOptions, type DeferSignal } from "./deferral/defer.js";
export type { DeferralConfig } from "./deferral/config.js";
export type { AuthorizeHook, AuthorizeRequest, ResumeOptions, ResumeResult } from "./client/resume.js";
export { DeferralStore, type DeferralPage, type DeferralSummary, type ListDeferralsOptions } from "./client/deferral-store.js";
export { replaceDeferredThread, type ThreadRewrite } from "./client/replace-deferred-thread.js";
export { assertResumableThread } from "./deferral/assert-resumable-thread.js";
export type {
  DeferralRecord,
  DeferralStatus,
  DeferralView,
  DeferredAck,
  DeferralEvent,
  ReplaceStepStateReply,
  RunOutcome,
  StepState,
} from "../workflows/deferral-record.js";
export type { ExpiredDeferral } from "./define-agent.js";
export type { JsonValue, JsonObject, Principal } from "./json.js";
export * from "./errors/index.js";
export * from "./threads/index.js";
