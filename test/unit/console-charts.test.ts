import { describe, expect, it } from "vitest";
import { MAX_CHART_TURNS, renderCharts, turnTimes } from "../../src/http/console/charts.js";
import type { ConsoleDetail, TimelineEntry } from "../../src/http/console/history.js";

const t0 = Date.parse("2026-01-01T00:00:00.000Z");
const at = (ms: number) => new Date(t0 + ms).toISOString();
const detail = (kind: "run" | "thread", timeline: TimelineEntry[]): ConsoleDetail => ({
  kind,
  id: "x",
  status: "running",
  startedAt: at(0),
  transcript: [],
  timeline,
  executions: 1,
  truncated: false,
  actions: { total: 0, byKind: {}, turns: [], before: 0 },
});
const model = (ms: number, durationMs: number, waiting: string[] = []): TimelineEntry => ({ type: "model", at: at(ms), durationMs, attempts: 1, calls: [], waiting });
const tool = (ms: number, durationMs: number, extra: Partial<Extract<TimelineEntry, { type: "tool" }>> = {}): TimelineEntry => ({ type: "tool", at: at(ms), durationMs, attempts: 1, toolName: "t", toolCallId: "c", idempotencyKey: "w/c", input: "{}", ...extra });

describe("where a turn's time went", () => {
  it("splits a run's turn into model, tools, waiting for a person (park to decision) and the rest", () => {
    const times = turnTimes(detail("run", [model(100, 50), tool(160, 10, { deferred: true }), { type: "decision", at: at(5_170), what: "answered" }, model(5_200, 40), { type: "end", at: at(5_250), status: "completed" }]));
    // The first turn runs from the start (the preparation is its "other").
    expect(times[0]).toEqual({ totalMs: 5_200, modelMs: 50, toolMs: 10, waitingMs: 5_000, otherMs: 140 });
    expect(times[1]).toEqual({ totalMs: 50, modelMs: 40, toolMs: 0, waitingMs: 0, otherMs: 10 });
  });

  it("counts no turn's time while a thread idles between messages, and begins the next turn at its message", () => {
    const times = turnTimes(detail("thread", [model(0, 100), { type: "message", at: at(60_000) }, model(60_030, 100)]));
    expect(times.map((t) => t.totalMs)).toEqual([100, 130]);
    expect(times[1]!.otherMs).toBe(30);
  });

  it("draws a long run as at most MAX_CHART_TURNS groups of turns", async () => {
    const timeline = Array.from({ length: 1000 }, (_, i) => model(i * 10, 5));
    const turns = timeline.map(() => ({ tokensIn: 1, tokensOut: 1, modelMs: 5, toolMs: 0, actions: 1 }));
    const page = String(await renderCharts(detail("run", timeline), turns));
    expect(page.match(/class="bar actions"/g)).toHaveLength(MAX_CHART_TURNS);
    expect(page).toContain("Turns 981–1000");
  });
});
