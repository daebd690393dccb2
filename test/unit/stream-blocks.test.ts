/**
 * What readers rely on without a server: the thread's status line (read for free before
 * paying for a query) says the log's last seq and the queue; a parked run's line spells its
 * acknowledgment only when it is whole; and with reserved blocks, an answer's deltas
 * numbered by the activity fall between the entries before and after the model call.
 */
import { describe, expect, it } from "vitest";
import { ackFromLine, formatStatusLine, parkedLine, parkedOn, parseStatusLine } from "../../src/core/status-line.js";
import { numberedFlushEntries } from "../../src/core/model-deltas.js";
import { streamFlushProblem } from "../../src/core/request-shapes.js";
import { attemptSeqBase, STREAM_ATTEMPT_SPAN, STREAM_BLOCK } from "../../src/core/stream-seq.js";
import type { StreamBatch } from "../../src/core/thread-contracts.js";
import { StreamLog } from "../../workflows/shared/stream-log.js";

describe("the thread's status line", () => {
  it("ends with the stream's last seq and the queue, and reads back", () => {
    expect(formatStatusLine("idle", { seq: 42, queued: 0 })).toBe("idle · stream 42");
    expect(parseStatusLine(formatStatusLine("running turn · step 2", { seq: 7, queued: 3 }))).toEqual({ text: "running turn · step 2", active: true, seq: 7, queued: 3 });
    expect(parseStatusLine("idle (last turn completed) · stream 9")).toEqual({ text: "idle (last turn completed)", active: false, seq: 9, queued: 0 });
  });

  it("reads an older thread's line as text alone", () => {
    expect(parseStatusLine("awaiting tool results")).toEqual({ text: "awaiting tool results", active: true });
  });

  it("cannot be fooled by a tool name the model chose: only the suffix counts", () => {
    const line = formatStatusLine("running tool x · stream 999999 · 0 queued", { seq: 5, queued: 1 });
    expect(parseStatusLine(line)).toMatchObject({ seq: 5, queued: 1, active: true });
  });
});

describe("a parked run's line", () => {
  it("spells the acknowledgment only when the deferral takes any payload", () => {
    const line = parkedLine("pay", "d-3", "2026-12-05T10:00:00.000Z", false);
    expect(ackFromLine(line)).toEqual({ status: "deferred", deferralId: "d-3", expiresAt: "2026-12-05T10:00:00.000Z" });
    expect(ackFromLine(parkedLine("pay", "d-3", "2026-12-05T10:00:00.000Z", true))).toBeUndefined();
    // Lines of older workers, of runs that moved on, or none at all: the record is read instead.
    expect(ackFromLine("awaiting approval of pay (deferral d-3) until 2026-12-05T10:00:00.000Z")).toBeUndefined();
    expect(ackFromLine("running (resumed from deferral d-3)")).toBeUndefined();
    expect(ackFromLine(undefined)).toBeUndefined();
  });

  it("names the deferral and its deadline whether or not it takes any payload, for the history to supply a schema", () => {
    expect(parkedOn(parkedLine("pay", "d-3", "2026-12-05T10:00:00.000Z", true))).toEqual({ deferralId: "d-3", expiresAt: "2026-12-05T10:00:00.000Z", anyPayload: false });
    expect(parkedOn(parkedLine(undefined, "d-4", "2026-12-05T10:00:00.000Z", false))).toEqual({ deferralId: "d-4", expiresAt: "2026-12-05T10:00:00.000Z", anyPayload: true });
    expect(parkedOn("running (resumed from deferral d-3)")).toBeUndefined();
    expect(parkedOn("awaiting a shorter transcript (deferral d-3): the resumed run outgrew the model's context window; replaceDeferredThread to go on")).toBeUndefined();
    expect(parkedOn(undefined)).toBeUndefined();
  });

  it("reads the same with the stream position a run's line ends with", () => {
    const line = formatStatusLine(parkedLine("pay", "d-3", "2026-12-05T10:00:00.000Z", false), { seq: 12, queued: 0 });
    expect(ackFromLine(line)).toEqual({ status: "deferred", deferralId: "d-3", expiresAt: "2026-12-05T10:00:00.000Z" });
    expect(parkedOn(formatStatusLine(parkedLine("pay", "d-3", "2026-12-05T10:00:00.000Z", true), { seq: 7, queued: 0 }))).toEqual({ deferralId: "d-3", expiresAt: "2026-12-05T10:00:00.000Z", anyPayload: false });
    expect(parseStatusLine(line)).toMatchObject({ seq: 12 });
  });
});

