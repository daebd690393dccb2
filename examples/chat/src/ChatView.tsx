import { useState, type FormEvent } from "react";
import { useAgentChat } from "../../../src/react.js";
import { MessageView } from "./MessageView.js";
import { baseUrl, headers } from "./session.js";

export function ChatView({ threadId }: { threadId: string }) {
  const { messages, thread, status, isLoading, isRunning, isStopped, isFailed, error, sendMessage, stop, resume } = useAgentChat({ threadId, baseUrl, headers });
  const [draft, setDraft] = useState("");

  const send = (event: FormEvent) => {
    event.preventDefault();
    if (!draft.trim()) return;
    void sendMessage(draft).catch(() => undefined); // `error` shows a refusal
    setDraft("");
  };
  // Async calls waiting for someone else's answer: the customer sees that, never the token.
  const waiting = thread?.toolCalls.filter((c) => c.kind === "async" && c.state === "waiting") ?? [];

  return (
    <section className="chat">
      <header>
        <h1>Thread {threadId.slice(0, 18)}</h1>
        <span className={`status ${status}`} data-testid="status">
          {isLoading ? "loading" : status}
        </span>
        {isRunning && (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        )}
        {(isStopped || isFailed) && (
          <button type="button" onClick={() => void resume()}>
            Resume
          </button>
        )}
      </header>
      {error && (
        <p className="error" role="alert" data-code={error.code}>
          {error.code}: {error.message}
        </p>
      )}
      {isFailed && thread?.lastError && <p className="error">The turn failed: {thread.lastError.message}</p>}
      <div className="messages">
        {messages.map((m) => (
          <MessageView key={m.metadata.key} message={m} />
        ))}
        {waiting.map((c) => (
          <div key={c.toolCallId} className="card waiting" data-testid="waiting-card">
            Waiting for a manager to answer ({c.name}). You can close this page; the answer will be here.
          </div>
        ))}
      </div>
      <form onSubmit={send}>
        <input aria-label="Message" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Ask about an order, or for a refund…" />
        <button type="submit">Send</button>
      </form>
    </section>
  );
}
