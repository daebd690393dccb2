import { setTimeout as sleep } from "node:timers/promises";
import { WorkflowNotFoundError, type Client } from "@temporalio/client";
import type { StreamBatch, StreamSnapshot, StreamUpdate, ThreadStatus, ToolProgressUpdate } from "../../core/thread-contracts.js";
import { parseStatusLine } from "../../core/status-line.js";
import type { StreamSubscription, StreamTransport } from "../../stream/transport.js";
import { ThreadNotFoundError } from "../../core/errors/threads.js";
import { isQueryBusy } from "../query-busy.js";
import { acquireStreamClient, busyPauseMs } from "../stream-client.js";
import { HistoryWatch } from "../history-watch.js";
import { tailSignalledBatches } from "./signal-tail.js";
import { isDefaultStreamTransport, isDirectStreamTransport } from "../../stream/direct.js";

/** What the hub reads through: the threads client (its reads bounded and translated). */
export interface StreamSource {
  readonly client: Client;
  /** Where the workers publish live entries; readers subscribe to it (default: in-process). */
  readonly streamTransport: StreamTransport;
  readStream(threadId: string, fromSeq: number, via: Client): Promise<StreamSnapshot>;
  /** The thread's status line (the metadata query, not billed), bounded and translated like `readStream`. */
  readStatusLine(threadId: string, via: Client): Promise<string | undefined>;
  /** What a reader hears when the workflow does not exist (default: AI1020, no such thread). */
  notFound?(id: string): Error;
}

const hubs = new WeakMap<StreamSource, Map<number, StreamHub>>();

/** How long a poller waits for its transport subscription before it reads the thread anyway. */
const SUBSCRIBE_WAIT_MS = 2_000;
/**
 * Entries a poller keeps of what it handed out, for readers that join it later (a second tab,
 * a reconnect with Last-Event-ID): a minute of deltas at the default 50 ms interval, and the
 * durable entries among them.
 */
const MAX_KEPT_ENTRIES = 4_096;

/**
 * How long a poller waits for an entry the thread's status line announced and the transport
 * has not brought yet, before it reads the thread's log (a billed query). The entry was
 * published before the line could show it, so it is on its way: how long it takes depends on
 * how busy the machine is, not on the interval readers poll at. Readers wait this long only
 * when the transport lost the entry (a dropped connection, a worker that restarted), since
 * an entry that comes is handed on at once.
 */
const ANNOUNCED_WAIT_MS = 2_000;

/**
 * The longest a poller whose thread's history is tailed waits for it to move before it
 * looks anyway: the tail starts over after a failed read (and then counts as a move), so
 * this only bounds what a look missed for a reason nobody foresaw.
 */
const QUIET_LOOK_MS = 2_000;

