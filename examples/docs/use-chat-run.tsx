import { use } from "react";
declare const headers: Record<string, string>;
declare const runId: string;
// ---cut---
import { useChat } from "@ai-sdk/react";
import { approvalResponsesReady, RunChatTransport } from "durable-agents/react";

// One chat is one run of the agent: the chat id is the run id.
const transport = new RunChatTransport({ baseUrl: "/agents", headers, agent: "release-notes" });

export function RunView() {
  const { messages, sendMessage, status } = useChat({
    id: runId,
    transport,
    messages: use(transport.loadMessages(runId)),
    sendAutomaticallyWhen: approvalResponsesReady,
    resume: true, // a reload follows a run still being written
  });
  return <p>{status}: {messages.length} messages</p>;
}
