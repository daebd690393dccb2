import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { ChatMessage } from "../../core/messages.js";
import { oneLine, printable, printableJson } from "../../core/printable.js";
import { htmlDocument, timeLeft } from "../approval/page.js";
import { CHART_STYLE, renderCharts } from "./charts.js";
import type { ConsoleDetail, FailureView, TimelineEntry } from "./history.js";
import { PAGING_STYLE, renderTurnNav, turnsIn, type TurnWindow } from "./paging.js";
import { renderAsyncWait, renderEdits, renderSubAgentTree, renderTimelineExtra, TREE_STYLE, type SubAgentNode } from "./tree.js";
import { LIST_STATUSES, type ConsoleRow } from "./list.js";
import { actionForms, type DenyAction, type TurnActions } from "./action-forms.js";
import { consoleNav, NAV_STYLE } from "./nav.js";
import { livePanel } from "./live.js";
import { ROW_SUMMARY_SCRIPT, ROW_SUMMARY_STYLE, rowSummaryCells } from "./row-summary.js";
import { modelTotals } from "./summary.js";
import type { InboxRow } from "../../core/inbox-row.js";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface ConsoleListView {
  title: string;
  rows: ConsoleRow[];
  /** The console's own path (`…/console`). */
  base: string;
  /** The filters as the address gives them (`status`, `kind`, `agent`, `q`, `principal`, `after`, `before`). */
  filters: Record<string, string | undefined>;
  next?: string;
  /** Live updates: the list's own address, its version, and how often to ask (absent: no script). */
  live?: { src: string; version: string; everyMs: number };
  nonce: string;
  now: number;
}

/** The list: one row per run or thread the caller may read, with filters (a GET form, so the address is the filter). */
export function renderConsoleList(view: ConsoleListView): Promise<string> {
  const f = view.filters;
  return htmlDocument({
    title: view.title,
    nonce: view.nonce,
    style: CONSOLE_STYLE + NAV_STYLE + ROW_SUMMARY_STYLE,
    main: html`${consoleNav(view.base, f.kind === "run" ? "runs" : f.kind === "thread" ? "threads" : "all")}<h1>${view.title}</h1>
<form class="filters" method="get" action="${view.base}" aria-label="Filters">
  <label>Search by id <input name="q" value="${f.q ?? ""}" maxlength="200" autocomplete="off" placeholder="starts with"></label>
  <label>Status <select name="status"><option value="">any</option>${LIST_STATUSES.map((s) => html`<option value="${s}" ${f.status === s ? "selected" : ""}>${s}</option>`)}</select></label>
  <label>Kind <select name="kind"><option value="">runs and threads</option><option value="run" ${f.kind === "run" ? "selected" : ""}>runs</option><option value="thread" ${f.kind === "thread" ? "selected" : ""}>threads</option></select></label>
  <label>Agent <input name="agent" value="${f.agent ?? ""}" maxlength="200" autocomplete="off"></label>
  <label>Acting for <input name="principal" value="${f.principal ?? ""}" maxlength="200" autocomplete="off" placeholder="principal id (waiting only)"></label>
  <label>Started after (UTC) <input type="datetime-local" name="after" value="${f.after ?? ""}"></label>
  <label>Started before (UTC) <input type="datetime-local" name="before" value="${f.before ?? ""}"></label>
  <button type="submit">Filter</button>
</form>
${view.live ? html`<p id="console-live-status" class="note" role="status" aria-live="polite"></p>` : ""}
<div id="console-live" data-version="${view.live?.version ?? ""}" data-src="${view.live?.src ?? ""}" data-refresh-ms="${String(view.live?.everyMs ?? 0)}">
${
  view.rows.length === 0
    ? html`<p class="empty">Nothing to show: no run or thread you may read matches.</p>`
    : html`<table class="rows">
  <thead><tr><th scope="col">Run or thread</th><th scope="col">Status</th><th scope="col">Agent</th><th scope="col">Acting for</th><th scope="col">Age</th><th scope="col">History events</th><th scope="col">Turns</th><th scope="col">Tokens in / out</th><th scope="col">Billed actions</th></tr></thead>
  <tbody>${view.rows.map((r) => row(r, view))}</tbody>
</table>`
}
${view.next ? html`<p><a href="${view.next}">Next page</a></p>` : ""}
</div>`,
    // The rows' figures are filled by their own script; the CSP allows scripts only with live updates on.
    ...(view.live ? { after: html`<script nonce="${view.nonce}">${raw(LIVE_SCRIPT)}</script><script nonce="${view.nonce}">${raw(ROW_SUMMARY_SCRIPT)}</script>` } : {}),
  });
}

