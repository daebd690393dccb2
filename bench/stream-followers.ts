/**
 * Readers of one thread turn, as bench cost runs them in its own process and in child
 * processes (bench/follower-process.ts): through `followUpdates` or through the front door's
 * SSE route. Each says when it has caught up with the thread (its first batch or event: what
 * joining cost is counted apart), when the first delta of the turn reached it, and when it
 * has seen the turn's answer as a message and then the completed status.
 */
import type { StreamUpdate, ThreadsClient } from "../src/index.js";

export interface Following {
  /** The reader has what the thread held when it joined. */
  caughtUp: Promise<void>;
  /** `performance.now()` when the first text delta reached the reader. */
  firstDelta: Promise<number>;
  /**
   * The reader saw the answer as a message, then the completed status; rejects if it saw
   * no delta of the answer on the way (the stream did not reach it, so it measured nothing).
   */
  done: Promise<void>;
}

/** Tracks one reader's entries; `see` takes each batch of them in order. */
function tracker(answer: string) {
  let caughtUp!: () => void;
  let firstDelta!: (at: number) => void;
  let done!: () => void;
  let fail!: (err: unknown) => void;
  const following: Following = {
    caughtUp: new Promise<void>((resolve) => (caughtUp = resolve)),
    firstDelta: new Promise<number>((resolve) => (firstDelta = resolve)),
    done: new Promise<void>((resolve, reject) => ((done = resolve), (fail = reject))),
  };
  // The readers of a measured turn that ends early must not leave an unhandled rejection.
  following.done.catch(() => undefined);
  let sawDelta = false;
  let sawAnswer = false;
  let finished = false;
  const see = (updates: StreamUpdate[]): boolean => {
    caughtUp();
    for (const u of updates) {
      // The thread's first turn answered something else: only pieces of this answer count.
      if (u.type === "text-delta" && answer.startsWith(u.text)) {
        if (!sawDelta) firstDelta(performance.now());
        sawDelta = true;
      }
      if (u.type === "message" && u.message.role === "assistant" && u.message.content === answer) sawAnswer = true;
      if (sawAnswer && u.type === "status" && u.status === "completed") finished = true;
    }
    if (finished) {
      if (sawDelta) done();
      else fail(new Error("the reader saw the answer but none of its deltas: the stream did not reach it"));
    }
    return finished;
  };
  const ended = (err?: unknown) => {
    if (!finished) fail(err ?? new Error("the reader stopped before it saw the turn complete"));
  };
  return { following, see, ended };
}

/** A reader following `threadId` with `followUpdates` until the turn answering `answer` completes (or `signal` aborts). */
export function followThread(threads: ThreadsClient, threadId: string, answer: string, signal: AbortSignal): Following {
  const { following, see, ended } = tracker(answer);
  void (async () => {
    try {
      for await (const batch of threads.followUpdates({ threadId, signal })) if (see(batch.updates)) return;
      ended();
    } catch (err) {
      ended(err);
    }
  })();
  return following;
}

/** A reader of the SSE response `open()` answers, until the turn answering `answer` completes (or `signal` aborts). */
export function followEvents(open: (signal: AbortSignal) => Promise<Response>, answer: string, signal: AbortSignal): Following {
  const { following, see, ended } = tracker(answer);
  void (async () => {
    try {
      const response = await open(signal);
      if (response.status !== 200 || !response.body) throw new Error(`events answered ${response.status}: ${await response.text()}`);
      const decoder = new TextDecoder();
      let buffer = "";
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        const updates: StreamUpdate[] = [];
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (data === undefined) continue;
          if (event === "error") throw new Error(`the event stream failed: ${data}`);
          if (event === "message") updates.push(JSON.parse(data) as StreamUpdate);
        }
        if (updates.length > 0 && see(updates)) break;
      }
      ended();
    } catch (err) {
      ended(err);
    }
  })();
  return following;
}

/**
 * A reader that stays on `threadId` turn after turn (as a chat UI's does) until `signal`
 * aborts: `caughtUp` once it has what the thread held when it joined (or it failed first:
 * `ended` rejects then), and `answered(at)` each time it sees an assistant message followed
 * by the completed status (`at`: `Date.now()`, comparable across the bench's processes).
 */
export function followTurns(threads: ThreadsClient, threadId: string, answered: (at: number) => void, signal: AbortSignal): { caughtUp: Promise<void>; ended: Promise<void> } {
  let caughtUp!: () => void;
  const joined = new Promise<void>((resolve) => (caughtUp = resolve));
  const ended = (async () => {
    let sawAnswer = false;
    try {
      for await (const batch of threads.followUpdates({ threadId, signal })) {
        caughtUp();
        for (const u of batch.updates) {
          if (u.type === "message" && u.message.role === "assistant") sawAnswer = true;
          if (sawAnswer && u.type === "status" && u.status === "completed") {
            sawAnswer = false;
            answered(Date.now());
          }
        }
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      caughtUp();
    }
  })();
  return { caughtUp: joined, ended };
}
