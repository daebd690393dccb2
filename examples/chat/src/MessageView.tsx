import type { ApprovalChatUIMessage, ChatUIApprovalPart, ChatUIProgressPart, ChatUIToolPart } from "../../../src/react.js";

type ToolPart = ChatUIToolPart | ChatUIApprovalPart;

/** One message: its text, and each tool call with what it was asked, how it is going and what it answered. */
export function MessageView({ message }: { message: ApprovalChatUIMessage }) {
  const streaming = message.metadata.status === "streaming";
  if (message.metadata.summary) return <Summary message={message} />;
  // A running call's latest progress report follows its part: shown inside the call's box.
  const progress = new Map(message.parts.flatMap((p) => (p.type === "data-tool-progress" ? [[p.id, p.data] as const] : [])));
  return (
    <article className={`message ${message.role}`} data-role={message.role} data-streaming={streaming || undefined}>
      {message.parts.map((part, i) => {
        if (part.type === "text") return <p key={i} className="text">{part.text}</p>;
        if (part.type === "step-start" || part.type === "data-tool-progress") return null;
        return <ToolCall key={part.toolCallId} part={part} progress={progress.get(part.toolCallId)} />;
      })}
    </article>
  );
}

function ToolCall({ part, progress }: { part: ToolPart; progress: ChatUIProgressPart["data"] | undefined }) {
  const name = part.type.slice("tool-".length);
  return (
    <details className={`tool ${part.state}`} data-tool={name} data-state={part.state} open={progress ? true : undefined}>
      <summary>
        Tool {name} <span className="state">{label[part.state]}</span>
      </summary>
      {progress && (
        <p className="progress" role="status">
          {progressText(progress.data)}
        </p>
      )}
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

/** A report as a line: `{ step, done, of }` as "step (done of of)", anything else as its JSON. */
function progressText(data: unknown): string {
  if (typeof data === "string") return data;
  const { step, done, of } = (data ?? {}) as { step?: unknown; done?: unknown; of?: unknown };
  const count = typeof done === "number" && typeof of === "number" ? `${done} of ${of}` : "";
  if (typeof step === "string") return count ? `${step} (${count})` : step;
  return count || JSON.stringify(data);
}

/** Where the thread compacted: the messages above are summarised here, and the model reads this in their place. */
function Summary({ message }: { message: ApprovalChatUIMessage }) {
  const text = message.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
  return (
    <details className="summary" data-summary>
      <summary>Earlier messages summarised: the assistant now reads this summary in their place</summary>
      <p>{text}</p>
    </details>
  );
}
