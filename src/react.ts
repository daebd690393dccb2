/**
 * `durable-agents/react`: hooks for chat UIs over the HTTP front door (`useAgentChat`,
 * `useThreadMessages`, `useApprovals`), the stores behind them, and a `ChatTransport` for the
 * AI SDK's `useChat` over a thread or a run. Browser code: it imports only the pure kernel, never Node.
 *
 * @example
 * ```tsx
 * import { useAgentChat } from "durable-agents/react";
 *
 * export function ChatView({ threadId }: { threadId: string }) {
 *   const { messages, sendMessage } = useAgentChat({ threadId, baseUrl: "/agents" });
 *   return (
 *     <>
 *       {messages.map((m) => <p key={m.metadata.key}>{m.role}: {m.parts.map((p) => (p.type === "text" ? p.text : "")).join("")}</p>)}
 *       <input onKeyDown={(e) => e.key === "Enter" && sendMessage(e.currentTarget.value)} />
 *     </>
 *   );
 * }
 * ```
 *
 * @packageDocumentation
 * @module durable-agents/react
 */
export { useAgentChat, type AgentChatResult, type UseAgentChatOptions } from "./react/use-agent-chat.js";
export { useApprovals, type ApprovalsResult, type UseApprovalsOptions } from "./react/use-approvals.js";
export { ApprovalsStore, type ApprovalRow, type ApprovalsStoreOptions, type ApprovalsStoreState } from "./react/approvals-store.js";
export {
  approvalResponses,
  approvalResponsesReady,
  approvalUiId,
  parseApprovalUiId,
  withApprovalStates,
  type ApprovalChatUIMessage,
  type UIMessagePartLike,
  type ChatUIApprovalMessagePart,
  type ChatUIApprovalPart,
} from "./react/approval-parts.js";
export { useThreadMessages, type ThreadMessagesResult, type UseThreadMessagesOptions } from "./react/use-thread-messages.js";
export { ThreadStore, type ThreadStoreOptions, type ThreadStoreState } from "./react/thread-store.js";
export { ThreadChatTransport, type ThreadChatTransportOptions } from "./react/chat-transport.js";
export { RunChatTransport, type RunChatTransportOptions } from "./react/run-chat-transport.js";
export {
  AgentHttpClient,
  type AgentHttpClientOptions,
  type ApprovalsHttpClient,
  type HttpCallOptions,
  type HttpEventsOptions,
  type HttpListApprovalsOptions,
  type HttpStartOptions,
  type StreamEvent,
  type ThreadsHttpClient,
} from "./react/agent-http-client.js";
export { ChatError, type ChatErrorFields } from "./react/chat-error.js";
export { toUIMessages, isThreadRunning, type ChatUIMessage, type ChatUIMessageMetadata, type ChatUIPart, type ChatUIProgressPart, type ChatUIToolPart, type ChatUIToolState, type StreamingDraft } from "./core/ui-messages.js";
export type { PendingApproval, StreamUpdate, ThreadMessage, ThreadStatus, ToolProgressUpdate } from "./core/thread-contracts.js";
export type { Decision, Decisions, RespondOptions } from "./core/approval.js";
export type { ApprovalRequestContext, ApprovalRequestContextMessage } from "./core/approval-context.js";
export type { ApprovalDetail, ApprovalSummary } from "./client/approval-inbox.js";
export type { ResumeResult } from "./client/resume.js";
export type { ThreadView } from "./client/threads/thread-types.js";
