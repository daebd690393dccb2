import { html } from "hono/html";
import type { ApprovalRequestContext, ApprovalRequestContextMessage } from "../../core/approval-context.js";
import type { Principal } from "../../core/json.js";
import { oneLine, printable } from "../../core/printable.js";

/**
 * "What the approver sees", a section of its own on the approval and inbox pages: who the
 * run acts for, and (where `authorize` allowed `approval.context`) why the agent asks. All of
 * it is text from users, models and tools: escaped as HTML by the template, its controls and
 * direction marks shown as escapes (`printable`).
 */
export function renderWhyAsked(view: { actsFor?: Principal; context?: ApprovalRequestContext }) {
  if (!view.actsFor && !view.context) return "";
  const { actsFor, context } = view;
  return html`<section class="why-asked" aria-labelledby="why-asked-h">
    <h2 id="why-asked-h">Why the agent asks</h2>
    ${actsFor ? html`<p class="acts-for">Acting for <code>${oneLine(actsFor.id)}</code></p>` : ""}
    ${
      context
        ? html`${context.request ? html`<h3>The request</h3>${message(context.request)}` : ""}
    ${context.toolResults.length > 0 ? html`<h3>Tool results it read</h3>${context.toolResults.map(message)}` : ""}
    ${context.messages.length > 0 ? html`<h3>The agent's last messages</h3>${context.messages.map(message)}` : ""}`
        : ""
    }
  </section>`;
}

function message(m: ApprovalRequestContextMessage) {
  return html`<figure class="context-message context-${m.role}">
    ${m.toolName ? html`<figcaption><code>${oneLine(m.toolName)}</code></figcaption>` : ""}
    <pre>${printable(m.text)}${m.truncated ? "…" : ""}</pre>
    ${m.truncated ? html`<p class="cut">(cut to its first ${String(m.text.length)} characters)</p>` : ""}
  </figure>`;
}

/** The section's style, added to the pages' sheet. */
export const WHY_ASKED_STYLE = `
section.why-asked{border-top:1px solid #ccd;margin:1rem 0;padding-top:.5rem}section.why-asked h2{font-size:1.1rem}
section.why-asked h3{font-size:1rem;margin:.75rem 0 .25rem}figure.context-message{margin:.5rem 0}
figure.context-message pre{max-height:12rem;overflow:auto}.cut{color:#4a5360;font-size:.9rem;margin:.25rem 0 0}
`;
