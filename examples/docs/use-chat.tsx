import { use } from "react";
const params = new URLSearchParams(location.search);
const headers = { authorization: `Bearer ${params.get("user")}` };
const threadId = params.get("thread")!;
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
