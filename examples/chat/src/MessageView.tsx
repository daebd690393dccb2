import type { ApprovalChatUIMessage, ChatUIApprovalPart, ChatUIToolPart } from "../../../src/react.js";

type ToolPart = ChatUIToolPart | ChatUIApprovalPart;

/** One message: its text, and each tool call with what it was asked and what it answered. */
export function MessageView({ message }: { message: ApprovalChatUIMessage }) {
  const streaming = message.metadata.status === "streaming";
  return (
    <article className={`message ${message.role}`} data-role={message.role} data-streaming={streaming || undefined}>
      {message.parts.map((part, i) => {
        if (part.type === "text") return <p key={i} className="text">{part.text}</p>;
        if (part.type === "step-start") return null;
        return <ToolCall key={part.toolCallId} part={part as ToolPart} />;
      })}
    </article>
  );
}

function ToolCall({ part }: { part: ToolPart }) {
  const name = part.type.slice("tool-".length);
  return (
    <details className={`tool ${part.state}`} data-tool={name} data-state={part.state}>
      <summary>
        Tool {name} <span className="state">{label[part.state]}</span>
      </summary>
      <pre>{JSON.stringify(part.input, null, 2)}</pre>
      {part.state === "output-available" && <pre>{JSON.stringify(part.output, null, 2)}</pre>}
      {part.state === "output-error" && <pre className="error">{part.errorText}</pre>}
      {part.state === "output-denied" && <pre className="error">Rejected{part.approval.reason ? `: ${part.approval.reason}` : ""}</pre>}
    </details>
  );
}

export const label: Record<ToolPart["state"], string> = {
  "input-streaming": "writing…",
  "input-available": "running…",
  "approval-requested": "waiting for a decision",
  "approval-responded": "decided…",
  "output-available": "done",
  "output-error": "failed",
  "output-denied": "rejected",
};
