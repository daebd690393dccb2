import type { ModelDelta } from "../src/core/model.js";
import { mergeDeltas } from "../src/core/model-deltas.js";

/** Batches after which the interval between batches doubles. */
const BATCHES_PER_STEP = 20;

/**
 * Sends a streaming answer's deltas in throttled batches: the first at once (time to
 * first token), then at most one per interval, and never more than `maxBatches` for one
 * answer. By signal, each batch costs an action and history, so there the interval
 * doubles every 20 batches (`slowing`); the rest of the answer arrives with the finished
 * message anyway.
 */
export class DeltaFlusher {
  #buffer: ModelDelta[] = [];
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | undefined;
  #batches = 0;
  #lastSentAt = 0;
  #closed = false;

  constructor(
    private readonly send: (parts: ModelDelta[]) => Promise<void>,
    private readonly intervalMs: number,
    private readonly maxBatches: number,
    private readonly slowing = true,
    /** How long `close()` waits for the batch in flight, in ms. Default: until it settles. */
    private readonly closeWaitMs = Number.POSITIVE_INFINITY,
  ) {}

  /** Batches sent so far. */
  get batches(): number {
    return this.#batches;
  }

  push(delta: ModelDelta): void {
    if (this.#closed || this.#batches >= this.maxBatches) return;
    this.#buffer.push(delta);
    this.#schedule();
  }

  /** Forgets what is buffered and not sent yet: the answer starts over. */
  discard(): void {
    this.#buffer = [];
  }

  /**
   * Stops sending and waits for a batch in flight (at most `closeWaitMs`), so no delta lands
   * after the answer.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#buffer = [];
    const inFlight = this.#inFlight;
    if (!inFlight || this.closeWaitMs === Number.POSITIVE_INFINITY) return inFlight;
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.closeWaitMs)));
    try {
      await Promise.race([inFlight, gaveUp]);
    } finally {
      clearTimeout(timer);
    }
  }

  #schedule(): void {
    if (this.#timer || this.#inFlight) return;
    const interval = this.slowing ? this.intervalMs * 2 ** Math.floor(this.#batches / BATCHES_PER_STEP) : this.intervalMs;
    const wait = Math.max(0, this.#lastSentAt + interval - Date.now());
    this.#timer = setTimeout(() => this.#flush(), wait);
  }

  #flush(): void {
    this.#timer = undefined;
    if (this.#closed || this.#buffer.length === 0) return;
    const parts = mergeDeltas(this.#buffer.splice(0));
    this.#batches += 1;
    this.#lastSentAt = Date.now();
    this.#inFlight = this.send(parts)
      // A lost batch only delays what readers see: the finished message carries everything.
      .catch(() => undefined)
      .finally(() => {
        this.#inFlight = undefined;
        if (this.#buffer.length > 0 && this.#batches < this.maxBatches) this.#schedule();
      });
  }
}
