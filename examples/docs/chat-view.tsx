const token = new URLSearchParams(location.search).get("user") ?? "";
// ---cut---
import { useAgentChat } from "durable-agents/react";

export function ChatView({ threadId }: { threadId: string }) {
  const { messages, thread, status, isLoading, isRunning, isStopped, isFailed, error, sendMessage, stopThread, resumeThread, addToolResult } =
    useAgentChat({ threadId, baseUrl: "/agents", headers: { authorization: `Bearer ${token}` } }); // or fetch: myFetch
  return (
    <>
      {messages.map((m) => (
        <div key={m.metadata.key}>
          <b>{m.role}:</b> {m.parts.map((p, i) => (p.type === "text" ? <span key={i}>{p.text}</span> : null))}
        </div>
      ))}
      {isRunning && <button onClick={() => stopThread()}>Stop</button>}
      {(isStopped || isFailed) && <button onClick={() => resumeThread()}>Resume</button>}
      <input onKeyDown={(e) => e.key === "Enter" && sendMessage({ prompt: e.currentTarget.value })} />
    </>
  );
}
