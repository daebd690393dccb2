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
 * cookies. Rows the live list moves in again are filled from what the page kept. While the
 * list follows itself (every `data-refresh-ms`, paused while the tab is hidden), a running
 * row is asked again with the version it holds (`If-None-Match`: 304 while its history did
 * not grow); an ended row never changes and is not asked again. Text only (textContent).
 */
export const ROW_SUMMARY_SCRIPT = `(() => {
  const live = document.getElementById("console-live");
  if (!live) return;
  const kept = new Map();
  const fmt = (n) => Number(n).toLocaleString("en-US");
  const running = (cell) => ["running", "waiting"].includes(cell.closest("tr").dataset.status);
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
  async function ask(cell) {
    const url = cell.dataset.summary;
    const k = kept.get(url);
    try {
      const res = await fetch(url, { credentials: "same-origin", cache: "no-store", headers: { accept: "application/json", ...(k && k.etag ? { "if-none-match": k.etag } : {}) } });
      if (res.status === 304) return;
      const body = await res.json().catch(() => undefined);
      const s = res.status === 200 && body ? body : { error: (body && body.error && body.error.code) || String(res.status) };
      if (!s.error) kept.set(url, { etag: res.headers.get("etag"), s });
      // Every cell of this row now on the page (the live list may have moved a new one in meanwhile).
      for (const c of live.querySelectorAll("td[data-summary]")) if (c.dataset.summary === url) show(c, s);
    } catch {
      // Offline or the server restarted: asked again on the next round.
      if (cell.isConnected && cell.dataset.state === "asking") cell.dataset.state = "";
    }
  }
  let busy = false;
  async function round(again) {
    if (busy) return;
    busy = true;
    try {
      const pending = [];
      for (const cell of live.querySelectorAll("td[data-summary]")) {
        const k = kept.get(cell.dataset.summary);
        if (!cell.dataset.state && k) show(cell, k.s);
        if (!cell.dataset.state) {
          cell.dataset.state = "asking";
          pending.push(cell);
        } else if (again && cell.dataset.state === "filled" && running(cell)) pending.push(cell);
      }
      const workers = Array.from({ length: Math.min(4, pending.length) }, async () => {
        while (pending.length > 0) await ask(pending.shift());
      });
      await Promise.all(workers);
    } finally {
      busy = false;
    }
  }
  // Rows the live list moved in are filled at once (from what is kept, or asked).
  new MutationObserver(() => {
    for (const cell of live.querySelectorAll("td[data-summary]")) {
      const k = kept.get(cell.dataset.summary);
      if (!cell.dataset.state && k) show(cell, k.s);
    }
    round(false);
  }).observe(live, { childList: true });
  const every = Number(live.dataset.refreshMs);
  if (every > 0) setInterval(() => { if (!document.hidden) round(true); }, every);
  round(false);
})();`;
