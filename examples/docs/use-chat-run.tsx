import { use } from "react";
const params = new URLSearchParams(location.search);
const headers = { authorization: `Bearer ${params.get("user")}` };
const runId = params.get("run")!;
// ---cut---
import { useChat } from "@ai-sdk/react";
import { approvalResponsesReady, RunChatTransport } from "durable-agents/react";

// One chat is one run of the agent: the chat id is the run id.
const transport = new RunChatTransport({ baseUrl: "/agents", headers, agent: "release-notes" });
const initial = transport.loadMessages(runId); // outside the component: use() needs the same promise on every render

export function RunView() {
  const { messages, sendMessage, status } = useChat({
    id: runId,
    transport,
    messages: use(initial),
    sendAutomaticallyWhen: approvalResponsesReady,
    resume: true, // a reload follows a run still being written
  });
  return <p>{status}: {messages.length} messages</p>;
}
