import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/**
 * A list row's figures from its history (turns, tokens, billed actions): cells that say
 * "open the row" until the list's script fills them from the row's summary route
 * (`summary`, summary.ts). Without a script (or with `refreshInterval: 0`, which serves
 * none) they keep saying so: the row's page has the figures.
 */
export function rowSummaryCells(summary: string): HtmlEscapedString | Promise<HtmlEscapedString> {
  return html`<td data-label="Turns" class="turns" data-summary="${summary}">open the row</td>
    <td data-label="Tokens in / out" class="tokens">open the row</td>
    <td data-label="Billed actions" class="actions">open the row</td>`;
}

export const ROW_SUMMARY_STYLE = `table.rows td.turns,table.rows td.tokens,table.rows td.actions{white-space:nowrap}
table.rows .async-tool{margin-left:.3rem}`;

/**
 * Fills the rows' figures after the list loaded: four asks at a time, one per row shown
 * (never more rows than the page holds), each the row's summary route with the session's
 * cookies. A row whose history length (its "History events" cell) did not change since it
 * was asked is filled from what the page kept, so a live list re-asks only the rows that
 * moved. Runs again whenever the live list moves new rows in. Text only (textContent).
 */
export const ROW_SUMMARY_SCRIPT = `(() => {
  const live = document.getElementById("console-live");
  if (!live) return;
  const kept = new Map();
  const fmt = (n) => Number(n).toLocaleString("en-US");
  function show(cell, s) {
    const row = cell.closest("tr");
    const tokens = row.querySelector("td.tokens");
    const actions = row.querySelector("td.actions");
    cell.dataset.state = "filled";
    if (s.error) {
      const text = "unavailable (" + s.error + ")";
      cell.textContent = text;
      tokens.textContent = text;
      actions.textContent = text;
      return;
    }
    cell.textContent = fmt(s.turns);
    tokens.textContent = fmt(s.tokensIn) + " / " + fmt(s.tokensOut);
    actions.textContent = fmt(s.actions) + (s.truncated ? " (of the part read)" : "");
    const status = row.querySelector('td[data-label="Status"]');
    const old = status && status.querySelector(".async-tool");
    if (old) old.remove();
    if (status && s.waitingOnAsyncTools > 0) {
      const badge = document.createElement("span");
      badge.className = "badge waiting async-tool";
      badge.textContent = s.waitingOnAsyncTools === 1 ? "waiting on an async tool" : "waiting on " + s.waitingOnAsyncTools + " async tools";
      status.append(badge);
    }
  }
  async function ask(cell, url, version) {
    try {
      const res = await fetch(url, { credentials: "same-origin", cache: "no-store", headers: { accept: "application/json" } });
      const body = await res.json().catch(() => undefined);
      const s = res.status === 200 && body ? body : { error: (body && body.error && body.error.code) || String(res.status) };
      if (!s.error) kept.set(url, { version, s });
      if (cell.isConnected) show(cell, s);
    } catch {
      if (cell.isConnected) cell.dataset.state = "";
    }
  }
  async function fill() {
    const pending = [];
    for (const cell of live.querySelectorAll("td[data-summary]")) {
      if (cell.dataset.state) continue;
      const url = cell.dataset.summary;
      const events = cell.closest("tr").querySelector("td.events");
      const version = events ? events.textContent : "";
      const k = kept.get(url);
      if (k && k.version === version) show(cell, k.s);
      else {
        cell.dataset.state = "asking";
        pending.push(() => ask(cell, url, version));
      }
    }
    const workers = Array.from({ length: Math.min(4, pending.length) }, async () => {
      while (pending.length > 0) await pending.shift()();
    });
    await Promise.all(workers);
  }
  new MutationObserver(fill).observe(live, { childList: true });
  fill();
})();`;
