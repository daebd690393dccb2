import { Hono, type Context, type Next } from "hono";
import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { AgentClient } from "../../client/agent-client.js";
import type { StreamSource } from "../../client/threads/stream-hub.js";
import type { ThreadsClient } from "../../client/threads/threads-client.js";
import { CrossSiteRequestError } from "../../core/errors/http.js";
import type { Principal } from "../../core/json.js";
import { parseStatusLine } from "../../core/status-line.js";
import type { HttpEnv } from "../env.js";
import { eventStreamRoute } from "../events.js";
import { Id, valid } from "../validate.js";
import { z } from "zod";

/**
 * The console's live panel: while a run or thread runs, its page follows the stream the SDK
 * already has (the events routes' source, shared per process) at `GET …/console/runs/:id/live`
 * and `…/console/threads/:id/live`, and shows the answer being written and the latest
 * progress of each tool call still running. A preview: once the turn ends the page's history
 * shows the stored result. Reached only with the console's session (its sign-in check comes
 * first), authorized by the clients' `authorize` as a reader of that stream (`run.stream`,
 * `thread.stream`), from the console's own pages only (a request another site made is
 * refused, AI1043), and it starts where the stream is now (the status line, a free read), so
 * a viewer costs no billed action on a stream transport: the transport replays the answer
 * being written from its start.
 */
export function consoleLiveRoutes(agents: AgentClient, threads: ThreadsClient) {
  const app = new Hono<HttpEnv>();
  const from = (source: StreamSource) => async (id: string) => parseStatusLine((await source.readStatusLine(id, source.client)) ?? "").seq ?? 0;
  const caller = (principal: Principal | undefined) => (principal !== undefined ? { principal } : {});
  app.get(
    "/runs/:id/live",
    sameOrigin,
    valid("param", IdParam),
    eventStreamRoute({ source: agents.runStreams, open: (runId, principal) => agents.openStream({ runId, ...caller(principal) }), start: from(agents.runStreams) }, {}),
  );
  app.get(
    "/threads/:id/live",
    sameOrigin,
    valid("param", IdParam),
    eventStreamRoute({ source: threads, open: (threadId, principal) => threads.openStream({ threadId, ...caller(principal) }), start: from(threads) }, {}),
  );
  return app;
}

const IdParam = z.object({ id: Id });

/**
 * A browser says which site made a request (`Sec-Fetch-Site`): only the console's own pages may
 * open the stream with the viewer's cookies. (Another site could not read the answer anyway,
 * no CORS header allows it; this refuses before anything is read.)
 */
export async function sameOrigin(c: Context<HttpEnv>, next: Next) {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none") throw new CrossSiteRequestError({ ...(c.req.header("origin") ? { origin: c.req.header("origin")! } : {}) });
  await next();
}

/** The panel on a running run's or thread's page (`events`: its live route), and the script that fills it. */
export function livePanel(kind: "run" | "thread", events: string | undefined, nonce: string): HtmlEscapedString | Promise<HtmlEscapedString> | "" {
  if (!events) return "";
  return html`<section id="console-stream" class="live-panel" aria-labelledby="console-stream-h" data-events="${events}" data-kind="${kind}">
  <h2 id="console-stream-h">Live</h2>
  <p id="console-stream-state" class="note" role="status">Nothing is being written now.</p>
  <div id="console-stream-answer" class="live-answer" aria-live="polite" hidden><span class="who">Writing</span><p></p></div>
  <ul id="console-stream-progress" class="live-progress" aria-label="Tool progress"></ul>
</section>
<style nonce="${nonce}">${raw(LIVE_STYLE)}</style>
<script nonce="${nonce}">${raw(LIVE_PANEL_SCRIPT)}</script>`;
}

const LIVE_STYLE = `.live-panel{border:1px dashed #6b8cff;border-radius:6px;padding:.25rem 1rem;margin:1rem 0}
.live-answer p{white-space:pre-wrap;margin:.25rem 0}.live-progress{padding-left:1.2rem}.live-progress li{margin:.2rem 0}`;

/**
 * Reads the live route with fetch (the session's cookies, same origin; no token in the
 * address), parses its Server-Sent Events and keeps: the answer being written (its deltas,
 * dropped on a reset or once its message is stored) and the latest progress of each call
 * (dropped once the call's result is stored). Shown as text only (textContent). Reconnects
 * after a pause from where the stream is then (the answer is replayed from its start, so the
 * draft starts over); stops on a refusal (shown with its code) and once a run ended.
 */
