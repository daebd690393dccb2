import { useChat } from "@ai-sdk/react";
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { ThreadChatTransport, threadsHttpClient, toUIMessages, type ChatUIMessage } from "../../../src/react.js";
import { baseUrl, headers } from "./session.js";

/** The same thread through the AI SDK's `useChat`: only the transport (and the first load) differ from a stock useChat app. */
export function UseChatView({ threadId }: { threadId: string }) {
  const [initial, setInitial] = useState<ChatUIMessage[]>();
  useEffect(() => {
    void threadsHttpClient({ baseUrl, headers })
      .listMessages(threadId)
      .then((stored) => setInitial(toUIMessages(stored)));
  }, [threadId]);
  return initial ? <Chat threadId={threadId} initial={initial} /> : <p className="hint">Loading…</p>;
}

function Chat({ threadId, initial }: { threadId: string; initial: ChatUIMessage[] }) {
  const transport = useMemo(() => new ThreadChatTransport({ baseUrl, headers }), []);
  const { messages, sendMessage, status, stop, error } = useChat({ id: threadId, transport, messages: initial });
  const [draft, setDraft] = useState("");
  const send = (event: FormEvent) => {
    event.preventDefault();
    if (!draft.trim()) return;
    void sendMessage({ text: draft });
    setDraft("");
  };
  return (
    <section className="chat">
      <header>
        <h1>useChat · {threadId.slice(0, 18)}</h1>
        <span className="status" data-testid="usechat-status">
          {status}
        </span>
        {(status === "streaming" || status === "submitted") && (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        )}
      </header>
      {error && <p className="error">{error.message}</p>}
      <div className="messages">
        {messages.map((m) => (
          <article key={m.id} className={`message ${m.role}`} data-role={m.role}>
            {m.parts.map((p, i) => (p.type === "text" ? <p key={i} className="text">{p.text}</p> : p.type.startsWith("tool-") ? <p key={i} className="tool">Tool {p.type.slice(5)}</p> : null))}
          </article>
        ))}
      </div>
      <form onSubmit={send}>
        <input aria-label="Message" value={draft} onChange={(e) => setDraft(e.target.value)} />
        <button type="submit">Send</button>
      </form>
    </section>
  );
}
