import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { z } from "zod";
import type { ChatMessage } from "../../core/messages.js";
import type { ConsoleDetail, TimelineEntry } from "./history.js";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** Turns of a long run or thread shown on one page: the newest by default, older ones a link away. */
export const TURNS_PER_PAGE = 50;

/** `?before=<turn>`: the turns before that one (1-based), a page of them; a whole number, or the request is refused (AI1040). */
export const TurnCursor = z
  .string()
  .max(8, "is longer than 8 digits")
  .regex(/^[1-9][0-9]*$/, "must be a turn number (a whole number from 1)")
  .transform(Number);

/** Which turns a page shows: `from` to `to` (1-based, inclusive) of `total`. */
export interface TurnWindow {
  from: number;
  to: number;
  total: number;
}

/** The turn count (model calls) of a detail. */
export const turnCount = (d: ConsoleDetail) => d.timeline.filter((e) => e.type === "model").length;

/** The window a page shows: the last TURNS_PER_PAGE turns before `before` (the newest without it), or undefined when all fit. */
export function turnWindow(d: ConsoleDetail, before: number | undefined): TurnWindow | undefined {
  const total = turnCount(d);
  if (total <= TURNS_PER_PAGE && before === undefined) return undefined;
  const to = Math.max(1, Math.min(total, (before ?? total + 1) - 1));
  return { from: Math.max(1, to - TURNS_PER_PAGE + 1), to, total };
}

/**
 * The conversation and timeline of the turns in `w`. A turn is a model call: the messages
 * that led to it (a user's), its answer and the results of the calls it made; the timeline's
 * entries from its model call to the next (a thread's incoming message opens the next turn).
 */
export function turnsIn(d: ConsoleDetail, w: TurnWindow | undefined): { transcript: ChatMessage[]; timeline: TimelineEntry[] } {
  if (!w) return { transcript: d.transcript, timeline: d.timeline };
  const inside = (turn: number) => turn >= w.from && turn <= w.to;
  let answers = 0;
  const transcript = d.transcript.filter((m) => {
    if (m.role === "assistant") return inside(++answers);
    // A tool result belongs to the answer that asked for it; anything else leads to the next answer.
    return inside(m.role === "tool" ? Math.max(1, answers) : answers + 1);
  });
  let models = 0;
  const timeline = d.timeline.filter((e) => {
    if (e.type === "model") return inside(++models);
    if (e.type === "message") return inside(models + 1);
    return inside(Math.max(1, models));
  });
  return { transcript, timeline };
}

/** Where the page is in a long history, and the links to the older and newer turns. */
export function renderTurnNav(w: TurnWindow | undefined, self: string): Html {
  if (!w) return html``;
  const at = (before: number | undefined) => (before === undefined ? self : `${self}?before=${String(before)}`);
  const newer = w.to < w.total ? (w.to + TURNS_PER_PAGE >= w.total ? undefined : w.to + TURNS_PER_PAGE + 1) : null;
  return html`<nav class="turn-nav" aria-label="Turns">
  <p>Showing turns <strong class="turn-range">${String(w.from)}–${String(w.to)}</strong> of <span class="turn-total">${String(w.total)}</span>: a long history is shown ${String(TURNS_PER_PAGE)} turns at a time (the cost, the charts and the totals count them all).</p>
  <p>${w.from > 1 ? html`<a rel="prev" href="${at(w.from)}">Older turns</a> · <a href="${at(Math.min(TURNS_PER_PAGE, w.total) + 1)}">Oldest turns</a>` : "These are the oldest turns."}${
    newer !== null ? html` · <a rel="next" href="${at(newer)}">Newer turns</a> · <a href="${self}">Newest turns</a>` : ""
  }</p>
</nav>`;
}

export const PAGING_STYLE = `
nav.turn-nav{border:1px solid #e3e6ea;border-radius:6px;padding:.25rem 1rem;margin:1rem 0;background:#fbfbfc}nav.turn-nav p{margin:.3rem 0}
`;
