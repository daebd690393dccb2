import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StreamUpdate } from "../src/index.js";
import { SECRET, startHarness, uid, type Harness } from "./harness.js";
import { chatAgent } from "./thread-support.js";
import { killAll, spawnWorker } from "./workers/spawn.js";

let h: Harness;
let taskQueue: string;
let agents: Awaited<ReturnType<Harness["worker"]>>["agents"];

beforeAll(async () => {
  h = await startHarness();
  ({ taskQueue, agents } = await h.worker([chatAgent], { deferral: { secret: SECRET }, threads: { stream: { interval: "50ms", maxBatches: 60 } } }));
});
afterAll(async () => {
  await killAll();
  await h?.close();
});

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (code) => resolve(code))));

const STORY = "Three processes followed one thread while its answer was written, and none of them starved the others. ".repeat(3);

describe("readers in several processes", () => {
  it("three processes following one thread each see every delta, in order, on a default dev server", async () => {
    const threadId = uid("multi");
    const prompt = uid("multi story");
    h.model.script(prompt, [{ delayMs: 300, chunkDelayMs: 15, text: STORY }]);
    const dir = mkdtempSync(join(tmpdir(), "sse-readers-"));
    const outs = [0, 1, 2].map((i) => join(dir, `reader-${i}.jsonl`));
    const readers = await Promise.all(
      outs.map((out) =>
        spawnWorker("sse-reader", { TEMPORAL_ADDRESS: h.address, NAMESPACE: h.namespace, TASK_QUEUE: taskQueue, THREAD_ID: threadId, OUT: out, POLL_MS: "20" }),
      ),
    );
    await agents.threads.createThread({ threadId, prompt, agent: chatAgent });
    expect(await Promise.all(readers.map(exited))).toEqual([0, 0, 0]);

    let busy = 0;
    for (const out of outs) {
      const lines = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { id?: string; event: string; data: StreamUpdate });
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
    h.model.script(prompt, [{ delayMs: 300, chunkDelayMs: 15, text: STORY }]);
    const dir = mkdtempSync(join(tmpdir(), "followers-"));
    const outs = [0, 1, 2].map((i) => join(dir, `follower-${i}.jsonl`));
    const followers = await Promise.all(
      outs.map((out) => spawnWorker("thread-reader", { TEMPORAL_ADDRESS: h.address, NAMESPACE: h.namespace, TASK_QUEUE: taskQueue, THREAD_ID: threadId, FROM_SEQ: "0", OUT: out })),
    );
    await agents.threads.createThread({ threadId, prompt, agent: chatAgent });
    expect(await Promise.all(followers.map(exited))).toEqual([0, 0, 0]);
    for (const out of outs) {
      const batches = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { updates: StreamUpdate[] });
      expectEveryDelta(batches.flatMap((b) => b.updates));
    }
    h.model.assertNoFailures();
  });
});

/**
 * A reader saw the answer being written (many deltas), every delta from its first in
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
