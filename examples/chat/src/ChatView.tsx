import { useState, type FormEvent } from "react";
import { useAgentChat, type PendingApproval } from "../../../src/react.js";
import { MessageView } from "./MessageView.js";
import { baseUrl, decidedByManager, headers } from "./session.js";

export function ChatView({ threadId }: { threadId: string }) {
  const { messages, thread, approvals, status, isLoading, isRunning, isStopped, isFailed, error, sendMessage, stopThread, resumeThread, approve, reject } = useAgentChat({
    threadId,
    baseUrl,
    headers,
  });
  const [draft, setDraft] = useState("");

  const send = (event: FormEvent) => {
    event.preventDefault();
    if (!draft.trim()) return;
    void sendMessage({ prompt: draft }).catch(() => undefined); // `error` shows a refusal
    setDraft("");
  };

  return (
    <section className="chat">
      <header>
        <h1>Thread {threadId.slice(0, 18)}</h1>
        <span className={`status ${status}`} data-testid="status">
          {isLoading ? "loading" : status}
        </span>
        {isRunning && (
          <button type="button" onClick={() => void stopThread()}>
            Stop
          </button>
        )}
        {(isStopped || isFailed) && (
          <button type="button" onClick={() => void resumeThread()}>
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
        {approvals.map((request) => (
          <ApprovalCard
            key={request.approvalId}
            request={request}
            onApprove={() => void approve({ approvalId: request.approvalId }).catch(() => undefined)}
            onReject={() => void reject({ approvalId: request.approvalId, reason: "the customer said no" }).catch(() => undefined)}
          />
        ))}
      </div>
      <form onSubmit={send}>
        <input aria-label="Message" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Ask about an order, to cancel one, or for a refund…" />
        <button type="submit">Send</button>
      </form>
    </section>
  );
}

/** A request the turn waits on: the customer confirms their own, and sees that a manager's is waiting. */
function ApprovalCard({ request, onApprove, onReject }: { request: PendingApproval; onApprove: () => void; onReject: () => void }) {
  const forManager = request.calls.some((c) => decidedByManager(c.toolName));
  const what = request.calls.map((c) => `${c.toolName} ${c.arguments}`).join(", ");
  if (forManager) {
    return (
      <div className="card waiting" data-testid="waiting-card">
        Waiting for a manager to approve ({what}). You can close this page; the answer will be here.
      </div>
    );
  }
  return (
    <div className="card approval" data-testid="confirm-card">
      <p>Confirm: {what}?</p>
      <button type="button" onClick={onApprove}>
        Approve
      </button>
      <button type="button" onClick={onReject}>
        Reject
      </button>
    </div>
  );
}