function row(r: ConsoleRow, view: ConsoleListView): Html {
  const href = `${view.base}/${r.kind === "run" ? "runs" : "threads"}/${encodeURIComponent(r.id)}`;
  return html`<tr class="row" data-id="${r.id}" data-status="${r.waiting ? "waiting" : r.status}">
    <td data-label="Run or thread"><span class="kind">${r.kind}</span> <a href="${href}">${oneLine(r.id)}</a>${r.parentId ? html`<br><small>sub-agent of <code>${oneLine(r.parentId)}</code></small>` : ""}</td>
    <td data-label="Status">${statusBadge(r.status, r.waiting)}</td>
    <td data-label="Agent">${r.agentId ? html`<code>${r.agentId}</code>` : "—"}</td>
    <td data-label="Acting for">${r.principal ? html`<code>${oneLine(r.principal.id)}</code>` : "—"}</td>
    <td data-label="Age"><time datetime="${r.startedAt}">${age(view.now - Date.parse(r.startedAt))}</time></td>
    <td data-label="History events" class="events">${r.events === undefined ? "—" : String(r.events)}</td>
    ${rowSummaryCells(`${href}/summary`)}
  </tr>`;
}

function statusBadge(status: string, waiting?: ConsoleRow["waiting"]): Html {
  if (waiting) return html`<span class="badge waiting">waiting on ${waiting.on === "approval" ? "an approval" : "a deferral"}</span>`;
  return html`<span class="badge ${status}">${status}</span>`;
}

export interface ConsoleDetailView {
  detail: ConsoleDetail;
  /** The list's address. */
  back: string;
  /** Where the waiting request is decided (the inbox's page), when there is one. */
  decide?: { href: string; request?: Pick<InboxRow, "calls" | "meta"> };
  /** The run's cancel form's address (a run still running). */
  cancel?: string;
  /** The thread's send form's address, and a fresh message id (a form sent twice sends once). */
  send?: { action: string; messageId: string };
  /** A running thread's stop and resume forms' addresses. */
  turn?: TurnActions;
  /** The deny form of the request it waits on. */
  deny?: DenyAction;
  /** An action's outcome or refusal, shown above the page. */
  notice?: { kind: "done" | "refused"; text: string; code?: string };
  /** Live updates: the page's own address, the history's version, and how often to ask (absent: no script). */
  live?: { src: string; version: string; everyMs: number; /** The live panel's stream (a running run or thread): see live.ts. */ events?: string };
  /** The sub-agents it called, as a tree read from their histories. */
  subAgents?: SubAgentNode[];
  /** A long run's or thread's page shows these turns of its conversation and timeline (absent: all). */
  turns?: TurnWindow;
  nonce: string;
}

