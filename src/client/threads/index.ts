// Threads: the public surface, re-exported from `durable-agents`.
export { ThreadsClient, type ClientStreamOptions, type ThreadsClientOptions } from "./threads-client.js";
export type { ThreadWorkflowHandle } from "./thread-access.js";
export type {
  CreateThreadOptions,
  ThreadView,
  ThreadSummary,
  ThreadHandle,
  ThreadTarget,
  SendMessageOptions,
  AddMessageOptions,
  ResumeThreadOptions,
  ListThreadMessagesOptions,
  ListThreadsOptions,
  ThreadSettledOptions,
  AddToolResultOptions,
  AddToolErrorOptions,
  MessagePage,
  ToolResultReply,
} from "./thread-types.js";
export { defineAsyncTool, type AsyncToolDefinition, type AsyncToolOptions, type AsyncToolContext } from "../../core/define-async-tool.js";
export type { RetryState } from "./retry-state.js";
export type { ToolRetry, ToolRetryOptions, ToolBackoff, FixedBackoff, ExponentialBackoff, RetryErrorInfo } from "../../core/tool-retry.js";
export type {
  ThreadStatus,
  ThreadMessage,
  StreamUpdate,
  ToolProgressUpdate,
  CompactedUpdate,
  SubAgentProgress,
  SubAgentToolProgress,
  SubAgentRequester,
  StreamSnapshot,
  ThreadStatusChange,
  PendingApproval,
  ThreadFailure,
  OpenToolCall,
  ThreadSendReply,
  ThreadResumeReply,
  ThreadStopReply,
} from "../../core/thread-contracts.js";
