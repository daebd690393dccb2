import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { ConsoleDetail } from "./history.js";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** What a chart needs of a turn (the page's per-turn cost, `turnsOf`). */
export interface ChartTurn {
  tokensIn: number;
  tokensOut: number;
  modelMs: number;
  toolMs: number;
  actions: number;
}

/** Where a turn's time went, in milliseconds: the parts add up to `totalMs`. */
export interface TurnTime {
  totalMs: number;
  modelMs: number;
  toolMs: number;
  waitingMs: number;
  /** Everything else: tasks queued for a worker, the agent's preparation, the workflow's own steps. */
  otherMs: number;
}

/**
 * Each turn's time from its timeline: a turn runs from its model call being scheduled (the
 * first from the start, a thread's from the message that began it) to its last event before
 * the next one (a thread idle between messages is no turn's time). Waiting for people runs
 * from a call parking (a gated call's model answer, a deferred or async tool's end) to the
 * decision or answer; a request still open counts nothing yet.
 */
export function turnTimes(d: ConsoleDetail): TurnTime[] {
  const out: TurnTime[] = [];
  let current: { start: number; end: number; modelMs: number; toolMs: number; waitingMs: number } | undefined;
  let idleSince: number | undefined;
  let parkedAt: number | undefined;
  const close = (end: number) => {
    if (!current) return;
    const totalMs = Math.max(0, end - current.start);
    const known = current.modelMs + current.toolMs + current.waitingMs;
    out.push({ totalMs: Math.max(totalMs, known), modelMs: current.modelMs, toolMs: current.toolMs, waitingMs: current.waitingMs, otherMs: Math.max(0, totalMs - known) });
  };
  const startedAt = d.startedAt ? Date.parse(d.startedAt) : undefined;
  for (const e of d.timeline) {
    const at = Date.parse(e.at);
    const ended = at + ("durationMs" in e && e.durationMs !== undefined ? e.durationMs : 0);
    switch (e.type) {
      case "model": {
        close(idleSince !== undefined ? (current?.end ?? at) : at);
        const start = idleSince ?? (out.length === 0 && !current && startedAt !== undefined ? startedAt : at);
        current = { start, end: ended, modelMs: e.durationMs ?? 0, toolMs: 0, waitingMs: 0 };
        idleSince = undefined;
        parkedAt = e.waiting.length > 0 ? ended : undefined;
        break;
      }
      case "tool":
        if (!current) break;
        current.toolMs += e.durationMs ?? 0;
        current.end = Math.max(current.end, ended);
        if (e.deferred || e.started) parkedAt = ended;
        break;
      case "decision":
        if (!current) break;
        if (parkedAt !== undefined) current.waitingMs += Math.max(0, at - parkedAt);
        parkedAt = undefined;
        current.end = Math.max(current.end, at);
        break;
      case "message":
        // A thread's next turn begins with the message; what came before it was idle.
        idleSince ??= at;
        break;
      case "end":
        if (current && d.kind === "run") current.end = Math.max(current.end, at);
        break;
      default:
        break;
    }
  }
  if (current) close(current.end);
  return out;
}

/** At most this many bars or points per chart: longer runs are shown in groups of turns (averages). */
export const MAX_CHART_TURNS = 50;

interface Group {
  label: string;
  from: number;
  to: number;
}

/** Turns 1..n in at most MAX_CHART_TURNS groups of consecutive turns. */
function groupsOf(n: number): Group[] {
  const size = Math.max(1, Math.ceil(n / MAX_CHART_TURNS));
  const groups: Group[] = [];
  for (let from = 0; from < n; from += size) {
    const to = Math.min(n, from + size);
    groups.push({ from, to, label: to - from === 1 ? `Turn ${from + 1}` : `Turns ${from + 1}–${to}` });
  }
  return groups;
}

const average = (values: number[], g: Group) => {
  const slice = values.slice(g.from, g.to);
  return slice.length === 0 ? 0 : Math.round(slice.reduce((a, b) => a + b, 0) / slice.length);
};

/**
 * The pictures of a run or thread, per turn: tokens in and out, the model's latency, billed
 * actions, and where the time went. Inline SVG with classes only (the page's CSP allows no
 * style attribute), each labelled for screen readers, each value also in a table under a
 * disclosure. More than MAX_CHART_TURNS turns are drawn as averages of groups of turns.
 */
export function renderCharts(d: ConsoleDetail, turns: ChartTurn[]): Html {
  if (turns.length === 0) return html``;
  const times = turnTimes(d);
  const groups = groupsOf(turns.length);
  const grouped = groups.length < turns.length;
  const col = (f: (t: ChartTurn) => number) => groups.map((g) => average(turns.map(f), g));
  const timeCol = (f: (t: TurnTime) => number) => groups.map((g) => average(times.map(f), g));
  const tokensIn = col((t) => t.tokensIn);
  const tokensOut = col((t) => t.tokensOut);
  const latency = col((t) => t.modelMs);
  const actions = col((t) => t.actions);
  const parts = { model: timeCol((t) => t.modelMs), tools: timeCol((t) => t.toolMs), waiting: timeCol((t) => t.waitingMs), other: timeCol((t) => t.otherMs) };
  const per = grouped ? ` (each bar the average turn of a group of ${String(groups[0]!.to - groups[0]!.from)}; ${String(turns.length)} turns)` : "";
  return html`<section class="charts" aria-labelledby="charts-h"><h2 id="charts-h">Per turn, in pictures</h2>
${grouped ? html`<p class="note">${String(turns.length)} turns: each bar or point is the average of ${String(groups[0]!.to - groups[0]!.from)} consecutive turns.</p>` : ""}
<div class="chart-grid">
${bars("chart-tokens", `Tokens per turn${per}`, groups, [
  { key: "tokens-in", name: "tokens in", values: tokensIn },
  { key: "tokens-out", name: "tokens out", values: tokensOut },
])}
${points("chart-latency", `Model latency per turn, in ms${per}`, groups, latency)}
${bars("chart-actions", `Billed actions per turn${per}`, groups, [{ key: "actions", name: "billed actions", values: actions }])}
${timeBars("chart-time", `Where each turn's time went${per}`, groups, parts)}
</div>
<details class="chart-table"><summary>The pictures as a table</summary>
<div class="scroll"><table class="chart-values"><caption>Per turn${grouped ? " (averages of groups of turns)" : ""}</caption>
<thead><tr><th scope="col">Turn</th><th scope="col">Tokens in</th><th scope="col">Tokens out</th><th scope="col">Model latency (ms)</th><th scope="col">Billed actions</th><th scope="col">Model (ms)</th><th scope="col">Tools (ms)</th><th scope="col">Waiting for people (ms)</th><th scope="col">Queueing and other (ms)</th></tr></thead>
<tbody>${groups.map(
    (g, i) =>
      html`<tr><th scope="row">${g.label}</th><td>${String(tokensIn[i])}</td><td>${String(tokensOut[i])}</td><td>${String(latency[i])}</td><td>${String(actions[i])}</td><td>${String(parts.model[i])}</td><td>${String(parts.tools[i])}</td><td>${String(parts.waiting[i])}</td><td>${String(parts.other[i])}</td></tr>`,
  )}</tbody>
</table></div>
</details>
</section>`;
}

// Drawing units: the SVG scales to its box (viewBox), so these are proportions, not pixels.
const W = 400;
const H = 160;
const PAD = { left: 36, right: 8, top: 8, bottom: 20 };

function frame(id: string, title: string, body: Html, legend: Html, max: number, unit: string): Html {
  return html`<figure class="chart" id="${id}">
<svg class="chart" viewBox="0 0 ${String(W)} ${String(H)}" role="img" aria-labelledby="${id}-t" preserveAspectRatio="xMidYMid meet" focusable="false">
<title id="${id}-t">${title}</title>
<line class="axis" x1="${String(PAD.left)}" y1="${String(H - PAD.bottom)}" x2="${String(W - PAD.right)}" y2="${String(H - PAD.bottom)}"></line>
<text class="tick" x="${String(PAD.left - 4)}" y="${String(PAD.top + 8)}" text-anchor="end">${short(max)}</text>
<text class="tick" x="${String(PAD.left - 4)}" y="${String(H - PAD.bottom)}" text-anchor="end">0</text>
<text class="tick" x="${String(W - PAD.right)}" y="${String(H - 4)}" text-anchor="end">${unit}</text>
${body}
</svg>
<figcaption>${title}${legend}</figcaption>
</figure>`;
}

const plotW = W - PAD.left - PAD.right;
const plotH = H - PAD.top - PAD.bottom;
const scale = (v: number, max: number) => (max <= 0 ? 0 : (v / max) * plotH);
const fixed = (n: number) => String(Math.round(n * 100) / 100);
const short = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n));

function legendOf(series: Array<{ key: string; name: string }>): Html {
  return html`<span class="legend">${series.map((s) => html` <span class="key k-${s.key}">${s.name}</span>`)}</span>`;
}

/** Grouped vertical bars: one bar per series per turn, its value in `data-value` and its title. */
function bars(id: string, title: string, groups: Group[], series: Array<{ key: string; name: string; values: number[] }>): Html {
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const slot = plotW / groups.length;
  const barW = Math.max(0.5, (slot * 0.8) / series.length);
  const body = groups.map((g, i) =>
    series.map((s, j) => {
      const v = s.values[i] ?? 0;
      const h = scale(v, max);
      return html`<rect class="bar ${s.key}" data-turn="${g.label}" data-value="${String(v)}" x="${fixed(PAD.left + i * slot + slot * 0.1 + j * barW)}" y="${fixed(H - PAD.bottom - h)}" width="${fixed(barW)}" height="${fixed(h)}"><title>${g.label}: ${String(v)} ${s.name}</title></rect>`;
    }),
  );
  return frame(id, title, html`${body}`, series.length > 1 ? legendOf(series) : html``, max, "");
}

/** A line through one point per turn. */
function points(id: string, title: string, groups: Group[], values: number[]): Html {
  const max = Math.max(1, ...values);
  const slot = plotW / groups.length;
  const xy = values.map((v, i) => [PAD.left + i * slot + slot / 2, H - PAD.bottom - scale(v, max)] as const);
  return frame(
    id,
    title,
    html`<polyline class="line" points="${xy.map(([x, y]) => `${fixed(x)},${fixed(y)}`).join(" ")}"></polyline>${groups.map(
      (g, i) => html`<circle class="point" data-turn="${g.label}" data-value="${String(values[i])}" cx="${fixed(xy[i]![0])}" cy="${fixed(xy[i]![1])}" r="3"><title>${g.label}: ${String(values[i])} ms</title></circle>`,
    )}`,
    html``,
    max,
    "ms",
  );
}

const TIME_PARTS = [
  { key: "model", name: "model" },
  { key: "tools", name: "tools" },
  { key: "waiting", name: "waiting for people" },
  { key: "other", name: "queueing and other" },
] as const;

/** One horizontal bar per turn, its segments the parts of its time, to the scale of the longest turn. */
function timeBars(id: string, title: string, groups: Group[], parts: Record<(typeof TIME_PARTS)[number]["key"], number[]>): Html {
  const totals = groups.map((_, i) => TIME_PARTS.reduce((sum, p) => sum + (parts[p.key][i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const rowH = plotH / groups.length;
  const body = groups.map((g, i) => {
    let x = PAD.left;
    const y = PAD.top + i * rowH + rowH * 0.1;
    return html`<g class="turn-time" data-turn="${g.label}" data-total="${String(totals[i])}">${TIME_PARTS.map((p) => {
      const v = parts[p.key][i] ?? 0;
      const w = (v / max) * plotW;
      const rect = html`<rect class="segment ${p.key}" data-part="${p.key}" data-value="${String(v)}" x="${fixed(x)}" y="${fixed(y)}" width="${fixed(w)}" height="${fixed(Math.max(0.5, rowH * 0.8))}"><title>${g.label}: ${String(v)} ms ${p.name}</title></rect>`;
      x += w;
      return rect;
    })}</g>`;
  });
  return frame(id, title, html`${body}`, legendOf([...TIME_PARTS]), max, "ms");
}

export const CHART_STYLE = `
.chart-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1rem}
figure.chart{margin:0}svg.chart{width:100%;height:auto;display:block;background:#fbfbfc;border:1px solid #e3e6ea;border-radius:4px}
figure.chart figcaption{font-size:.85rem;color:#4a5360}
svg.chart .axis{stroke:#9aa3ad;stroke-width:1}svg.chart .tick{font-size:10px;fill:#4a5360}
svg.chart .tokens-in{fill:#6b8cff}svg.chart .tokens-out{fill:#e0a800}svg.chart .actions{fill:#7d5ba6}
svg.chart .line{fill:none;stroke:#3aa76d;stroke-width:2}svg.chart .point{fill:#3aa76d}
svg.chart .segment.model{fill:#6b8cff}svg.chart .segment.tools{fill:#3aa76d}svg.chart .segment.waiting{fill:#e0a800}svg.chart .segment.other{fill:#b8bec6}
.legend .key{white-space:nowrap}.legend .key::before{content:"";display:inline-block;width:.7em;height:.7em;margin:0 .25em 0 .5em;border-radius:2px;background:#b8bec6}
.legend .k-tokens-in::before,.legend .k-model::before{background:#6b8cff}.legend .k-tokens-out::before,.legend .k-waiting::before{background:#e0a800}.legend .k-tools::before{background:#3aa76d}
table.chart-values{border-collapse:collapse;font-size:.85rem}table.chart-values th,table.chart-values td{padding:.15rem .5rem;border-bottom:1px solid #e3e6ea;text-align:right}
`;
