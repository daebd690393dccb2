/**
 * Tool progress outside the log: a reader's fold keeps the latest report of each running call
 * and drops it with the call's result, without moving the reader's seq; a transport's replay
 * keeps the latest report for a reader joining mid-call, outside the chain of durable entries.
 */
import { describe, expect, it } from "vitest";
import { emptyFold, foldStreamUpdates, MAX_PROGRESS_BYTES, defineTool, type StreamBatch, type StreamUpdate } from "../../src/index.js";
import { testTool } from "../../src/testing/index.js";
import { ThreadReplay } from "../../src/stream/thread-replay.js";
import { asStreamUpdate } from "../../src/core/stream-fold.js";
import { z } from "zod";

const at = "2026-12-06T00:00:00.000Z";
const progress = (toolCallId: string, data: unknown): StreamUpdate => ({ seq: 0, type: "tool-progress", toolCallId, toolName: "crawl", data: data as never, at });
const result = (seq: number, toolCallId: string): StreamUpdate => ({ seq, type: "message", message: { id: `r${seq}`, role: "tool", tool_call_id: toolCallId, content: "done", createdAt: at } });
const status = (seq: number): StreamUpdate => ({ seq, type: "status", status: "awaiting_tool_results", previousStatus: "streaming", at });

describe("a reader's fold", () => {
  it("keeps the latest report of each call, never moves lastSeq, and drops a call's progress with its result (and any report after it)", () => {
    let fold = foldStreamUpdates(emptyFold(), [status(4), progress("c1", { page: 1 }), progress("c2", { page: 1 }), progress("c1", { page: 2 })]);
    expect(fold.lastSeq).toBe(4);
    expect(fold.progress?.map((p) => [p.toolCallId, p.data])).toEqual([
      ["c2", { page: 1 }],
      ["c1", { page: 2 }],
    ]);
    fold = foldStreamUpdates(fold, [result(5, "c1"), progress("c1", { page: 3 })]);
    expect(fold.lastSeq).toBe(5);
    expect(fold.progress?.map((p) => p.toolCallId)).toEqual(["c2"]);
  });

  it("reads progress from the wire only with seq 0, its fields, and data within the bound", () => {
    expect(asStreamUpdate(progress("c", { ok: true }))).toBeDefined();
    expect(asStreamUpdate({ ...progress("c", 1), seq: 3 })).toBeUndefined();
    expect(asStreamUpdate({ ...progress("c", 1), toolName: 7 })).toBeUndefined();
    expect(asStreamUpdate({ ...progress("c", 1), data: undefined })).toBeUndefined();
    expect(asStreamUpdate(progress("c", "x".repeat(MAX_PROGRESS_BYTES + 1)))).toBeUndefined();
  });
});

describe("a transport's replay", () => {
  const batch = (...entries: StreamUpdate[]): StreamBatch => ({ after: 0, entries });
  it("keeps only the latest report, after the chain, until a durable entry supersedes it", () => {
    const replay = new ThreadReplay<StreamBatch>();
    const first = { after: 0, entries: [status(1)] };
    replay.note("t", first, first, 100);
    // Progress of a thread this process published nothing else for is not kept: it has no chain to follow.
    replay.note("other", batch(progress("c", 1)), batch(progress("c", 1)), 100);
    expect(replay.of("other")).toEqual([]);
    for (let i = 0; i < 1_000; i++) replay.note("t", batch(progress("c", i)), batch(progress("c", i)), 100);
    expect(replay.of("t")).toEqual([first, batch(progress("c", 999))]);
    const done = { after: 1, entries: [result(2, "c")] };
    replay.note("t", done, done, 100);
    expect(replay.of("t")).toEqual([first, done]);
  });
});

describe("testTool", () => {
  it("checks progress as a worker does (AI1001, AI1016) and drops it", async () => {
    const tool = defineTool({ name: "t", description: "t", input: z.object({ data: z.unknown() }), handler: ({ data }, ctx) => (ctx.progress(data as never), "ok") });
    await expect(testTool(tool, { data: { page: 1 } })).resolves.toBe("ok");
    await expect(testTool(tool, { data: "x".repeat(MAX_PROGRESS_BYTES) })).rejects.toMatchObject({ code: "AI1016" });
    await expect(testTool(tool, { data: 1n })).rejects.toMatchObject({ code: "AI1001" });
  });
});
