import { useEffect, useMemo, useState } from "react";
import { threadsHttpClient } from "../../../src/react.js";
import { baseUrl, headers } from "./session.js";

type Approval = { threadId: string; toolCallId: string; question: string; answerToken?: string; askedAt: string };

/**
 * The manager's inbox: questions askManager's callback left, each with its answer token
 * (served to managers only by the example server). Answering posts the result with the
 * token to the front door; the customer's page sees the turn go on.
 */
export function ApprovalInbox() {
  const http = useMemo(() => threadsHttpClient({ baseUrl, headers }), []);
  const [items, setItems] = useState<Approval[]>([]);
  const [error, setError] = useState<string>();

  const refresh = async () => {
    const response = await fetch("/app/approvals", { headers });
    if (response.ok) setItems(((await response.json()) as { approvals: Approval[] }).approvals);
  };
  useEffect(() => {
    void refresh();
    // A demo inbox: a real one would be pushed (email, chat) rather than polled.
    const timer = setInterval(() => void refresh(), 1000);
    return () => clearInterval(timer);
  }, []);

  const answer = async (item: Approval, approved: boolean) => {
    try {
      await http.addToolResult(item.threadId, item.toolCallId, { approved }, item.answerToken);
      setItems((all) => all.filter((i) => i.toolCallId !== item.toolCallId));
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <section className="inbox">
      <h2>Approvals</h2>
      {error && <p className="error">{error}</p>}
      {items.length === 0 && <p className="hint">Nothing waiting.</p>}
      {items.map((item) => (
        <div key={item.toolCallId} className="card approval" data-testid="approval-card">
          <p>{item.question}</p>
          <button type="button" onClick={() => void answer(item, true)}>
            Approve
          </button>
          <button type="button" onClick={() => void answer(item, false)}>
            Decline
          </button>
        </div>
      ))}
    </section>
  );
}
