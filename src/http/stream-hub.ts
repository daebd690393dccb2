import { setTimeout as sleep } from "node:timers/promises";
import type { StreamSnapshot, StreamUpdate } from "../core/thread-contracts.js";
import { DurableAgentsError } from "../core/errors/base.js";
import { ThreadUnauthorizedError } from "../core/errors/thread-unauthorized.js";
import type { Principal } from "../core/json.js";
import type { ThreadsClient } from "../threads/threads-client.js";
import { isQueryBusy } from "./query-busy.js";

/** One follower of a thread's stream, as the shared poller sees it. */
export interface StreamReader {
  principal: Principal | undefined;
  /** The last seq this reader has been given. */
  last: number;
  /** New entries (seq > last), in order; the reader advances `last` itself. */
  deliver(updates: StreamUpdate[], snapshot: StreamSnapshot): void;
  /** The stream dropped entries this reader had not seen: it should re-read the messages. */
  truncated(snapshot: StreamSnapshot): void;
  /** The poller can no longer serve this reader (refused, thread gone). */
  fail(err: unknown): void;
}

/**
 * One poller per thread per process, shared by every reader of that thread: each interval
 * it reads the stream once, from the position of the reader furthest behind, and hands each
 * reader what it has not seen. It stops when the last reader leaves. When Temporal refuses
 * a query because the workflow is busy (its query buffer holds one while a task runs), it
 * backs off with jitter instead of failing its readers.
 */
export class StreamHub {
  readonly #pollers = new Map<string, ThreadPoller>();
  /** Stream queries made so far, over all threads: what "one poll per interval" is measured by. */
  polls = 0;

  constructor(
    private readonly threads: ThreadsClient,
    private readonly intervalMs: number,
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

  /** How many threads are polled right now. */
  get pollerCount(): number {
    return this.#pollers.size;
  }

  /** @internal */
  read(threadId: string, fromSeq: number, principal: Principal | undefined): Promise<StreamSnapshot> {
    this.polls++;
    return this.threads.streamUpdates({ threadId, fromSeq, ...(principal ? { principal } : {}) });
  }

  /** @internal */
  interval(): number {
    return this.intervalMs;
  }

  /** @internal */
  done(threadId: string, poller: ThreadPoller): void {
    if (this.#pollers.get(threadId) === poller) this.#pollers.delete(threadId);
  }
}

class ThreadPoller {
  readonly #readers = new Set<StreamReader>();
  #running = false;
  #wake: (() => void) | undefined;

  constructor(
    private readonly hub: StreamHub,
    private readonly threadId: string,
  ) {}

  add(reader: StreamReader): void {
    this.#readers.add(reader);
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
    let busyDelay = 0;
    try {
      while (this.#readers.size > 0) {
        const readers = [...this.#readers];
        const fromSeq = Math.min(...readers.map((r) => r.last));
        // The poll is made as one of its readers, so a principal whose access was revoked
        // is refused here and dropped, and never polls on the others' behalf.
        const asReader = readers[0]!;
        let snapshot: StreamSnapshot | undefined;
        try {
          snapshot = await this.hub.read(this.threadId, fromSeq, asReader.principal);
          busyDelay = 0;
        } catch (err) {
          if (isQueryBusy(err)) {
            busyDelay = Math.min(2000, Math.max(this.hub.interval(), busyDelay * 2));
            await this.#pause(busyDelay / 2 + Math.random() * busyDelay);
            continue;
          }
          const unauthorized = ThreadUnauthorizedError.isInstance(err);
          for (const r of unauthorized ? [asReader] : readers) {
            this.#readers.delete(r);
            r.fail(err);
          }
          if (!unauthorized && !DurableAgentsError.isDurableAgentsError(err)) await this.#pause(this.hub.interval());
          continue;
        }
        for (const reader of readers) {
          if (!this.#readers.has(reader)) continue;
          if (snapshot.truncated && reader.last === fromSeq) reader.truncated(snapshot);
          const fresh = snapshot.updates.filter((u) => u.seq > reader.last);
          if (fresh.length > 0) reader.deliver(fresh, snapshot);
        }
        await this.#pause(this.hub.interval());
      }
    } finally {
      this.#running = false;
      this.hub.done(this.threadId, this);
    }
  }

  /** Waits `ms`, or less when the last reader leaves. */
  async #pause(ms: number): Promise<void> {
    const ac = new AbortController();
    this.#wake = () => ac.abort();
    await sleep(ms, undefined, { signal: ac.signal }).catch(() => undefined);
    this.#wake = undefined;
  }
}
