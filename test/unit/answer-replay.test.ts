/**
 * What a stream transport keeps for a reader who subscribes mid-answer: the answer's deltas
 * so far, per thread, until an entry the thread keeps ends the answer; bounded per thread
 * and in the number of threads.
 */
import { describe, expect, it } from "vitest";
import type { StreamBatch } from "../../src/index.js";
import { AnswerReplay } from "../../src/stream/answer-replay.js";

const delta = (seq: number): StreamBatch => ({ after: 1, entries: [{ seq, type: "text-delta", messageId: "m1", text: `d${seq}` }] });
const argument = (seq: number): StreamBatch => ({ after: 1, entries: [{ seq, type: "tool-input-delta", messageId: "m1", toolCallId: "c1", argumentsDelta: "{" }] });
const reset = (seq: number): StreamBatch => ({ after: 1, entries: [{ seq, type: "reset", messageId: "m1", reason: "retry" }] });
const message = (seq: number): StreamBatch => ({ after: 1, entries: [{ seq, type: "message", message: { id: "m1", role: "assistant", content: "done" } }] as StreamBatch["entries"] });

describe("AnswerReplay", () => {
  it("keeps an answer's deltas, text and tool arguments, per thread, in order", () => {
    const replay = new AnswerReplay<StreamBatch>();
    for (const b of [delta(2), argument(3), delta(4)]) replay.note("t1", b, b);
    replay.note("t2", delta(7), delta(7));
    expect(replay.of("t1")).toEqual([delta(2), argument(3), delta(4)]);
    expect(replay.of("t2")).toEqual([delta(7)]);
    expect(replay.of("nobody")).toEqual([]);
    // What a caller does with the list it got changes nothing kept.
    (replay.of("t1") as StreamBatch[]).splice(0);
    expect(replay.of("t1")).toHaveLength(3);
  });

  it("forgets the answer at an entry the thread keeps: its message, or a reset before another attempt", () => {
    const replay = new AnswerReplay<StreamBatch>();
    replay.note("t", delta(2), delta(2));
    replay.note("t", message(3), message(3));
    expect(replay.of("t")).toEqual([]);
    expect(replay.size).toBe(0);
    replay.note("t", delta(4), delta(4));
    replay.note("t", reset(5), reset(5));
    replay.note("t", delta(6), delta(6));
    expect(replay.of("t")).toEqual([delta(6)]);
  });

  it("stops keeping an answer past 1,200 batches, and keeps at most 1,000 threads, forgetting the least recently written", () => {
    const replay = new AnswerReplay<number>();
    for (let i = 0; i < 1_201; i++) replay.note("long", delta(i + 2), i);
    // Past the cap it keeps nothing of that answer rather than a piece with a hole in it.
    expect(replay.of("long")).toEqual([]);
    replay.note("long", delta(9_999), 9_999);
    expect(replay.of("long")).toEqual([]);
    // The next answer of the thread is kept again.
    replay.note("long", message(10_000), 0);
    replay.note("long", delta(10_001), 1);
    expect(replay.of("long")).toEqual([1]);

    for (let i = 0; i < 1_000; i++) replay.note(`t${i}`, delta(2), i);
    expect(replay.size).toBe(1_000);
    expect(replay.of("long")).toEqual([]);
    replay.note("t0", delta(3), 0);
    replay.note("one more", delta(2), 0);
    // t1 was written least recently (t0 was written again).
    expect(replay.of("t1")).toEqual([]);
    expect(replay.of("t0")).toEqual([0, 0]);
  });
});
