import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DeltaFlusher } from "../../activities/thread-stream-flusher.js";
import type { ModelDelta } from "../../src/core/model.js";

const text = (t: string): ModelDelta => ({ kind: "text", text: t });

/** A flusher whose sends are recorded with the (fake) time they were made. */
function recorded(intervalMs: number, maxBatches: number) {
  const sends: Array<{ at: number; parts: ModelDelta[] }> = [];
  const start = Date.now();
  const flusher = new DeltaFlusher(
    async (parts) => void sends.push({ at: Date.now() - start, parts }),
    intervalMs,
    maxBatches,
  );
  return { flusher, sends };
}

describe("the thread stream's delta flusher (what one answer costs in signals)", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("sends the first delta at once, then what gathered at most once per interval, merged", async () => {
    const { flusher, sends } = recorded(250, 60);
    flusher.push(text("Once"));
    await vi.advanceTimersByTimeAsync(0);
    for (const piece of [" upon", " a", " time"]) {
      flusher.push(text(piece));
      await vi.advanceTimersByTimeAsync(50);
    }
    await vi.advanceTimersByTimeAsync(250);
    expect(sends).toEqual([
      { at: 0, parts: [text("Once")] },
      { at: 250, parts: [text(" upon a time")] },
    ]);
    await flusher.close();
  });

  it("sends no more than maxBatches however long the answer streams, the interval doubling every 20 batches", async () => {
    const { flusher, sends } = recorded(50, 25);
    // A delta every 10 ms for a minute: without the cap, hundreds of batches.
    for (let i = 0; i < 6_000; i++) {
      flusher.push(text(`${i} `));
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(sends).toHaveLength(25);
    expect(flusher.batches).toBe(25);
    const gaps = sends.slice(1).map((s, i) => s.at - sends[i]!.at);
    expect(gaps.slice(0, 19).every((gap) => gap === 50)).toBe(true);
    expect(gaps.slice(19).every((gap) => gap === 100)).toBe(true);
    await flusher.close();
  });

  it("drops what close() finds unsent and waits for the batch in flight, so no delta lands after the answer", async () => {
    let finish!: () => void;
    const sent: ModelDelta[][] = [];
    const flusher = new DeltaFlusher(
      (parts) => {
        sent.push(parts);
        return new Promise<void>((resolve) => (finish = resolve));
      },
      250,
      60,
    );
    flusher.push(text("first"));
    await vi.advanceTimersByTimeAsync(0);
    flusher.push(text("never sent"));
    let closed = false;
    const closing = flusher.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(closed).toBe(false);
    finish();
    await closing;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent).toEqual([[text("first")]]);
  });

  it("with closeWaitMs, gives up waiting for a batch in flight that never settles", async () => {
    const sent: ModelDelta[][] = [];
    const flusher = new DeltaFlusher(
      (parts) => {
        sent.push(parts);
        return new Promise<void>(() => undefined);
      },
      50,
      60,
      false,
      1_000,
    );
    flusher.push(text("first"));
    await vi.advanceTimersByTimeAsync(0);
    flusher.push(text("never sent"));
    let closed = false;
    const closing = flusher.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await closing;
    expect(closed).toBe(true);
    expect(sent).toEqual([[text("first")]]);
  });
});
