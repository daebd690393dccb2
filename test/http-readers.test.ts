import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { StreamUpdate } from "../src/index.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { chatAgent } from "./thread-support.js";
import { killAll, spawnWorker } from "./workers/spawn.js";

let h: Harness;
let taskQueue: string;
let agents: Awaited<ReturnType<Harness["worker"]>>["agents"];

beforeAll(async () => {
  h = await startHarness();
  ({ taskQueue, agents } = await h.worker([chatAgent], { deferral: { secret: SECRET }, threads: { stream: { batchInterval: "50ms", maxBatches: 60 } } }));
});
afterAll(async () => {
  await killAll();
  await h?.close();
});

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (code) => resolve(code))));

const STORY = "Three processes followed one thread while its answer was written, and none of them starved the others. ".repeat(3);

/** Six holds along the answer: each piece comes out once every reader has the one before. */
const pieces = () => [16, 48, 80, 112, 144, 176].map((afterChars) => ({ hold: h.model.hold(), afterChars }));

/** The JSON lines a reader process wrote so far (a line being written is not one yet). */
function linesIn<T>(out: string): T[] {
  if (!existsSync(out)) return [];
  const text = readFileSync(out, "utf8");
  return text.slice(0, text.lastIndexOf("\n") + 1).split("\n").filter(Boolean).map((line) => JSON.parse(line) as T);
}

const deltaText = (updates: StreamUpdate[]) => updates.flatMap((u) => (u.type === "text-delta" ? [u.text] : [])).join("");

/** Lets each piece out once every reader has shown the answer up to it. */
async function release(holds: ReturnType<typeof pieces>, shown: () => string[]): Promise<void> {
  for (const { hold, afterChars } of holds) {
    await vi.waitFor(() => expect(Math.min(...shown().map((text) => text.length))).toBeGreaterThanOrEqual(afterChars), { timeout: 30_000, interval: 20 });
    hold.release();
  }
}

describe("readers in several processes", () => {
  it("three processes following one thread each see every delta, in order, on a default dev server", async () => {
    const threadId = uid("multi");
    const prompt = uid("multi story");
    const holds = pieces();
    h.model.script(prompt, [{ text: STORY, holds }]);
    const dir = mkdtempSync(join(tmpdir(), "sse-readers-"));
    const outs = [0, 1, 2].map((i) => join(dir, `reader-${i}.jsonl`));
    const readers = await Promise.all(
      outs.map((out) =>
        spawnWorker("sse-reader", { TEMPORAL_ADDRESS: h.address, NAMESPACE: h.namespace, TASK_QUEUE: taskQueue, THREAD_ID: threadId, OUT: out, POLL_MS: "20" }),
      ),
    );
    await agents.threads.createThread({ threadId, prompt, agent: chatAgent });
    const linesOf = (out: string) => linesIn<{ id?: string; event: string; data: StreamUpdate }>(out);
    await release(holds, () => outs.map((out) => deltaText(linesOf(out).filter((l) => l.event === "message").map((l) => l.data))));
    expect(await Promise.all(readers.map(exited))).toEqual([0, 0, 0]);

    let busy = 0;
    for (const out of outs) {
      const lines = linesOf(out);
      expect(lines.filter((l) => l.event === "error")).toEqual([]);
      expectEveryDelta(lines.filter((l) => l.event === "message").map((l) => l.data));
      if (existsSync(`${out}.busy`)) busy += Number(readFileSync(`${out}.busy`, "utf8"));
    }
    console.info(`stream queries Temporal refused as busy across the three readers: ${busy}`);
    h.model.assertNoFailures();
  });

  it("three processes following one thread with ThreadsClient.followUpdates each see every delta, in order", async () => {
    const threadId = uid("multi-follow");
    const prompt = uid("multi follow story");
    const holds = pieces();
    h.model.script(prompt, [{ text: STORY, holds }]);
    const dir = mkdtempSync(join(tmpdir(), "followers-"));
    const outs = [0, 1, 2].map((i) => join(dir, `follower-${i}.jsonl`));
    const followers = await Promise.all(
      outs.map((out) => spawnWorker("thread-reader", { TEMPORAL_ADDRESS: h.address, NAMESPACE: h.namespace, TASK_QUEUE: taskQueue, THREAD_ID: threadId, FROM_SEQ: "0", OUT: out })),
    );
    await agents.threads.createThread({ threadId, prompt, agent: chatAgent });
    const updatesOf = (out: string) => linesIn<{ updates: StreamUpdate[] }>(out).flatMap((b) => b.updates);
    await release(holds, () => outs.map((out) => deltaText(updatesOf(out))));
    expect(await Promise.all(followers.map(exited))).toEqual([0, 0, 0]);
    for (const out of outs) expectEveryDelta(updatesOf(out));
    h.model.assertNoFailures();
  });
});

/**
 * A reader saw the answer being written (a delta per piece at least), every delta from its first in
 * order with none skipped (their seqs run without a gap and their text begins the
 * answer), then the whole message and the completed status. Only deltas written after
 * the reader's last read before the answer was complete are folded into the message:
 * that is the stream's rule, not a loss.
 */
function expectEveryDelta(updates: StreamUpdate[]) {
  const seqs = updates.map((u) => u.seq);
  expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
  const deltas = updates.filter((u): u is Extract<StreamUpdate, { type: "text-delta" }> => u.type === "text-delta");
  expect(deltas.length).toBeGreaterThan(5);
  const deltaSeqs = deltas.map((d) => d.seq);
  expect(deltaSeqs).toEqual(deltaSeqs.map((_, i) => deltaSeqs[0]! + i));
  expect(STORY.startsWith(deltas.map((d) => d.text).join(""))).toBe(true);
  const message = updates.find((u) => u.type === "message" && u.message.role === "assistant");
  expect(message).toMatchObject({ message: { content: STORY } });
  expect(message!.seq).toBeGreaterThan(deltaSeqs.at(-1)!);
  expect(updates.at(-1)).toMatchObject({ type: "status", status: "completed" });
}
