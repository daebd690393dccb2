import { Hono } from "hono";
import { z } from "zod";
import type { AgentClient } from "../../client/agent-client.js";
import type { Principal } from "../../core/json.js";
import type { HttpEnv } from "../env.js";
import { Id, valid } from "../validate.js";
import { historyVersion, readDetail, type ConsoleDetail } from "./history.js";
import { sameOrigin } from "./live.js";

/** What a list row shows of a run or thread beyond visibility: read from its history, as its page reads it. */
export interface ConsoleRowSummary {
  /** Model calls so far (the page's "Model calls"). */
  turns: number;
  tokensIn: number;
  tokensOut: number;
  /** Billed actions its history records so far (the page's "Billed actions"; of the part read when `truncated`). */
  actions: number;
  truncated: boolean;
  /** Async tool calls started and not answered yet, while it runs (a thread waiting on a person or a system). */
  waitingOnAsyncTools: number;
}

/** The model calls and their tokens of a history read: one count, the page's and the list's. */
export function modelTotals(d: ConsoleDetail): { calls: number; in: number; out: number } {
  return d.timeline.reduce((sum, e) => (e.type === "model" ? { calls: sum.calls + 1, in: sum.in + (e.tokensIn ?? 0), out: sum.out + (e.tokensOut ?? 0) } : sum), { calls: 0, in: 0, out: 0 });
}

/** A row's figures from its history read (pure). */
export function summaryOf(d: ConsoleDetail): ConsoleRowSummary {
  const totals = modelTotals(d);
  const answered = new Set(d.timeline.flatMap((e) => (e.type === "answer" ? [e.toolCallId] : [])));
  const waiting = d.status === "running" ? d.timeline.filter((e) => e.type === "tool" && e.started === true && !answered.has(e.toolCallId)).length : 0;
  return { turns: totals.calls, tokensIn: totals.in, tokensOut: totals.out, actions: d.actions.total, truncated: d.truncated, waitingOnAsyncTools: waiting };
}

/** How many histories' summaries one front door keeps (a few pages of a list). */
const CACHE_SIZE = 500;

/**
 * The list's per-row figures: `GET …/console/runs/:id/summary` and `…/threads/:id/summary`
 * answer JSON (a {@link ConsoleRowSummary}) read from the row's history as its page reads it
 * (free reads, no query: 0 billed actions), authorized as the row's page (`mayRead`: the
 * same refusal and code), from the console's own pages only (a request another site made is
 * refused, AI1043). Cached by the history's version (its newest event, one free read), which
 * is also the answer's ETag: a live list asking again with it gets 304, and the whole history
 * is read again only once it grew.
 */
export function consoleSummaryRoutes(agents: AgentClient, mayRead: (kind: "run" | "thread", id: string, principal: Principal | undefined) => Promise<void>) {
  const app = new Hono<HttpEnv>();
  const cache = new Map<string, { version: string; summary: ConsoleRowSummary }>();
  for (const kind of ["run", "thread"] as const) {
    app.get(`/${kind === "run" ? "runs" : "threads"}/:id/summary`, sameOrigin, valid("param", IdParam), async (c) => {
      const id = c.req.valid("param").id;
      await mayRead(kind, id, c.get("principal"));
      const key = `${kind}:${id}`;
      // The version first, then the history: an event in between makes the next ask read again.
      const version = await historyVersion(agents.client, id);
      const kept = cache.get(key);
      c.header("Cache-Control", "no-store");
      if (version !== undefined) c.header("ETag", `"${version}"`);
      // The list's script asks a running row again with the version it holds: unchanged, nothing to send.
      if (version !== undefined && c.req.header("if-none-match") === `"${version}"`) return c.body(null, 304);
      if (version !== undefined && kept?.version === version) return c.json(kept.summary);
      const summary = summaryOf(await readDetail(agents.client, agents.taskQueue, kind, id));
      cache.delete(key);
      if (version !== undefined) cache.set(key, { version, summary });
      // The oldest asked first leaves first (a Map keeps insertion order).
      if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
      return c.json(summary);
    });
  }
  return app;
}

const IdParam = z.object({ id: Id });