/** One run or thread: the conversation and, beside it, the timeline its history tells. */
export function renderConsoleDetail(view: ConsoleDetailView): Promise<string> {
  const d = view.detail;
  const title = `${d.kind === "run" ? "Run" : "Thread"} ${oneLine(d.id)}`;
  const tokens = modelTotals(d);
  const modelCalls = tokens.calls;
  const shown = turnsIn(d, view.turns);
  const answered = new Set(d.timeline.flatMap((e) => (e.type === "answer" ? [e.toolCallId] : [])));
  return htmlDocument({
    title,
    nonce: view.nonce,
    style: CONSOLE_STYLE + NAV_STYLE + CHART_STYLE + TREE_STYLE + PAGING_STYLE,
    main: html`${consoleNav(view.back)}
<h1>${title}</h1>
${view.notice ? html`<section class="notice notice-${view.notice.kind}" role="status"><p>${view.notice.text}</p>${view.notice.code ? html`<p class="code">Code: <code>${view.notice.code}</code></p>` : ""}</section>` : ""}
${view.live ? html`<p id="console-live-status" class="note" role="status" aria-live="polite"></p>` : ""}
${livePanel(d.kind, view.live?.events, view.nonce)}
<div id="console-live" data-version="${view.live?.version ?? ""}" data-src="${view.live?.src ?? ""}" data-refresh-ms="${String(view.live?.everyMs ?? 0)}">
<dl class="summary">
  <dt>Status</dt><dd><span class="badge ${d.status}" id="status">${d.status}</span></dd>
  ${d.agentId ? html`<dt>Agent</dt><dd><code>${d.agentId}</code></dd>` : ""}
  ${d.principal ? html`<dt>Acting for</dt><dd><code>${oneLine(d.principal.id)}</code></dd>` : ""}
  ${d.startedAt ? html`<dt>Started</dt><dd><time datetime="${d.startedAt}">${d.startedAt}</time></dd>` : ""}
  ${d.closedAt ? html`<dt>Ended</dt><dd><time datetime="${d.closedAt}">${d.closedAt}</time></dd>` : ""}
  <dt>Model calls</dt><dd>${String(modelCalls)} (${String(tokens.in)} tokens in, ${String(tokens.out)} out)</dd>
  <dt>Billed actions</dt><dd><span id="billed-actions">${String(d.actions.total)}</span>${d.truncated ? " (of the part read)" : ""}</dd>
  ${d.executions > 1 ? html`<dt>Executions</dt><dd>${String(d.executions)} (continued as new ${String(d.executions - 1)}×)</dd>` : ""}
</dl>
${d.failure ? failure(d.failure) : ""}
${view.decide ? waitingSection(d.kind, view.decide) : ""}
${costSection(d, view.turns)}
${renderCharts(d, turnsOf(d))}
${renderSubAgentTree(view.subAgents ?? [], view.back)}
${d.truncated ? html`<p class="note">The history is long: its oldest part is left out here.</p>` : ""}
${renderTurnNav(view.turns, `${view.back}/${d.kind === "run" ? "runs" : "threads"}/${encodeURIComponent(d.id)}`)}
<div class="detail">
  <section class="transcript" aria-labelledby="transcript-h"><h2 id="transcript-h">Conversation</h2>
    ${shown.transcript.length === 0 ? html`<p class="empty">No messages yet.</p>` : html`<ol class="messages">${shown.transcript.map(message)}</ol>`}
  </section>
  <section class="timeline" aria-labelledby="timeline-h"><h2 id="timeline-h">Timeline</h2>
    <ol class="events">${shown.timeline.map((e) => entry(e, view.back, answered))}</ol>
  </section>
</div>
</div>
${view.send ? sendForm(view.send) : ""}
${view.cancel ? html`<form method="post" action="${view.cancel}" class="actions"><button type="submit" class="danger">Cancel this run</button></form>` : ""}
${actionForms(view)}`,
    ...(view.live ? { after: html`<script nonce="${view.nonce}">${raw(LIVE_SCRIPT)}</script>` } : {}),
  });
}

/**
 * Asks the page's own address again with its history version as `If-None-Match`: a 304
 * costs the server one read of the newest history event; a 200 is parsed as an inert
 * document (its scripts never run) and its live part moved in. The forms stay as they are
 * (a message being typed is kept). Paused while the tab is hidden; one ask at a time; stops
 * once the page shows the workflow ended.
 */
const LIVE_SCRIPT = `(() => {
  const live = document.getElementById("console-live");
  const status = document.getElementById("console-live-status");
  if (!live || !live.dataset.src) return;
  let busy = false;
  async function check() {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const res = await fetch(live.dataset.src, { headers: { "if-none-match": '"' + live.dataset.version + '"' }, credentials: "same-origin", cache: "no-store" });
      if (res.status !== 200) return;
      const fresh = new DOMParser().parseFromString(await res.text(), "text/html").getElementById("console-live");
      if (!fresh || fresh.dataset.version === live.dataset.version) return;
      live.replaceChildren(...Array.from(fresh.childNodes));
      live.dataset.version = fresh.dataset.version;
      if (status) status.textContent = "Updated at " + new Date().toLocaleTimeString() + ".";
      if (!fresh.dataset.src) clearInterval(timer);
    } catch {
      // Offline or the server restarted: the next tick asks again.
    } finally {
      busy = false;
    }
  }
  const timer = setInterval(check, Number(live.dataset.refreshMs));
  document.addEventListener("visibilitychange", check);
})();`;

/** One turn: a model call and the tool calls that followed it until the next model call. */
export interface TurnCost {
  tokensIn: number;
  tokensOut: number;
  modelMs: number;
  toolMs: number;
  actions: number;
}

