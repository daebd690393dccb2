import { use } from "react";
declare const headers: Record<string, string>;
declare const threadId: string;
// ---cut---
import { useChat } from "@ai-sdk/react";
import { approvalResponsesReady, ThreadChatTransport } from "durable-agents/react";

const transport = new ThreadChatTransport({ baseUrl: "/agents", headers });
const initial = transport.loadMessages(threadId); // the stored messages, a waiting request's calls in approval-requested

export function Chat() {
  const { messages, sendMessage, stop, status, addToolApprovalResponse } = useChat({
    id: threadId,
    transport,
    messages: use(initial),
    sendAutomaticallyWhen: approvalResponsesReady,
  });
  return <p>{status}: {messages.length} messages</p>;
}
