import { useApprovals } from "../../../src/react.js";
import { baseUrl, headers } from "./session.js";

/**
 * The manager's inbox: the requests that need a manager (`requires: "manager"`), across every
 * customer's threads, from the front door's `GET /approvals`. Approving or rejecting posts
 * the decision (`POST /approvals/:id`); the customer's page sees the turn go on.
 */
export function ApprovalInbox() {
  // A demo inbox: a real one would also tell the manager (approval.notify: an email, a chat message).
  const { approvals, error, approve, reject, read } = useApprovals({ baseUrl, headers, requires: "manager", refreshInterval: "1s" });

  return (
    <section className="inbox">
      <h2>Approvals</h2>
      {error && <p className="error">{error.message}</p>}
      {approvals.length === 0 && <p className="hint">Nothing waiting.</p>}
      {approvals.map((request) => (
        <div key={request.approvalId} className="card approval" data-testid="approval-card">
          {request.calls.map((call) => (
            <p key={call.toolCallId}>
              <strong>{call.toolName}</strong> <code>{call.arguments}</code>
            </p>
          ))}
          <p className="hint">Asked for {request.actsFor?.id ?? request.principal?.id ?? "someone"}, open until {new Date(request.expiresAt).toLocaleString()}</p>
          {request.context?.request ? (
            <blockquote className="why" data-testid="why">
              {request.context.request.text}
            </blockquote>
          ) : (
            <button type="button" onClick={() => void read(request.approvalId).catch(() => undefined)}>
              Why?
            </button>
          )}
          <button type="button" onClick={() => void approve({ approvalId: request.approvalId }).catch(() => undefined)}>
            Approve
          </button>
          <button type="button" onClick={() => void reject({ approvalId: request.approvalId, reason: "declined by the manager" }).catch(() => undefined)}>
            Reject
          </button>
        </div>
      ))}
    </section>
  );
}