/** Per turn, from the timeline (tokens, times) and the history's count (billed actions); turn n is model call n. */
export function turnsOf(d: ConsoleDetail): TurnCost[] {
  const turns: TurnCost[] = [];
  for (const e of d.timeline) {
    if (e.type === "model") turns.push({ tokensIn: e.tokensIn ?? 0, tokensOut: e.tokensOut ?? 0, modelMs: e.durationMs ?? 0, toolMs: 0, actions: d.actions.turns[turns.length]?.actions ?? 0 });
    else if (e.type === "tool" && turns.length > 0) turns[turns.length - 1]!.toolMs += e.durationMs ?? 0;
  }
  // A model call scheduled but not answered yet has its actions counted, not yet its tokens.
  for (let i = turns.length; i < d.actions.turns.length; i++) turns.push({ tokensIn: 0, tokensOut: 0, modelMs: 0, toolMs: 0, actions: d.actions.turns[i]!.actions });
  return turns;
}

const KIND_WORDS: Record<string, string> = {
  start: "start",
  activity: "activities scheduled",
  retry: "activity retries",
  markers: "marker batches (local activities)",
  timer: "timers",
  signal: "signals",
  update: "updates accepted",
  upsert: "search-attribute and memo upserts",
  child: "child workflows (2 each)",
  "continue-as-new": "continue-as-new",
};

/** What it cost: billed actions by kind, and per turn tokens, model and tool time and actions. */
function costSection(d: ConsoleDetail, window?: TurnWindow): Html {
  const turns = turnsOf(d);
  // A long run's table lists the turns the page shows; the totals above it count them all.
  const from = window ? window.from - 1 : 0;
  const rows = window ? turns.slice(from, window.to) : turns;
  const sum = (f: (t: TurnCost) => number) => turns.reduce((a, t) => a + f(t), 0);
  const kinds = Object.entries(d.actions.byKind).filter(([, n]) => n > 0);
  return html`<section class="cost" aria-labelledby="cost-h"><h2 id="cost-h">What it cost</h2>
  <p><strong>${String(d.actions.total)}</strong> billed actions${kinds.length > 0 ? html`: ${kinds.map(([k, n], i) => html`${i > 0 ? ", " : ""}${String(n)} ${KIND_WORDS[k] ?? k}`)}` : ""}.
  ${String(sum((t) => t.tokensIn))} tokens in, ${String(sum((t) => t.tokensOut))} out; model ${ms(sum((t) => t.modelMs))}, tools ${ms(sum((t) => t.toolMs))}.</p>
  <p class="note">Counted from this history, the way Temporal Cloud bills. Queries (a client reading a run's state or a deferral's record), heartbeats and refused updates leave no event in history and are not counted here; reading this page costs none.</p>
  ${
    turns.length === 0
      ? ""
      : html`<div class="scroll"><table class="turns"><caption>Per turn (a model call and the tool calls that followed it)</caption>
  <thead><tr><th scope="col">Turn</th><th scope="col">Tokens in</th><th scope="col">Tokens out</th><th scope="col">Model</th><th scope="col">Tools</th><th scope="col">Billed actions</th></tr></thead>
  <tbody>${rows.map((t, i) => html`<tr class="turn"><th scope="row">${String(from + i + 1)}</th><td>${String(t.tokensIn)}</td><td>${String(t.tokensOut)}</td><td>${ms(t.modelMs)}</td><td>${ms(t.toolMs)}</td><td>${String(t.actions)}</td></tr>`)}</tbody>
</table></div>`
  }
</section>`;
}

/**
 * Why it waits: the calls held for a decision and who may make it (the request's
 * `meta.requires`, as the inbox shows it), from the run's memo, and the link to decide.
 */
function waitingSection(kind: "run" | "thread", decide: NonNullable<ConsoleDetailView["decide"]>): Html {
  const calls = decide.request?.calls ?? [];
  const requires = Array.isArray(decide.request?.meta.requires) ? decide.request.meta.requires.filter((r): r is string => typeof r === "string") : [];
  return html`<section class="waiting" aria-label="Waiting"><p>This ${kind} waits for a decision${calls.length > 0 ? " on:" : "."}</p>${
    calls.length > 0 ? html`<ul class="held">${calls.map((c) => html`<li><code>${oneLine(c.toolName)}</code> <code class="args">${printableJson(c.arguments)}</code></li>`)}</ul>` : ""
  }${requires.length > 0 ? html`<p class="requires">Who decides: someone with ${requires.map((r, i) => html`${i > 0 ? ", " : ""}<code>${oneLine(r)}</code>`)}.</p>` : ""}<p><a class="decide" href="${decide.href}">Open the request to decide it</a></p></section>`;
}