/** `promise`'s value, or undefined once `ms` passed first. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  const timer = new AbortController();
  try {
    return await Promise.race([promise, sleep(ms, undefined, { signal: timer.signal, ref: false })]);
  } finally {
    timer.abort();
  }
}

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
 * One follower per thread per process, shared by every reader of that thread. Live entries
 * come from the stream transport the workers publish on (no Temporal action); the thread's
 * own stream log, read by query (a billed action), is the fallback, read only when a reader
 * lacks a durable entry the thread has. What the thread has is known for free: a describe
 * says whether its history moved, and its status line (the metadata query Temporal does not
 * bill) says the seq of its last durable entry. So a reader in a process the transport
 * reaches pays nothing while it follows, and one elsewhere pays a query per durable entry.
 * Readers are authorized by the threads client before they see anything (see the events
 * route); queries go through a fail-fast client (`acquireStreamClient`) and are retried
 * after a few random milliseconds when the workflow is too busy to answer, so pollers in
 * several processes interleave instead of starving each other.
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

  /** @internal What readers hear when the workflow does not exist. */
  notFound(id: string): Error {
    return this.threads.notFound?.(id) ?? new ThreadNotFoundError({ threadId: id });
  }

  /** @internal The transport readers of this process subscribe to. */
  get transport(): StreamTransport {
    return this.threads.streamTransport;
  }

  /** @internal The threads client's own client, for the long-polls of `tailSignalledBatches` (the fail-fast one would cut them short). */
  get client(): Client {
    return this.threads.client;
  }

  /**
   * @internal Whether the transport hands a new subscriber what the publishing workers kept of
   * a thread and reaches them now: a direct transport connected to a worker's endpoint.
   */
  get replaysFromWorkers(): boolean {
    const transport = this.threads.streamTransport;
    return isDirectStreamTransport(transport) && transport.workerConnections > 0;
  }

  /** @internal The client reads go through (fail-fast, shared while anyone follows). */
  get reads(): Client {
    return (this.#reads ??= acquireStreamClient(this.threads.client)).client;
  }

  /**
   * @internal One read of the thread's stream log (a billed query); retried while the
   * workflow is busy. `undefined` when the poller stopped meanwhile.
   */
  read(threadId: string, fromSeq: number, stopped: () => boolean): Promise<StreamSnapshot | undefined> {
    return this.#whenFree(() => this.threads.readStream(threadId, fromSeq, this.reads), stopped);
  }

  /** @internal The thread's status line (the metadata query, not billed); retried while the workflow is busy. */
  statusLine(threadId: string, stopped: () => boolean): Promise<string | undefined> {
    return this.#whenFree(() => this.threads.readStatusLine(threadId, this.reads), stopped);
  }

  async #whenFree<T>(read: () => Promise<T>, stopped: () => boolean): Promise<T | undefined> {
    for (;;) {
      try {
        return await read();
      } catch (err) {
        if (!isQueryBusy(err)) throw err;
        if (stopped()) return undefined;
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

export async function translated<T>(threadId: string, read: () => Promise<T>, notFound: (id: string) => Error = (id) => new ThreadNotFoundError({ threadId: id })): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw notFound(threadId);
    throw err;
  }
}

function isDelta(entry: StreamUpdate): boolean {
  return entry.type === "text-delta" || entry.type === "tool-input-delta";
}

/** Tool progress has no place in the log (seq 0): it goes to readers as it comes, outside the order of seqs. */
function isProgress(entry: StreamUpdate): entry is ToolProgressUpdate {
  return entry.type === "tool-progress";
}

/** The seq a reader has reached once it holds `updates` (tool progress moves no one). */
export function lastSeqOf(updates: readonly StreamUpdate[], last: number): number {
  for (let i = updates.length - 1; i >= 0; i--) if (!isProgress(updates[i]!)) return Math.max(last, updates[i]!.seq);
  return last;
}

/**
 * Follows one thread for the hub's readers. Batches from the transport are applied in
 * order of the durable entries they follow (`after`): one that follows an entry this
 * poller has not seen waits, and if the entry does not come by transport soon, the thread's
 * log is read once by query. Batches arriving together are handed over together, so a
 * reader sees an answer's message and the status that ends the turn in one snapshot.
 */
class ThreadPoller {
  readonly #readers = new Set<StreamReader>();
  /**
   * Readers that joined and have not been brought up to now yet: they get nothing live until
   * they have what the thread holds after their seq (read from its log when they lack a
   * durable entry) and then what this poller handed out since (`#kept`), so a reader that
   * joins mid-answer misses no delta another reader of this process already got.
   */
  readonly #joining = new Set<StreamReader>();
  /** What this poller handed out lately, by seq (bounded, oldest first). */
  readonly #kept = new Map<number, StreamUpdate>();
  /** The latest progress of each tool call whose result has not come yet, for readers that join mid-call. */
  readonly #progress = new Map<string, ToolProgressUpdate>();
  readonly #watch: { current?: HistoryWatch } = {};
  #running = false;
  #wake: (() => void) | undefined;
  /** Ends a quiet pause: the tail read new events (see `#quiet`). */
  #wakeOnMove: (() => void) | undefined;
  /** Whether the tail read new events since the current look began. */
  #movedSinceLook = true;
  #subscription: Promise<StreamSubscription | undefined> | undefined;
  /** Stops the tail of the history's delta signals (see `tailSignalledBatches`). */
  #stopTail: (() => void) | undefined;
  /** The highest durable seq handed to readers (from the transport or a query); undefined before the first catch-up. */
  #known: number | undefined;
  /** The seq of the last entry of the thread's log, as its status line last said (undefined: a thread too old to say). */
  #lineSeq: number | undefined;
  /** Whether the status line last said a model call or tool is running: entries are on their way. */
  #lineRunning = false;
  /** Since when a reader lacks a durable entry the transport has not brought yet. */
  #missingSince: number | undefined;
  #status: ThreadStatus | undefined;
  #streaming: string | undefined;
  #lastSeq = 0;
  #incoming: StreamBatch[] = [];
  #pending: StreamBatch[] = [];
  #flushScheduled = false;
  /** Whether to read the status line (free) before the log (billed) when the history moved. */
  #lineFirst = true;
  /** Whether the transport has brought this poller anything: only then is it worth waiting for. */
  #heard = false;
  /**
   * Whether the history's signals have brought deltas: worth waiting for while nothing waits
   * for a durable entry (those never come that way).
   */
  #heardSignals = false;

  constructor(
    private readonly hub: StreamHub,
    private readonly threadId: string,
  ) {}

  add(reader: StreamReader): void {
    this.#readers.add(reader);
    this.#joining.add(reader);
    // A reader that joins may lack entries: the next round looks at the status line again.
    this.#watch.current?.forget();
    this.#wake?.();
    if (!this.#running) {
      this.#running = true;
      void this.#loop();
    }
  }

  remove(reader: StreamReader): void {
    this.#readers.delete(reader);
    this.#joining.delete(reader);
    if (this.#readers.size === 0) this.#wake?.();
  }

  async #loop(): Promise<void> {
    try {
      this.#subscription ??= this.hub.transport.subscribe(this.threadId, (batch) => this.#receive(batch), { client: this.hub.client }).catch(() => undefined);
      // A transport that reaches only this process leaves readers elsewhere to deltas by
      // signal: those the history holds, numbered, read without a query. The default
      // transport follows them too, for workers that send them (a plugin's default, "workflow").
      // The tail also says when the history moves, which is when a look can find anything; a
      // direct transport's readers (any, default or not) follow it for that alone. A broker
      // transport's readers look every interval, as before.
      const bySignal = this.hub.transport.local || isDefaultStreamTransport(this.hub.transport);
      if (bySignal || isDirectStreamTransport(this.hub.transport)) {
        this.#stopTail ??= tailSignalledBatches(
          this.hub.client,
          this.threadId,
          bySignal ? (batch) => this.#receive(batch, "history") : () => undefined,
          () => this.#historyMoved(),
        );
      }
      // Not for ever: readers of a transport whose subscribe never answers follow by query (a
      // subscription that lands later still brings what comes after it).
      await within(this.#subscription, SUBSCRIBE_WAIT_MS);
      while (this.#readers.size > 0) {
        const present = [...this.#readers];
        const lookedAt = Date.now();
        this.#movedSinceLook = false;
        try {
          if (!(await this.#round())) break;
        } catch (err) {
          // The thread is gone (or the server refuses for good): every reader that was there
          // when the look began hears it. One that joined meanwhile (a reader that retried
          // once the thread was created) waits for the next look, which may well find it.
          for (const r of present) {
            if (!this.#readers.delete(r)) continue;
            this.#joining.delete(r);
            r.fail(err);
          }
          this.#watch.current = undefined;
          continue;
        }
        // With the history tailed, nothing a look could find comes without a move of it: wait
        // for one (a describe every interval, idle or not, was 10 reads a second per followed
        // thread), then keep the interval's pace between looks.
        if (this.#quiet()) await this.#pause(QUIET_LOOK_MS, true);
        await this.#pause(Math.max(0, this.hub.intervalMs - (Date.now() - lookedAt)));
      }
    } finally {
      // A reader that joined while the loop was ending keeps this poller going.
      if (this.#readers.size > 0) void this.#loop();
      else {
        this.#running = false;
        const subscription = this.#subscription;
        this.#subscription = undefined;
        this.#stopTail?.();
        this.#stopTail = undefined;
        this.#known = undefined;
        this.#pending = [];
        this.#kept.clear();
        this.#progress.clear();
        void subscription?.then((s) => s?.unsubscribe()).catch(() => undefined);
        this.hub.done(this.threadId, this);
      }
    }
  }

  /** One look at the thread; false when the poller should stop. */
  async #round(): Promise<boolean> {
    const client = this.hub.reads;
    const watch = (this.#watch.current ??= new HistoryWatch(client, this.threadId));
    const moved = await translated(this.threadId, () => watch.changed(), (id) => this.hub.notFound(id));
    if (moved && this.#lineFirst) {
      const line = await this.hub.statusLine(this.threadId, () => this.#readers.size === 0);
      if (this.#readers.size === 0) return false;
      const parsed = line === undefined ? undefined : parseStatusLine(line);
      this.#lineSeq = parsed?.seq;
      this.#lineRunning = parsed?.text.startsWith("running") ?? false;
    } else if (moved) {
      this.#lineSeq = undefined;
    }
    // A joining reader behind what this poller already handed out gets it from the log: the transport will not bring it again.
    const joinerBehind = this.#known !== undefined && [...this.#joining].some((r) => r.last < this.#known!);
    if (!joinerBehind && (this.#adoptLine() || this.#adoptReplay() || !this.#lacking(moved))) {
      this.#missingSince = undefined;
      this.#admit();
      return true;
    }
    // What the status line announced is usually on its way: wait for it rather than pay a query.
    const patience = joinerBehind || this.#lineSeq === undefined ? 0 : this.#patience();
    if (patience > 0) {
      const now = Date.now();
      this.#missingSince ??= now;
      if (now - this.#missingSince < patience) return true;
    }
    const readers = [...this.#readers];
    const fromSeq = Math.min(...readers.map((r) => r.last));
    const snapshot = await this.hub.read(this.threadId, fromSeq, () => this.#readers.size === 0);
    if (!snapshot) return false;
    this.#missingSince = undefined;
    this.#known = Math.max(this.#known ?? 0, snapshot.lastSeq);
    this.#status = snapshot.status;
    this.#streaming = snapshot.streamingMessageId;
    this.#lastSeq = Math.max(this.#lastSeq, snapshot.lastSeq);
    let delivered = false;
    this.#keep(snapshot.updates);
    for (const reader of readers) {
      if (!this.#readers.has(reader)) continue;
      const truncated = snapshot.truncated && reader.last === fromSeq;
      const fresh = snapshot.updates.filter((u) => u.seq > reader.last);
      if (fresh.length > 0 || truncated) reader.deliver(fresh, snapshot, truncated);
      delivered ||= fresh.length > 0;
    }
    // Deltas by signal (they are in the log) move the history with news each time: while
    // they flow, reading the status line first only doubles the reads. Otherwise it saves
    // the billed query.
    this.#lineFirst = this.#heard || this.#heardSignals || !(delivered && snapshot.updates.some(isDelta));
    this.#drainPending();
    this.#admit();
    return true;
  }

  /** Brings joining readers, each now holding the thread's durable entries, up to what this poller handed out since; they go on live. */
  #admit(): void {
    if (this.#joining.size === 0 || this.#known === undefined) return;
    const kept = [...this.#kept.values()].sort((a, b) => a.seq - b.seq);
    for (const reader of [...this.#joining]) {
      this.#joining.delete(reader);
      const fresh = [...kept.filter((u) => u.seq > reader.last), ...this.#progress.values()];
      if (fresh.length > 0) reader.deliver(fresh, this.#snapshotOf(fresh), false);
    }
  }

  /** Remembers entries handed out, for readers that join later; the oldest go past MAX_KEPT_ENTRIES. */
  #keep(entries: StreamUpdate[]): void {
    for (const entry of entries) this.#kept.set(entry.seq, entry);
    for (const seq of this.#kept.keys()) {
      if (this.#kept.size <= MAX_KEPT_ENTRIES) break;
      this.#kept.delete(seq);
    }
  }

  /**
   * Before anything is caught up, readers that already hold what the status line announces
   * need no read: takes the line's seq as known and applies what waited for it. True when it did.
   */
  #adoptLine(): boolean {
    const line = this.#lineSeq;
    if (this.#known !== undefined || line === undefined) return false;
    if (![...this.#readers].every((r) => r.last >= line)) return false;
    this.#known = line;
    this.#drainPending();
    return true;
  }

  /**
   * Before anything is caught up: the transport's replay (what the publishing worker kept of
   * the thread, see ThreadReplay) links every durable entry after the readers' seqs up to the
   * one the status line announces, each batch following the one before: takes them as read
   * from the thread's log, with no query. True when it did.
   */
  #adoptReplay(): boolean {
    const line = this.#lineSeq;
    if (this.#known !== undefined || line === undefined || this.#pending.length === 0 || this.#readers.size === 0) return false;
    const from = Math.min(...[...this.#readers].map((r) => r.last));
    let reached = from;
    const left = [...this.#pending];
    for (let progress = true; progress; ) {
      progress = false;
      for (const b of [...left]) {
        if (b.after > reached) continue;
        left.splice(left.indexOf(b), 1);
        for (const e of b.entries) if (!isDelta(e)) reached = Math.max(reached, e.seq);
        progress = true;
      }
    }
    if (reached < line) return false;
    this.#known = from;
    this.#drainPending();
    return true;
  }

  /**
   * How long to wait for the entries the status line announced before reading the log (0: read
   * now). Caught up, with the transport live, they are on their way, unless a batch already
   * waits behind a gap (delivery keeps each publisher's order, so what is missing was lost).
   * Deltas by signal bring no durable entry: one round for the deltas they do bring. Not caught
   * up yet, the transport's replay must link the readers' seq on (then the rest is on its way),
   * or, with nothing of it waiting, a running thread's workers must be ones it reaches and
   * replays from: a run that just started publishes its first entries about when a reader
   * subscribes.
   */
  #patience(): number {
    if (this.#known !== undefined) {
      if (this.#heard) return this.#pending.length === 0 ? ANNOUNCED_WAIT_MS : this.hub.intervalMs;
      return this.#heardSignals && this.#pending.length === 0 ? this.hub.intervalMs : 0;
    }
    // Batches that came during this look are handed over right after it (see #receive).
    if (this.#incoming.length > 0) return ANNOUNCED_WAIT_MS;
    if (this.#pending.length > 0) return this.#linksReaders() ? ANNOUNCED_WAIT_MS : 0;
    return this.#lineRunning && this.hub.replaysFromWorkers ? ANNOUNCED_WAIT_MS : 0;
  }

  /** Whether the batches waiting begin where the readers are: the oldest follows an entry no reader lacks. */
  #linksReaders(): boolean {
    const from = Math.min(...[...this.#readers].map((r) => r.last));
    return this.#pending.some((b) => b.after <= from);
  }

  /** Whether a reader lacks a durable entry the thread has (or may have: an old thread says nothing, so any move counts). */
  #lacking(moved: boolean): boolean {
    if (this.#known === undefined) return true;
    const line = this.#lineSeq;
    if (line === undefined) return this.#pending.length > 0 || moved;
    return this.#pending.length > 0 || [...this.#readers].some((r) => r.last < line);
  }

  #receive(batch: StreamBatch, from: "transport" | "history" = "transport"): void {
    if (from === "transport") this.#heard = true;
    else this.#heardSignals = true;
    if (batch.entries.some(isProgress)) {
      this.#handProgress(batch.entries.filter(isProgress));
      const rest = batch.entries.filter((e) => !isProgress(e));
      if (rest.length === 0) return;
      batch = { ...batch, entries: rest };
    }
    this.#incoming.push(batch);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      const batches = this.#incoming.splice(0);
      const ready: StreamUpdate[] = [];
      for (const b of batches) {
        if (this.#known === undefined || b.after > this.#known) this.#pending.push(b);
        else ready.push(...this.#apply(b));
      }
      ready.push(...this.#takePending());
      this.#hand(ready);
      if (this.#pending.length > 0) this.#wake?.();
    });
  }

  /** Hands progress to every reader already live; a reader still joining gets the latest of each call once admitted. */
  #handProgress(entries: ToolProgressUpdate[]): void {
    for (const entry of entries) this.#progress.set(entry.toolCallId, entry);
    for (const reader of [...this.#readers]) {
      if (!this.#joining.has(reader)) reader.deliver(entries, this.#snapshotOf(entries), false);
    }
  }

  /** Applies pending batches whose durable predecessor has now been seen. */
  #takePending(): StreamUpdate[] {
    const out: StreamUpdate[] = [];
    for (let progress = true; progress && this.#known !== undefined; ) {
      progress = false;
      for (const b of [...this.#pending]) {
        if (b.after > this.#known) continue;
        this.#pending.splice(this.#pending.indexOf(b), 1);
        out.push(...this.#apply(b));
        progress = true;
      }
    }
    return out;
  }

  #drainPending(): void {
    this.#hand(this.#takePending());
    // What is still waiting follows an entry the thread's log no longer needs to show this
    // poller (a query already handed everything up to its seqs): it is dropped.
    const known = this.#known ?? 0;
    this.#pending = this.#pending.filter((b) => b.entries.some((e) => e.seq > known));
  }

  /** Records what a batch says about the thread; returns its entries. */
  #apply(batch: StreamBatch): StreamUpdate[] {
    for (const entry of batch.entries) {
      this.#lastSeq = Math.max(this.#lastSeq, entry.seq);
      if (!isDelta(entry)) this.#known = Math.max(this.#known ?? 0, entry.seq);
      if (entry.type === "status") this.#status = entry.status;
      // The call's result is the record: its progress is over.
      if (entry.type === "message" && entry.message.role === "tool") this.#progress.delete(entry.message.tool_call_id);
      // A delta older than the last durable entry was published late (its batch outlived the
      // model call, see delta-publisher): its answer is over and must not read as being written.
      if (isDelta(entry)) {
        if (entry.seq > (this.#known ?? 0)) this.#streaming = (entry as { messageId: string }).messageId;
      }
      else if ((entry.type === "message" && entry.message.id === this.#streaming) || (entry.type === "reset" && entry.reason !== "retry")) this.#streaming = undefined;
    }
    return batch.entries;
  }

  /** Hands entries to every reader that has not seen them (and is not still joining), as one snapshot. */
  #hand(entries: StreamUpdate[]): void {
    if (entries.length === 0) return;
    entries.sort((a, b) => a.seq - b.seq);
    this.#keep(entries);
    for (const reader of [...this.#readers]) {
      if (this.#joining.has(reader)) continue;
      const fresh = entries.filter((u) => u.seq > reader.last);
      if (fresh.length > 0) reader.deliver(fresh, this.#snapshotOf(fresh), false);
    }
  }

  #snapshotOf(updates: StreamUpdate[]): StreamSnapshot {
    return {
      threadId: this.threadId,
      status: this.#status ?? "idle",
      updates,
      lastSeq: this.#lastSeq,
      truncated: false,
      ...(this.#streaming ? { streamingMessageId: this.#streaming } : {}),
    };
  }

  /** Waits `ms`, or less when the last reader leaves or a batch waits for an entry, and with `untilMoved`, when the thread's history moves. */
  async #pause(ms: number, untilMoved = false): Promise<void> {
    if (ms <= 0) return;
    const ac = new AbortController();
    this.#wake = () => {
      if (this.#readers.size === 0 || this.#pending.length > 0 || this.#joining.size > 0) ac.abort();
    };
    if (untilMoved) this.#wakeOnMove = () => ac.abort();
    await sleep(ms, undefined, { signal: ac.signal }).catch(() => undefined);
    this.#wake = undefined;
    this.#wakeOnMove = undefined;
  }

  #historyMoved(): void {
    this.#movedSinceLook = true;
    this.#wakeOnMove?.();
  }

  /**
   * Whether the next look can wait for the history to move: it is tailed, has not moved since
   * the last look began, and no reader joins, no batch waits for an entry and no announced
   * entry is overdue (those are looked after at the interval).
   */
  #quiet(): boolean {
    return this.#stopTail !== undefined && !this.#movedSinceLook && this.#joining.size === 0 && this.#pending.length === 0 && this.#missingSince === undefined;
  }
}