const LIVE_PANEL_SCRIPT = `(() => {
  const panel = document.getElementById("console-stream");
  if (!panel || !panel.dataset.events) return;
  const state = document.getElementById("console-stream-state");
  const answerBox = document.getElementById("console-stream-answer");
  const answer = answerBox.querySelector("p");
  const list = document.getElementById("console-stream-progress");
  let draft = { id: "", text: "" };
  const progress = new Map();
  const ENDED = new Set(["completed", "failed", "stopped"]);
  let stopped = false;
  const clip = (s) => (s.length > 600 ? s.slice(0, 600) + "…" : s);
  function describe(data) {
    if (typeof data === "string") return data;
    if (data && typeof data === "object" && !Array.isArray(data)) {
      if (typeof data.agent === "string" && data.tool && typeof data.tool.toolName === "string") return data.agent + " › " + data.tool.toolName + ": " + describe(data.data);
      if (typeof data.agent === "string" && typeof data.text === "string") return data.agent + " writes: " + data.text;
      if (typeof data.message === "string") return data.message;
      if (typeof data.text === "string") return data.text;
    }
    return JSON.stringify(data);
  }
  function render() {
    answerBox.hidden = draft.text === "";
    answer.textContent = draft.text;
    list.replaceChildren(...Array.from(progress.values()).map((p) => {
      const li = document.createElement("li");
      li.className = "progress";
      li.dataset.call = p.toolCallId;
      const name = document.createElement("code");
      name.textContent = p.toolName;
      li.append(name, " " + clip(describe(p.data)));
      return li;
    }));
    if (state.dataset.fixed) return;
    state.textContent = draft.text !== "" ? "The answer is being written." : progress.size > 0 ? "Tools are running." : "Nothing is being written now.";
  }
  function apply(u) {
    if (u.type === "text-delta") {
      if (draft.id !== u.messageId) draft = { id: u.messageId, text: "" };
      draft.text += u.text;
    } else if (u.type === "reset") {
      if (draft.id === u.messageId) draft = { id: "", text: "" };
    } else if (u.type === "message") {
      if (u.message.id === draft.id) draft = { id: "", text: "" };
      if (u.message.role === "tool") progress.delete(u.message.tool_call_id);
    } else if (u.type === "tool-progress") {
      progress.set(u.toolCallId, u);
    } else if (u.type === "status" && u.status !== "streaming" && u.status !== "awaiting_tool_results") {
      draft = { id: "", text: "" };
      progress.clear();
      if (panel.dataset.kind === "run" && ENDED.has(u.status)) stopped = true;
    }
  }
  function fixed(text) {
    state.dataset.fixed = "1";
    state.textContent = text;
  }
  async function follow() {
    try {
      const res = await fetch(panel.dataset.events, { credentials: "same-origin", cache: "no-store", headers: { accept: "text/event-stream" } });
      if (res.status !== 200 || !res.body) {
        const body = await res.json().catch(() => undefined);
        const err = body && body.error;
        fixed(err ? "Live view refused: " + err.message + " (" + err.code + ")" : "Live view unavailable (" + res.status + ").");
        stopped = true;
        return;
      }
      draft = { id: "", text: "" };
      progress.clear();
      render();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffered = "";
      while (!stopped) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += value;
        let cut;
        while ((cut = buffered.indexOf("\\n\\n")) >= 0) {
          const block = buffered.slice(0, cut);
          buffered = buffered.slice(cut + 2);
          let event = "message";
          let data = "";
          for (const line of block.split("\\n")) {
            if (line.startsWith("event:")) event = line.slice(6).trim();
            else if (line.startsWith("data:")) data += line.slice(5).replace(/^ /, "");
          }
          if (data === "") continue;
          const parsed = JSON.parse(data);
          if (event === "error") {
            fixed("Live view stopped: " + parsed.message + " (" + parsed.code + ")");
            stopped = true;
          } else if (event === "message") apply(parsed);
        }
        render();
      }
      reader.cancel().catch(() => undefined);
    } catch {
      // The connection dropped: followed again below.
    }
    if (!stopped) setTimeout(follow, 2000);
    else render();
  }
  follow();
})();`;