function failure(f: FailureView): Html {
  return html`<section class="failure" role="alert"><h2>It failed${f.code ? html` with <code>${f.code}</code>` : ""}</h2><p>${printable(f.message)}</p></section>`;
}

function sendForm(send: { action: string; messageId: string }): Html {
  return html`<form method="post" action="${send.action}" class="send">
  <input type="hidden" name="messageId" value="${send.messageId}">
  <label for="prompt">Send a message</label>
  <textarea id="prompt" name="prompt" rows="3" maxlength="20000" required></textarea>
  <button type="submit">Send</button>
</form>`;
}

function message(m: ChatMessage): Html {
  if (m.role === "assistant") {
    const calls = m.tool_calls ?? [];
    return html`<li class="message assistant"><span class="who">Agent</span>${m.content ? html`<p>${printable(m.content)}</p>` : ""}${calls.map(
      (c) => html`<p class="call">Calls <code>${oneLine(c.function.name)}</code> <code class="args">${printableJson(c.function.arguments)}</code></p>`,
    )}</li>`;
  }
  if (m.role === "tool") return html`<li class="message tool"><span class="who">Tool result</span><pre>${printable(clip(m.content))}</pre></li>`;
  return html`<li class="message ${m.role}"><span class="who">${m.role === "user" ? "User" : "System"}</span><p>${printable(typeof m.content === "string" ? m.content : JSON.stringify(m.content))}</p></li>`;
}

function entry(e: TimelineEntry, base: string, answered: Set<string>): Html {
  const when = html`<time datetime="${e.at}">${e.at.slice(11, 19)}</time>`;
  const extra = renderTimelineExtra(e, base, when);
  if (extra) return extra;
  switch (e.type) {
    case "model":
      return html`<li class="event model">${when} <strong>Model call</strong>${e.model ? html` <code class="model">${oneLine(e.model)}</code>` : ""}${
        e.fallback ? html` · <span class="badge fallback">answered by <code>${oneLine(e.fallback)}</code> (fallback)</span>` : ""
      } · ${ms(e.durationMs)}${e.attempts > 1 ? ` · ${e.attempts} attempts` : ""} · ${String(e.tokensIn ?? "?")} tokens in, ${String(e.tokensOut ?? "?")} out${
        e.calls.length > 0 ? html` · asks for ${e.calls.join(", ")}` : ""
      }${e.waiting.length > 0 ? html` · <span class="badge waiting">${String(e.waiting.length)} call(s) need approval</span>` : ""}${e.error ? errorLine(e.error) : ""}</li>`;
    case "tool":
      return html`<li class="event tool">${when} <strong>Tool <code>${oneLine(e.toolName)}</code></strong> · ${ms(e.durationMs)}${e.attempts > 1 ? ` · ${e.attempts} attempts` : ""}
        <details><summary>Input and result</summary><p class="key">Idempotency key <code>${oneLine(e.idempotencyKey)}</code></p><pre>${printableJson(e.input)}</pre>${
          e.result !== undefined ? html`<pre class="${e.isError ? "error" : ""}">${printable(clip(e.result))}</pre>` : ""
        }</details>${e.deferred ? html` · <span class="badge waiting">deferred</span>` : ""}${renderAsyncWait(e, answered.has(e.toolCallId))}${e.isError ? html` · <span class="badge failed">error</span>` : ""}${e.error ? errorLine(e.error) : ""}</li>`;
    case "decision":
      return html`<li class="event decision">${when} <strong>Decided</strong>${e.by ? html` by <code>${oneLine(e.by)}</code>` : ""}: ${oneLine(e.what)}${renderEdits(e.edits)}</li>`;
    case "message":
      return html`<li class="event message">${when} <strong>Message received</strong></li>`;
    case "cancel":
      return html`<li class="event cancel">${when} <strong>Cancel asked</strong></li>`;
    case "stop":
      return html`<li class="event stop">${when} <strong>Turn stopped</strong> (the model call and tools in flight were interrupted)</li>`;
    case "resume":
      return html`<li class="event resume">${when} <strong>Turn resumed</strong>${e.prompt ? " with a new prompt" : ""}</li>`;
    case "continued-as-new":
      return html`<li class="event can">${when} <strong>Continued as new</strong> (a fresh history; the conversation goes on)</li>`;
    case "end":
      return html`<li class="event end">${when} <strong>Ended: ${e.status}</strong>${e.failure ? errorLine(e.failure) : ""}</li>`;
    default:
      return html``;
  }
}

