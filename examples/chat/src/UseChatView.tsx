import { useChat } from "@ai-sdk/react";
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { approvalResponsesReady, ThreadChatTransport, type ApprovalChatUIMessage } from "../../../src/react.js";
import { label } from "./MessageView.js";
import { baseUrl, decidedByManager, headers } from "./session.js";

/**
 * The same thread through the AI SDK's `useChat`: only the transport, the first load and
 * `sendAutomaticallyWhen` differ from a stock useChat app with tool approvals.
 */
export function UseChatView({ threadId }: { threadId: string }) {
  const transport = useMemo(() => new ThreadChatTransport({ baseUrl, headers }), []);
  const [initial, setInitial] = useState<ApprovalChatUIMessage[]>();
  useEffect(() => {
    void transport.loadMessages(threadId).then(setInitial);
  }, [transport, threadId]);
  return initial ? <Chat threadId={threadId} transport={transport} initial={initial} /> : <p className="hint">Loading…</p>;
}

function Chat({ threadId, transport, initial }: { threadId: string; transport: ThreadChatTransport; initial: ApprovalChatUIMessage[] }) {
  const { messages, sendMessage, addToolApprovalResponse, status, stop, error } = useChat({
    id: threadId,
    transport,
    messages: initial,
    // Once every call waiting in the answer has a response, useChat sends it; the transport decides on the thread and streams the rest.
    sendAutomaticallyWhen: approvalResponsesReady,
  });
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
            {m.parts.map((p, i) => {
              if (p.type === "text") return <p key={i} className="text">{p.text}</p>;
              if (!p.type.startsWith("tool-") || !("toolCallId" in p)) return null;
              const name = p.type.slice("tool-".length);
              return (
                <div key={p.toolCallId} className={`tool ${p.state}`} data-tool={name} data-state={p.state}>
                  <p>
                    Tool {name} <span className="state">{label[p.state as keyof typeof label] ?? p.state}</span>
                  </p>
                  {p.state === "approval-requested" &&
                    (decidedByManager(name) ? (
                      <p className="card waiting">Waiting for a manager to approve.</p>
                    ) : (
                      <div className="card approval" data-testid="confirm-card">
                        <p>
                          Confirm {name} <code>{JSON.stringify(p.input)}</code>?
                        </p>
                        <button type="button" onClick={() => void addToolApprovalResponse({ id: p.approval.id, approved: true })}>
                          Approve
                        </button>
                        <button type="button" onClick={() => void addToolApprovalResponse({ id: p.approval.id, approved: false, reason: "the customer said no" })}>
                          Reject
                        </button>
                      </div>
                    ))}
                </div>
              );
            })}
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
