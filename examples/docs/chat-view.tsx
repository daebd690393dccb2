const token = new URLSearchParams(location.search).get("user") ?? "";
// ---cut---
import { useAgentChat } from "durable-agents/react";

export function ChatView({ threadId }: { threadId: string }) {
  const { messages, thread, status, isLoading, isRunning, isStopped, isFailed, error, sendMessage, stop, resume, addToolResult } =
    useAgentChat({ threadId, baseUrl: "/agents", headers: { authorization: `Bearer ${token}` } }); // or fetch: myFetch
  return (
    <>
      {messages.map((m) => (
        <div key={m.metadata.key}>
          <b>{m.role}:</b> {m.parts.map((p, i) => (p.type === "text" ? <span key={i}>{p.text}</span> : null))}
        </div>
      ))}
      {isRunning && <button onClick={() => stop()}>Stop</button>}
      {(isStopped || isFailed) && <button onClick={() => resume()}>Resume</button>}
      <input onKeyDown={(e) => e.key === "Enter" && sendMessage(e.currentTarget.value)} />
    </>
  );
}
