// `durable-agents/react`: hooks for chat UIs over the HTTP front door, and a `ChatTransport`
// for the AI SDK's `useChat`. Browser code: it imports only the pure kernel, never Node.
export { useAgentChat, type AgentChatResult, type UseAgentChatOptions } from "./react/use-agent-chat.js";
export { useThreadMessages, type ThreadMessagesResult, type UseThreadMessagesOptions } from "./react/use-thread-messages.js";
export { ThreadStore, type ThreadState, type ThreadStoreOptions } from "./react/thread-store.js";
export { ThreadChatTransport, type ThreadChatTransportOptions } from "./react/chat-transport.js";
export { threadsHttpClient, type ThreadsHttpClient, type ThreadsHttpOptions, type ThreadEvent } from "./react/threads-http.js";
export { ChatError, type ChatErrorFields } from "./react/chat-error.js";
export { toUIMessages, isThreadRunning, type ChatUIMessage, type ChatUIMessageMetadata, type ChatUIPart, type ChatUIToolPart, type ChatUIToolState, type StreamingDraft } from "./core/ui-messages.js";
export type { StreamUpdate, ThreadMessage, ThreadStatus } from "./core/thread-contracts.js";
export type { ThreadView } from "./threads/threads-client.js";
