/**
 * `durable-agents`: agent and tool definitions, the clients (`AgentClient`, `ThreadsClient`,
 * the deferral store and the approvals inbox), the typed errors with their codes, the size
 * limits, and the payload codecs. Import it from any service that starts, reads, resumes or
 * cancels runs and threads; the worker side is `durable-agents/worker`.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { Connection } from "@temporalio/client";
 * import { AgentClient, defineAgent, defineTool } from "durable-agents";
 *
 * const getWeather = defineTool({
 *   name: "getWeather",
 *   description: "Current weather for a city",
 *   input: z.object({ city: z.string() }),
 *   handler: async ({ city }) => ({ city, celsius: 21 }),
 * });
 * const weather = defineAgent({ id: "weather", model: "gpt-4.1-mini", system: "Answer with tools.", tools: [getWeather] });
 *
 * const agents = new AgentClient({ connection: await Connection.connect(), taskQueue: "agents" });
 * const result = await agents.run(weather, { prompt: "Weather in Oslo?", runId: "ticket-123" });
 * ```
 *
 * @packageDocumentation
 * @module durable-agents
 */
export { defineTool, type ToolCallContext, type ToolContext, type ToolDefinition, type ToolOptions, type ApprovalContext, type ApprovalPolicyAnswer, type ApprovalNotifyContext, type ApprovalOptions, type ApprovalEscalation, type ApprovalRequestInfo } from "./core/define-tool.js";
export type { ApprovalCall, ApprovalDecisions, ApprovalEscalationPlan, ApprovalSchedule, Decision, Decisions, RespondOptions } from "./core/approval.js";
// Per-call decisions (#49).
export type { DecidedCall } from "./core/approval.js";
export { MAX_APPROVAL_BYTES, MAX_DECISION_TEXT } from "./core/approval.js";
export { MAX_APPROVAL_REMINDERS } from "./core/define-tool.js";
export { ApprovalInbox, type ApprovalDetail, type ApprovalHistory, type ApprovalSummary, type ListApprovalsOptions, type RunApprovalHistory, type RunApprovalHistoryOptions } from "./client/approval-inbox.js";
export type { PrincipalApprovalHistory, PrincipalApprovalHistoryOptions } from "./client/approval-history.js";
export type { ApprovalTrailEntry, InputChange } from "./core/approval-trail.js";
// Standing permissions (#49): granted with an approval, listed and revoked per run or thread.
export type { PermissionGrant, StandingPermission } from "./core/approval-permissions.js";
export { MAX_GRANT_BYTES, MAX_PERMISSION_MS, MAX_PERMISSIONS } from "./core/approval-permissions.js";
export type { PermissionsTarget, RevokePermissionOptions } from "./client/approval-inbox.js";
export type { ApprovalRequestContext, ApprovalRequestContextMessage } from "./core/approval-context.js";
export { defineAgent, type AgentDefinition, type AgentOptions, type CompactionOptions, type ResolvedCompaction, type DeniedDeferral, type OutputSchema, type PrincipalInfo } from "./core/define-agent.js";
export type { StandardResult, StandardSchema } from "./core/schema.js";
export {
  AgentClient,
  type AgentClientOptions,
  type CancelOptions,
  type RunHandle,
  type RunOptions,
  type RunTarget,
  type RunWorkflowHandle,
  type SettledOptions,
} from "./client/agent-client.js";
export {
  AgentSchedules,
  type AgentScheduleDescription,
  type AgentScheduleSpec,
  type AgentScheduleSummary,
  type CreateScheduleOptions,
  type ListSchedulesOptions,
  type PauseScheduleOptions,
  type ScheduledRun,
  type ScheduledRunStatus,
  type ScheduledRunOptions,
  type ScheduleOverlap,
  type ScheduleTarget,
  type TriggerScheduleOptions,
  type UpdateScheduleOptions,
} from "./client/schedules.js";
export type { ClientConnectionOptions } from "./client/connection.js";
export type { DecideOptions, FollowUpdatesOptions, ListMessagesOptions, StreamUpdatesOptions } from "./client/shared-options.js";
export type { UiSummary } from "./client/start-run.js";
export type { AgentResult, RunMessagePage, RunProgress, RunState, RunStatus } from "./core/run-state.js";
export { MAX_PAYLOAD_BYTES, MAX_PAGE_BYTES, MAX_PRINCIPAL_BYTES, jsonBytes } from "./core/payload-size.js";
export { MAX_PROGRESS_BYTES, PROGRESS_INTERVAL_MS } from "./core/tool-progress.js";
export {
  DEFAULT_MAX_TOOL_CALLS,
  MAX_TOOL_CALLS_CEILING,
  RUN_TRANSCRIPT_BYTES,
  STEP_RESULT_BYTES,
  THREAD_TRANSCRIPT_BYTES,
} from "./core/transcript-budget.js";
export type { AssistantMessage, ChatMessage, SystemMessage, TokenCounts, ToolCall, ToolMessage, Usage, UserMessage } from "./core/messages.js";
export type { Model, ModelRequest, ModelResponse, ModelDelta, ToolSpec, ModelSettings } from "./core/model.js";
export { isContextOverflow } from "./core/context-overflow.js";
export { aesGcmCodec, type AesGcmCodecOptions } from "./codec/aes-gcm.js";
export { remoteCodec, type RemoteCodecOptions } from "./codec/remote.js";
export { resumeDigest } from "./core/proof.js";
export { DeferError, type DeferOptions, type DeferSignal } from "./core/defer.js";
export type { DeferralConfig } from "./deferral/config.js";
export type {
  AuthorizeHook,
  AuthorizeOperation,
  AuthorizeRequest,
  AuthorizeRequestOf,
  Caller,
  RunAuthorizeRequest,
  RunOperation,
  ResumeDeferral,
  ScheduleAuthorizeRequest,
  ScheduleOperation,
  ThreadAuthorizeRequest,
  ThreadOperation,
} from "./client/authorize.js";
export type { ResumeOptions, ResumePreview, ResumeResult } from "./client/resume.js";
export {
  DeferralStore,
  type DeferralPage,
  type DeferralSummary,
  type DeferralTarget,
  type DenyOptions,
  type ListDeferralsOptions,
  type ReplaceStepStateOptions,
} from "./client/deferral-store.js";
export { replaceDeferredThread, type ReplaceDeferredThreadOptions, type ThreadRewrite } from "./client/replace-deferred-thread.js";
export { assertResumableThread } from "./core/thread-transcript.js";
export type {
  DeferralRecord,
  DeferralStatus,
  DeferralView,
  DeferredAck,
  DenyReply,
  DeferralEvent,
  FailureInfo,
  ReplaceStepStateReply,
  RunOutcome,
  StepState,
} from "./core/deferral-record.js";
export type { ExpiredDeferral } from "./core/define-agent.js";
export type { DefinitionPart, DefinitionParts } from "./core/fingerprint.js";
export type { JsonValue, JsonObject, Principal } from "./core/json.js";
export * from "./core/errors/index.js";
export * from "./client/threads/index.js";
export {
  toUIMessages,
  isThreadRunning,
  type ChatUIMessage,
  type ChatUIMessageMetadata,
  type ChatUIPart,
  type ChatUIProgressPart,
  type ChatUIToolPart,
  type ChatUIToolState,
  type StreamingDraft,
  type ToUIMessagesOptions,
} from "./core/ui-messages.js";
export { emptyFold, foldStreamUpdates, withStoredMessages, type ThreadFold } from "./core/stream-fold.js";
export { inProcessStreamTransport } from "./stream/in-process.js";
export { directStreamTransport, type DirectStreamTransport, type DirectStreamTransportOptions } from "./stream/direct.js";
export type { EndpointAnnouncement } from "./stream/direct-beacon.js";
export type { PublishContext, StreamBatch, StreamSubscription, StreamTransport, SubscribeContext } from "./stream/transport.js";
