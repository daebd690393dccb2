/**
 * What a stream transport keeps of a thread for a reader who subscribes: its latest durable
 * entries as one chain (each batch following the durable entry before it), then the deltas
 * of the answer being written; bounded per thread and across threads.
 */
import { describe, expect, it } from "vitest";
import type { StreamBatch } from "../../src/index.js";
import { ThreadReplay } from "../../src/stream/thread-replay.js";

const delta = (seq: number, after = 1): StreamBatch => ({ after, entries: [{ seq, type: "text-delta", messageId: "m1", text: `d${seq}` }] });
const argument = (seq: number, after = 1): StreamBatch => ({ after, entries: [{ seq, type: "tool-input-delta", messageId: "m1", toolCallId: "c1", argumentsDelta: "{" }] });
const reset = (seq: number, after: number): StreamBatch => ({ after, entries: [{ seq, type: "reset", messageId: "m1", reason: "retry" }] });
const status = (seq: number, after: number): StreamBatch => ({ after, entries: [{ seq, type: "status", status: "streaming", previousStatus: "idle", at: "2026-12-06T00:00:00.000Z" }] as StreamBatch["entries"] });
const message = (seq: number, after: number): StreamBatch => ({ after, entries: [{ seq, type: "message", message: { id: "m1", role: "assistant", content: "done" } }] as StreamBatch["entries"] });
const note = (replay: ThreadReplay<StreamBatch>, threadId: string, ...batches: StreamBatch[]) => {
  for (const b of batches) replay.note(threadId, b, b, 100);
};

describe("ThreadReplay", () => {
  it("keeps a thread's durable entries as a chain, then the answer's deltas, text and tool arguments, per thread, in order", () => {
    const replay = new ThreadReplay<StreamBatch>();
    note(replay, "t1", status(1, 0), delta(2), argument(3), delta(4));
    note(replay, "t2", status(1, 0), delta(7));
    expect(replay.of("t1")).toEqual([status(1, 0), delta(2), argument(3), delta(4)]);
    expect(replay.of("t2")).toEqual([status(1, 0), delta(7)]);
    expect(replay.of("nobody")).toEqual([]);
    // What a caller does with the list it got changes nothing kept.
    (replay.of("t1") as StreamBatch[]).splice(0);
    expect(replay.of("t1")).toHaveLength(4);
  });

  it("folds an answer's deltas away at an entry the thread keeps (its message, a reset), and keeps no delta published after its answer was over", () => {
    const replay = new ThreadReplay<StreamBatch>();
    note(replay, "t", status(1, 0), delta(2), message(3, 1));
    expect(replay.of("t")).toEqual([status(1, 0), message(3, 1)]);
    // A late delta of the answer that is over.
    note(replay, "t", delta(2));
    note(replay, "t", delta(4, 3), reset(5, 3), delta(6, 5));
    expect(replay.of("t")).toEqual([status(1, 0), message(3, 1), reset(5, 3), delta(6, 5)]);
  });

  it("starts the chain again at a batch that does not follow the last durable entry kept: what was published elsewhere is read from the thread", () => {
    const replay = new ThreadReplay<StreamBatch>();
    note(replay, "t", status(1, 0), message(3, 1));
    // Entries 4 to 9 were published by another worker: this one's chain starts after 9.
    note(replay, "t", message(10, 9), delta(11, 10));
    expect(replay.of("t")).toEqual([message(10, 9), delta(11, 10)]);
    note(replay, "t", delta(21, 20));
    expect(replay.of("t")).toEqual([delta(21, 20)]);
  });

  it("stops keeping an answer past 1,200 batches, keeps 500 durable batches and 1 MiB a thread, and at most 1,000 threads, forgetting the least recently written", () => {
    const replay = new ThreadReplay<number>();
    replay.note("long", status(1, 0), 0, 10);
    for (let i = 0; i < 1_201; i++) replay.note("long", delta(i + 2), i, 10);
    // Past the cap it keeps nothing of that answer rather than a piece with a hole in it.
    expect(replay.of("long")).toEqual([0]);
    replay.note("long", delta(9_999), 9_999, 10);
    expect(replay.of("long")).toEqual([0]);
    // The next answer of the thread is kept again.
    replay.note("long", message(10_000, 1), 1, 10);
    replay.note("long", delta(10_001, 10_000), 2, 10);
    expect(replay.of("long")).toEqual([0, 1, 2]);

    const durable = new ThreadReplay<number>();
    for (let i = 0; i < 501; i++) durable.note("t", status(i + 1, i), i, 10);
    expect(durable.of("t")).toHaveLength(500);
    expect(durable.of("t")[0]).toBe(1);
    durable.note("t", status(502, 501), 501, (1 << 20) + 1);
    // Over the thread's bytes: the oldest go first, down to none if the newest alone is over.
    expect(durable.of("t")).toEqual([]);

    for (let i = 0; i < 1_000; i++) replay.note(`t${i}`, status(1, 0), i, 10);
    expect(replay.size).toBe(1_000);
    expect(replay.of("long")).toEqual([]);
    replay.note("t0", status(2, 1), 0, 10);
    replay.note("one more", status(1, 0), 0, 10);
    // t1 was written least recently (t0 was written again).
    expect(replay.of("t1")).toEqual([]);
    expect(replay.of("t0")).toEqual([0, 0]);
  });
});
