import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { ApprovalSummary } from "../../client/approval-inbox.js";
import type { ApprovalRecord } from "../../core/approval-context.js";
import { renderWhyAsked } from "../approval/context-view.js";
import { oneLine, printable } from "../../core/printable.js";
import { htmlDocument, timeLeft } from "../approval/page.js";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface ListView {
  title: string;
  approvals: ApprovalSummary[];
  /** Where each request opens: this plus `/` and its encoded id. */
  base: string;
  /** The next page's address, when there is one. */
  next?: string;
  /** What the live script compares (the list's ETag). */
  version: string;
  /** 0: no live updates, no script. */
  refreshMs: number;
  nonce: string;
  now: number;
}

/**
 * The inbox's list: one row per waiting request (its tools and arguments, agent, where it
 * waits, what it requires, the time left), each opening the request's page. With live
 * updates a small script asks the page again every `refreshMs` with `If-None-Match`, which
 * costs one visibility listing while nothing changed (304), and swaps the list in when it did.
 */
export function renderList(view: ListView): Promise<string> {
  return htmlDocument({
    title: view.title,
    nonce: view.nonce,
    style: LIST_STYLE,
    main: html`<h1>${view.title}</h1>
<p class="description">Requests waiting for a decision that you may see.${view.refreshMs > 0 ? " The list updates by itself." : ""}</p>
${listBlock(view)}
<p id="inbox-live" class="live" role="status" aria-live="polite"></p>`,
    after: view.refreshMs > 0 ? html`<script nonce="${view.nonce}">${raw(LIVE_SCRIPT)}</script>` : undefined,
  });
}

/** The list alone, which the live script asks for (`X-Inbox-Live: 1`) and moves in. */
export async function renderListBlock(view: ListView): Promise<string> {
  return String(await listBlock(view));
}

function listBlock(view: ListView): Html {
  return html`<div id="inbox-list" data-version="${view.version}" data-refresh-ms="${String(view.refreshMs)}">
    ${
      view.approvals.length === 0
        ? html`<p class="empty">Nothing is waiting for a decision.</p>`
        : html`<ul class="requests">${view.approvals.map((a) => row(a, view))}</ul>`
    }
    ${view.next ? html`<p><a href="${view.next}">Next page</a></p>` : ""}
  </div>`;
}

function row(a: ApprovalSummary, view: ListView): Html {
  const title = oneLine(typeof a.meta.title === "string" ? a.meta.title : a.calls.map((c) => c.toolName).join(", "));
  const requires = Array.isArray(a.meta.requires) ? a.meta.requires.filter((r): r is string => typeof r === "string") : [];
  return html`<li class="request" data-approval-id="${a.approvalId}">
    <a href="${view.base}/${encodeURIComponent(a.approvalId)}">${title}</a>
    <ul class="calls">${a.calls.map((c) => html`<li><code>${oneLine(c.toolName)}</code> <code class="args">${printable(clip(c.arguments))}</code></li>`)}</ul>
    <p class="facts">${a.kind === "approval" ? "Approval" : "Answered through its own link"}${a.agentId ? html` · agent <code>${a.agentId}</code>` : ""} · in <code>${oneLine(a.runId)}</code>${
      requires.length > 0 ? html` · requires ${requires.join(", ")}` : ""
    } · <time datetime="${a.expiresAt}">${timeLeft(Date.parse(a.expiresAt) - view.now)}</time> left</p>
    ${a.principal ? html`<p class="facts acts-for">Acting for <code>${oneLine(a.principal.id)}</code></p>` : ""}
  </li>`;
}

/** A ctx.defer() deferral opened from the inbox: answered with the payload its schema asks for, through the link its tool sent. */
export function renderDeferral(record: ApprovalRecord, options: { title: string; back: string; nonce: string; now: number }): Promise<string> {
  const title = oneLine(options.title);
  return htmlDocument({
    title,
    nonce: options.nonce,
    main: html`<p class="back"><a href="${options.back}">All requests</a></p>
<h1>${title}</h1>
<dl class="details">
  ${record.agentId ? html`<dt>Agent</dt><dd>${record.agentId}</dd>` : ""}
  ${record.toolName ? html`<dt>Asked by</dt><dd><code>${record.toolName}</code></dd>` : ""}
  ${record.toolArguments !== undefined ? html`<dt>With</dt><dd><pre>${printable(record.toolArguments)}</pre></dd>` : ""}
  <dt>Time left</dt><dd><time datetime="${record.expiresAt}">${timeLeft(Date.parse(record.expiresAt) - options.now)}</time> (until ${record.expiresAt})</dd>
</dl>
${renderWhyAsked({ ...(record.principal ? { actsFor: record.principal } : {}), ...(record.context ? { context: record.context } : {}) })}
<section class="state" role="status"><p>This request is answered through the link its tool sent (it carries the request's token), not from the inbox.</p></section>`,
  });
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

const LIST_STYLE = `
ul.requests{list-style:none;padding:0;margin:0}
li.request{border:1px solid #ccd;border-radius:6px;padding:.75rem 1rem;margin:.75rem 0}
li.request>a{font-weight:600;font-size:1.05rem}
ul.calls{margin:.25rem 0;padding-left:1.25rem}.args{word-break:break-all}
.facts{color:#4a5360;margin:.25rem 0 0;font-size:.9rem}.live{color:#4a5360;font-size:.9rem}
`;

/**
 * Asks for the list again with its version as `If-None-Match`: a 304 costs the server one
 * visibility listing; a 200 carries the new list alone, parsed as an inert document (its
 * scripts would never run) and moved in. Paused while the tab is hidden; one ask at a time.
 */
const LIVE_SCRIPT = `(() => {
  const list = document.getElementById("inbox-list");
  const live = document.getElementById("inbox-live");
  if (!list) return;
  const every = Number(list.dataset.refreshMs);
  let busy = false;
  async function check() {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const res = await fetch(location.href, { headers: { "if-none-match": '"' + list.dataset.version + '"', "x-inbox-live": "1" }, credentials: "same-origin", cache: "no-store" });
      if (res.status !== 200) return;
      const fresh = new DOMParser().parseFromString(await res.text(), "text/html").getElementById("inbox-list");
      if (!fresh || fresh.dataset.version === list.dataset.version) return;
      list.replaceChildren(...Array.from(fresh.childNodes));
      list.dataset.version = fresh.dataset.version;
      if (live) live.textContent = "The list was updated at " + new Date().toLocaleTimeString() + ".";
    } catch {
      // Offline or the server restarted: the next tick asks again.
    } finally {
      busy = false;
    }
  }
  setInterval(check, every);
  document.addEventListener("visibilitychange", check);
})();`;
