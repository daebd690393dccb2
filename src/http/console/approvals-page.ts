import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { ApprovalSummary } from "../../client/approval-inbox.js";
import { oneLine, printableJson } from "../../core/printable.js";
import { htmlDocument, timeLeft } from "../approval/page.js";
import { consoleNav, NAV_STYLE } from "./nav.js";
import { CONSOLE_STYLE } from "./page.js";

export interface ConsoleApprovalsView {
  title: string;
  approvals: ApprovalSummary[];
  /** The console's own path (`…/console`). */
  base: string;
  /** The inbox page's path, where each request is decided; absent when the inbox page is off. */
  inbox?: string;
  filters: { agent?: string; requires?: string };
  next?: string;
  nonce: string;
  now: number;
}

/**
 * The inbox's rows inside the console: what waits on people (approval requests and
 * `ctx.defer()` deferrals) the caller may list, each linking to the inbox's page that decides
 * it and to the console's list of its run or thread. No decision is taken here: the inbox's
 * pages keep that one place, with their checks.
 */
export function renderConsoleApprovals(view: ConsoleApprovalsView): Promise<string> {
  return htmlDocument({
    title: `${view.title}: approvals`,
    nonce: view.nonce,
    style: CONSOLE_STYLE + NAV_STYLE,
    main: html`${consoleNav(view.base, "approvals")}<h1>Waiting on people</h1>
<form class="filters" method="get" action="${view.base}/approvals" aria-label="Filters">
  <label>Agent <input name="agent" value="${view.filters.agent ?? ""}" maxlength="200" autocomplete="off"></label>
  <label>Requires <input name="requires" value="${view.filters.requires ?? ""}" maxlength="200" autocomplete="off" placeholder="a role in meta.requires"></label>
  <button type="submit">Filter</button>
</form>
${view.inbox ? "" : html`<p class="note">The inbox page is off (<code>inboxPage: false</code>): decide these through the client, the CLI or your own page.</p>`}
${
  view.approvals.length === 0
    ? html`<p class="empty">Nothing waits on a decision you may see.</p>`
    : html`<table class="rows approvals">
  <thead><tr><th scope="col">Request</th><th scope="col">Asks for</th><th scope="col">Run or thread</th><th scope="col">Agent</th><th scope="col">Acting for</th><th scope="col">Waiting</th></tr></thead>
  <tbody>${view.approvals.map((a) => row(a, view))}</tbody>
</table>`
}
${view.next ? html`<p><a href="${view.next}">Next page</a></p>` : ""}`,
  });
}

function row(a: ApprovalSummary, view: ConsoleApprovalsView): HtmlEscapedString | Promise<HtmlEscapedString> {
  const decide = view.inbox ? `${view.inbox}/${encodeURIComponent(a.approvalId)}` : undefined;
  const label = a.kind === "approval" ? "Decide" : "Open";
  return html`<tr class="row" data-id="${a.approvalId}" data-run="${a.runId}">
    <td data-label="Request"><span class="kind">${a.kind}</span> ${decide ? html`<a class="decide" href="${decide}" aria-label="${label} ${oneLine(a.approvalId)}">${label}</a>` : html`<code>${oneLine(a.approvalId)}</code>`}</td>
    <td data-label="Asks for">${a.calls.map((c, i) => html`${i > 0 ? ", " : ""}<code>${oneLine(c.toolName)}</code> <code class="args">${printableJson(clip(c.arguments))}</code>`)}</td>
    <td data-label="Run or thread"><a href="${view.base}?${new URLSearchParams({ q: a.runId })}">${oneLine(a.runId)}</a>${a.parentRunId ? html`<br><small>sub-agent of <code>${oneLine(a.parentRunId)}</code></small>` : ""}</td>
    <td data-label="Agent">${a.agentId ? html`<code>${oneLine(a.agentId)}</code>` : "—"}</td>
    <td data-label="Acting for">${a.principal ? html`<code>${oneLine(a.principal.id)}</code>` : "—"}</td>
    <td data-label="Waiting"><time datetime="${a.deferredAt}">${since(view.now - Date.parse(a.deferredAt))}</time>, expires in ${timeLeft(Date.parse(a.expiresAt) - view.now)}</td>
  </tr>`;
}

// Arguments are the model's: a long one is cut here, shown whole on the inbox's page.
const clip = (args: unknown) => {
  const text = typeof args === "string" ? args : JSON.stringify(args) ?? "";
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};
const since = (d: number) => (d < 60_000 ? "just now" : `${timeLeft(d)}`);
