import { setTimeout as sleep } from "node:timers/promises";
import { WorkflowNotFoundError, type Client } from "@temporalio/client";
import type { StreamSnapshot, StreamUpdate } from "../../core/thread-contracts.js";
import { ThreadNotFoundError } from "../../core/errors/thread-not-found.js";
import { isQueryBusy } from "../query-busy.js";
import { acquireStreamClient, busyPauseMs } from "../stream-client.js";
import { HistoryWatch } from "../history-watch.js";

/** What the hub reads through: the threads client (its reads bounded and translated). */
export interface StreamSource {
  readonly client: Client;
  readStream(threadId: string, fromSeq: number, via: Client): Promise<StreamSnapshot>;
}

const hubs = new WeakMap<StreamSource, Map<number, StreamHub>>();

/**
 * The process's hub for this threads client and interval: handlers made twice over the
 * same client (two mounts, a hot reload) still share one poller per thread.
 */
export function hubFor(threads: StreamSource, intervalMs: number): StreamHub {
  let byInterval = hubs.get(threads);
  if (!byInterval) hubs.set(threads, (byInterval = new Map()));
  let hub = byInterval.get(intervalMs);
  if (!hub) byInterval.set(intervalMs, (hub = new StreamHub(threads, intervalMs)));
  return hub;
}

/** One follower of a thread's stream, as the shared poller sees it. */
export interface StreamReader {
  /** The last seq this reader has been given. */
  last: number;
  /**
   * New entries (seq > last), in order, with the read they came from; `truncated` when the
   * stream dropped entries this reader had not seen (it should re-read the messages). The
   * reader advances `last` itself.
   */
  deliver(updates: StreamUpdate[], snapshot: StreamSnapshot, truncated: boolean): void;
  /** The poller can no longer serve this reader (the thread is gone). */
  fail(err: unknown): void;
}

/**
 * One poller per thread per process, shared by every reader of that thread: each interval
 * it reads the stream once, from the position of the reader furthest behind, and hands each
 * reader what it has not seen; it stops when the last reader leaves. Readers are
 * authorized by the threads client before they see anything (see the events route); the
 * poller reads on a fail-fast client (`acquireStreamClient`) and retries a read the workflow was
 * too busy to answer after a few random milliseconds, so pollers in several processes
 * interleave instead of starving each other.
 */
export class StreamHub {
  readonly #pollers = new Map<string, ThreadPoller>();
  #reads: ReturnType<typeof acquireStreamClient> | undefined;

  constructor(
    private readonly threads: StreamSource,
    readonly intervalMs: number,
  ) {}

  /** Adds a reader; returns how to remove it. */
  join(threadId: string, reader: StreamReader): () => void {
    let poller = this.#pollers.get(threadId);
    if (!poller) {
      poller = new ThreadPoller(this, threadId);
      this.#pollers.set(threadId, poller);
    }
    poller.add(reader);
    return () => poller.remove(reader);
  }

  /**
   * @internal One read of the stream; retried while the workflow is busy. `undefined` when
   * the history has not moved since `watch` last saw it (nothing new: no query, which is a
   * billed action, where the describe is not) or the poller stopped.
   */
  async read(threadId: string, fromSeq: number, stopped: () => boolean, watch: { current?: HistoryWatch }): Promise<StreamSnapshot | "unchanged" | undefined> {
    const client = (this.#reads ??= acquireStreamClient(this.threads.client)).client;
    const history = (watch.current ??= new HistoryWatch(client, threadId));
    if (!(await translated(threadId, () => history.changed()))) return "unchanged";
    for (;;) {
      try {
        return await this.threads.readStream(threadId, fromSeq, client);
      } catch (err) {
        if (!isQueryBusy(err)) throw err;
        if (stopped()) {
          history.forget();
          return undefined;
        }
        await sleep(busyPauseMs());
      }
    }
  }

  /** @internal */
  done(threadId: string, poller: ThreadPoller): void {
    if (this.#pollers.get(threadId) === poller) this.#pollers.delete(threadId);
    if (this.#pollers.size === 0 && this.#reads) {
      this.#reads.release();
      this.#reads = undefined;
    }
  }
}

async function translated<T>(threadId: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new ThreadNotFoundError({ threadId });
    throw err;
  }
}

class ThreadPoller {
  readonly #readers = new Set<StreamReader>();
  readonly #watch: { current?: HistoryWatch } = {};
  #running = false;
  #wake: (() => void) | undefined;

  constructor(
    private readonly hub: StreamHub,
    private readonly threadId: string,
  ) {}

  add(reader: StreamReader): void {
    this.#readers.add(reader);
    // A reader that joins has seen nothing yet: the next round reads even if the history did not move.
    this.#watch.current?.forget();
    this.#wake?.();
    if (!this.#running) {
      this.#running = true;
      void this.#loop();
    }
  }

  remove(reader: StreamReader): void {
    this.#readers.delete(reader);
    if (this.#readers.size === 0) this.#wake?.();
  }

  async #loop(): Promise<void> {
    try {
      while (this.#readers.size > 0) {
        const readers = [...this.#readers];
        const fromSeq = Math.min(...readers.map((r) => r.last));
        let snapshot: StreamSnapshot | undefined;
        try {
          const read = await this.hub.read(this.threadId, fromSeq, () => this.#readers.size === 0, this.#watch);
          if (read === "unchanged") {
            await this.#pause(this.hub.intervalMs);
            continue;
          }
          snapshot = read;
        } catch (err) {
          // The thread is gone (or the server refuses for good): every reader hears it.
          for (const r of readers) {
            this.#readers.delete(r);
            r.fail(err);
          }
          continue;
        }
        if (!snapshot) break;
        for (const reader of readers) {
          if (!this.#readers.has(reader)) continue;
          const truncated = snapshot.truncated && reader.last === fromSeq;
          const fresh = snapshot.updates.filter((u) => u.seq > reader.last);
          if (fresh.length > 0 || truncated) reader.deliver(fresh, snapshot, truncated);
        }
        await this.#pause(this.hub.intervalMs);
      }
    } finally {
      // A reader that joined while the loop was ending keeps this poller going.
      if (this.#readers.size > 0) void this.#loop();
      else {
        this.#running = false;
        this.hub.done(this.threadId, this);
      }
    }
  }

  /** Waits `ms`, or less when the last reader leaves. */
  async #pause(ms: number): Promise<void> {
    const ac = new AbortController();
    this.#wake = () => {
      if (this.#readers.size === 0) ac.abort();
    };
    await sleep(ms, undefined, { signal: ac.signal }).catch(() => undefined);
    this.#wake = undefined;
  }
}