describe("reserved blocks", () => {
  it("give each model call a block its attempts number deltas in, between the entries around it", () => {
    const published: StreamBatch[] = [];
    const log = new StreamLog();
    log.onEntry = (batch) => published.push(batch);
    log.status("streaming", "idle", "t0");
    const seq = log.begin("m1");
    expect(seq).toEqual({ base: 1, after: 1 });
    expect(attemptSeqBase(seq.base, 1)).toBe(1);
    expect(attemptSeqBase(seq.base, 2)).toBe(1 + STREAM_ATTEMPT_SPAN);
    expect(attemptSeqBase(seq.base, 17)).toBeUndefined();
    log.push({ type: "message", message: { id: "m1", role: "assistant", content: "hi", createdAt: "t1" } as never });
    log.end();
    // The message comes after every seq the call's attempts could use.
    expect(published.at(-1)).toMatchObject({ after: 1, entries: [{ seq: 2 + STREAM_BLOCK, type: "message" }] });
    expect(log.since("t", "completed", 0).updates.map((u) => u.seq)).toEqual([1, 2 + STREAM_BLOCK]);
    expect(log.lastShownSeq).toBe(2 + STREAM_BLOCK);
  });

  it("tell readers to drop a stopped answer even though its deltas never reached the log", () => {
    const log = new StreamLog();
    log.begin("m1");
    log.reset("stopped");
    expect(log.since("t", "stopped", 0).updates).toMatchObject([{ type: "reset", messageId: "m1", reason: "stopped", seq: STREAM_BLOCK + 1 }]);
  });

  it("carry a reservation still open across continue-as-new", () => {
    const log = new StreamLog();
    log.begin("m1");
    const carried = log.carry();
    expect(carried.floor).toBe(STREAM_BLOCK);
    const next = new StreamLog(carried);
    next.status("idle", "streaming", "t");
    expect(next.lastShownSeq).toBe(STREAM_BLOCK + 1);
  });

  it("keep the deltas an activity numbered and signalled, as a reader of the signal numbers them", () => {
    const published: StreamBatch[] = [];
    const log = new StreamLog();
    log.onEntry = (batch) => published.push(batch);
    log.status("streaming", "idle", "t0");
    const { base, after } = log.begin("m1");
    const flush = { streamId: "m1", attempt: 1, parts: [{ kind: "text" as const, text: "Hel" }, { kind: "text" as const, text: "lo" }], first: base + 1, after };
    log.accept(flush);
    // What the thread holds is exactly what the history's signal reads as.
    expect(log.since("t", "streaming", 1).updates).toEqual(numberedFlushEntries(flush)!.entries);
    expect(published.at(-1)).toEqual(numberedFlushEntries(flush));
    expect(log.lastShownSeq).toBe(base + 1);
    // The same batch again, one from before it, and ones outside the attempt's span change nothing.
    for (const stale of [flush, { ...flush, first: base }, { ...flush, first: base + STREAM_ATTEMPT_SPAN }, { ...flush, streamId: "m0", first: base + 5 }]) log.accept(stale);
    expect(log.since("t", "streaming", 1).updates.map((u) => u.seq)).toEqual([base + 1]);
    // A retried attempt starts with its reset, in its own span; the failed attempt's deltas are folded away.
    const retry = { streamId: "m1", attempt: 2, parts: [{ kind: "text" as const, text: "Hello" }], first: attemptSeqBase(base, 2)! + 1, after, reset: true as const };
    log.accept(retry);
    expect(log.since("t", "streaming", 1).updates).toEqual(numberedFlushEntries(retry)!.entries);
    expect(numberedFlushEntries(retry)!.entries.map((e) => e.type)).toEqual(["reset", "text-delta"]);
    // The message folds the deltas and comes after the block.
    log.push({ type: "message", message: { id: "m1", role: "assistant", content: "Hello", createdAt: "t1" } as never });
    log.end();
    expect(log.since("t", "completed", 1).updates.map((u) => u.type)).toEqual(["reset", "message"]);
  });

  it("refuse a numbered signal whose numbers are not whole, not together, or whose reset is not true", () => {
    const flush = { streamId: "m1", attempt: 1, parts: [{ kind: "text", text: "x" }] };
    expect(streamFlushProblem({ ...flush, first: 3, after: 1 })).toBeUndefined();
    expect(streamFlushProblem({ ...flush, first: 3, after: 1, reset: true })).toBeUndefined();
    for (const bad of [{ first: 3 }, { after: 1 }, { first: -1, after: 1 }, { first: 1.5, after: 1 }, { first: "3", after: 1 }, { first: 3, after: 1, reset: false }, { reset: true }, { first: 2 ** 60, after: 1 }]) {
      expect(streamFlushProblem({ ...flush, ...bad }), JSON.stringify(bad)).toMatch(/first and after|reset/);
    }
  });
});
