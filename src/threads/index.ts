// Threads: the public surface, re-exported from `durable-agents` and `durable-agents/worker`.
export {
  ThreadsClient,
  type ThreadsClientOptions,
  type CreateThreadOptions,
  type ThreadView,
  type ThreadSummary,
  type ThreadHandle,
  type ThreadCaller,
  type SendMessageOptions,
  type AddMessageOptions,
  type ResumeThreadOptions,
  type ListMessagesOptions,
  type StreamUpdatesOptions,
  type FollowUpdatesOptions,
  type WaitUntilSettledOptions,
  type DecideThreadOptions,
  type AddToolResultOptions,
  type AddToolErrorOptions,
  type MessagePage,
  type ToolResultReply,
} from "./threads-client.js";
export { defineAsyncTool, type AsyncToolDefinition, type AsyncToolOptions, type AsyncToolContext } from "../core/define-async-tool.js";
export type { RetryState } from "./retry-state.js";
export type { ToolRetry, ToolRetryOptions, ToolBackoff, FixedBackoff, ExponentialBackoff, RetryErrorInfo } from "../core/tool-retry.js";
export type {
  ThreadStatus,
  ThreadMessage,
  StreamUpdate,
  StreamSnapshot,
  ThreadStatusChange,
  PendingApproval,
  ThreadFailure,
  OpenToolCall,
  ThreadSendReply,
  ThreadResumeReply,
  ThreadStopReply,
} from "../core/thread-contracts.js";