function errorLine(f: FailureView): Html {
  return html`<p class="error">${f.code ? html`<code>${f.code}</code> ` : ""}${oneLine(f.message)}</p>`;
}

/** A page that shows nothing but why (signed out, refused, not found). */
export function renderConsoleRefusal(options: { title: string; message: string; code: string; back?: string; nonce: string }): Promise<string> {
  return htmlDocument({
    title: options.title,
    nonce: options.nonce,
    style: CONSOLE_STYLE,
    main: html`${options.back ? html`<p class="back"><a href="${options.back}">All runs and threads</a></p>` : ""}<h1>${options.title}</h1>
<section class="notice notice-refused" role="alert"><p>${options.message}</p><p class="code">Code: <code>${options.code}</code></p></section>`,
  });
}

const ms = (d: number | undefined) => (d === undefined ? "—" : d < 1000 ? `${d} ms` : `${(d / 1000).toFixed(1)} s`);
const age = (d: number) => (d < 60_000 ? "just now" : `${timeLeft(d)} ago`);
const clip = (text: string) => (text.length > 4000 ? `${text.slice(0, 4000)}…` : text);

export const CONSOLE_STYLE = `
main{max-width:76rem}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;margin:1rem 0}
form.filters label{display:flex;flex-direction:column;font-size:.9rem}
table.rows{width:100%;border-collapse:collapse}
table.rows th,table.rows td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e3e6ea;vertical-align:top}
.kind{font-size:.75rem;text-transform:uppercase;color:#4a5360}
.badge{display:inline-block;padding:0 .4rem;border-radius:4px;background:#e3e6ea;font-size:.85rem}
.badge.waiting{background:#fff1c2}.badge.failed,.badge.terminated,.badge.timed-out{background:#fbd5d5}.badge.completed{background:#d3f4dc}.badge.cancelled{background:#eadcf8}
dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dl.summary dd{margin:0}
.detail{display:grid;grid-template-columns:1fr 1fr;gap:1.5rem}
ol.messages,ol.events{list-style:none;padding:0;margin:0}
li.message{border:1px solid #e3e6ea;border-radius:6px;padding:.5rem .75rem;margin:.5rem 0}
li.message.user{background:#eef4ff}li.message.tool{background:#f6f7f9}
.who{display:block;font-size:.75rem;text-transform:uppercase;color:#4a5360}
li.event{border-left:3px solid #ccd;padding:.25rem .75rem;margin:.4rem 0;font-size:.9rem}
li.event.model{border-color:#6b8cff}li.event.tool{border-color:#3aa76d}li.event.decision{border-color:#e0a800}li.event.end{border-color:#4a5360}
pre{white-space:pre-wrap;word-break:break-word;margin:.25rem 0}.args{word-break:break-all}
.scroll{overflow-x:auto}table.turns{border-collapse:collapse;font-size:.9rem;margin:.5rem 0}table.turns th,table.turns td{padding:.2rem .6rem;border-bottom:1px solid #e3e6ea;text-align:right}table.turns caption{text-align:left;font-size:.85rem;color:#4a5360}
.error{color:#a4161a}.failure{border:1px solid #f2a6a6;background:#fff5f5;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
.notice{border-radius:6px;padding:.5rem 1rem;margin:1rem 0}.notice-done{background:#eefaf1}.notice-refused{background:#fff5f5;border:1px solid #f2a6a6}
section.waiting{background:#fffaf0;border:1px solid #f0d890;border-radius:6px;padding:.25rem 1rem}
form.send{display:flex;flex-direction:column;gap:.25rem;margin-top:1rem}form.actions{margin-top:1.5rem}
button.danger{background:#a4161a;color:#fff;border:0;border-radius:4px;padding:.4rem .9rem}
section.actions{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end}section.actions form.deny{flex:1 1 100%}form.deny button{align-self:flex-start}
@media (max-width:48rem){
  main{margin:0;padding:1rem;border-radius:0}
  .detail{grid-template-columns:1fr}
  table.rows thead{display:none}
  table.rows tr{display:block;border-bottom:1px solid #ccd;padding:.5rem 0}
  table.rows td{display:block;border:0;padding:.1rem 0}
  table.rows td::before{content:attr(data-label) ": ";font-size:.75rem;color:#4a5360}
}
`;
