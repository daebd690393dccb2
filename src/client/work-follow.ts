import { clearTimeout, setTimeout } from "node:timers";
import { setTimeout as sleep } from "node:timers/promises";
import { isGrpcServiceError, type Client } from "@temporalio/client";
import { longPollHistory, type HistoryEvents, type HistoryResponse } from "./history-poll.js";

/** What one look at a workflow found. */
export interface WorkLook {
  /** Its history grew (or its run changed) since the last look; always true the first time. */
  moved: boolean;
  /** A workflow task or one of the `busy` activities is pending: it is at work, and its next step moves the history again. */
  running: boolean;
  /**
   * A workflow task has waited longer than `stallMs` for a worker to take it: no worker may
   * serve the workflow (or they are all busy). Said once per `stallMs` while it lasts.
   */
  stalled: boolean;
  /** The workflow closed (completed, failed, terminated, timed out); not a continue-as-new, which is followed. */
  closed: boolean;
}

/**
 * Histories up to this size are followed by a long-poll, read from their first event once
 * per wait; longer ones by describes, which cost the server a read each but no bytes: a
 * thread's run grows to about 4 MB before Temporal suggests it go on as new, and a
 * closed-loop caller waits once a turn.
 */
export const FOLLOW_MAX_BYTES = 512 * 1024;
/** Events a page of the catch-up read holds. */
const PAGE_SIZE = 1_000;
/** Pauses between describes, for a long history: short while the workflow just moved and no call runs, backing off to the longest while nothing moves or a call runs. */
const FIRST_INTERVAL_MS = 20;
const MAX_INTERVAL_MS = 250;
/** The pause before reading on while a workflow task is pending (see `Tail.next`). */
const TASK_PAUSE_MS = 10;
// gRPC status code (stable across gRPC implementations): the server's answer when a namespace's long-polls are all taken.
const RESOURCE_EXHAUSTED = 8;
// temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED
const WORKFLOW_TASK_STARTED = 2;

/**
 * Follows a workflow from one look to the next, for a waiter that asks a worker (a busy
 * worker's activation for each query) only when the workflow may be at rest: its history
 * moved and no workflow task or `busy` activity is pending. The first look is a describe,
 * which the server answers alone. After it the history is long-polled (a free read the
 * server answers when events land), so a waiter costs the server one open read instead of a
 * describe every few milliseconds, however many wait at once; what is pending is counted
 * from the events themselves (scheduled, started and closed workflow tasks and activities),
 * so whether a look finds the workflow at rest depends on its history, not on how busy the
 * machine is. A task no worker takes for `stallMs` is reported (`stalled`) rather than
 * asked about. A history over `FOLLOW_MAX_BYTES` is described instead, at a backing-off
 * pace. A continue-as-new is followed into the next run. Reads only.
 */
export class WorkFollow {
  #looked = false;
  #tail: Tail | undefined;
  #described = { runId: "", historyLength: 0 };
  #interval = FIRST_INTERVAL_MS;
  readonly #stall: StallClock;

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
    /** Activity types whose pendency means the workflow is at work (a model or tool call). */
    private readonly busy: ReadonlySet<string>,
    private readonly signal: AbortSignal,
    stallMs: number,
  ) {
    this.#stall = new StallClock(stallMs);
  }

  /** The next look; the first is at once. */
  async next(): Promise<WorkLook> {
    if (!this.#looked) {
      this.#looked = true;
      return this.#describe(false);
    }
    if (this.#tail) {
      try {
        return await this.#tail.next();
      } catch (err) {
        // The namespace's history long-polls are all taken (Temporal bounds them per
        // namespace, API and frontend instance): this wait goes on by describes, which need none.
        if (!(isGrpcServiceError(err) && err.code === RESOURCE_EXHAUSTED)) throw err;
        this.#tail = undefined;
      }
    }
    await sleep(this.#interval, undefined, { signal: this.signal });
    return this.#describe(true);
  }

  async #describe(again: boolean): Promise<WorkLook> {
    const described = await this.client.workflow.getHandle(this.workflowId).describe();
    const task = described.raw.pendingWorkflowTask ?? undefined;
    const callPending = (described.raw.pendingActivities ?? []).some((a) => this.busy.has(a.activityType?.name ?? ""));
    const moved = !again || described.runId !== this.#described.runId || described.historyLength !== this.#described.historyLength;
    if (described.status.name !== "RUNNING") return { moved, running: false, stalled: false, closed: true };
    this.#described = { runId: described.runId, historyLength: described.historyLength };
    const queuedSince = task && task.state !== WORKFLOW_TASK_STARTED ? millisOf(task.scheduledTime) : undefined;
    this.#stall.task(queuedSince);
    if (!again && (described.historySize ?? 0) <= FOLLOW_MAX_BYTES) {
      this.#tail = new Tail(this.client, this.workflowId, this.busy, this.signal, this.#stall, described.runId, described.historyLength);
    }
    this.#interval = moved && !callPending ? FIRST_INTERVAL_MS : Math.min(MAX_INTERVAL_MS, this.#interval * 1.5);
    return { moved, running: callPending || task !== undefined, stalled: this.#stall.due(), closed: false };
  }
}

/** Since when a workflow task has waited for a worker, and whether that is long enough to say so (again). */
class StallClock {
  #since: number | undefined;
  #said = 0;

  constructor(private readonly stallMs: number) {}

  /** A task queued since `since` (epoch ms), or none (undefined). */
  task(since: number | undefined): void {
    if (since === undefined || since !== this.#since) this.#said = 0;
    this.#since = since;
  }

  /** How long until the task now queued counts as stalled (again); undefined when none is. */
  remainingMs(): number | undefined {
    if (this.#since === undefined) return undefined;
    return Math.max(0, Math.max(this.#since, this.#said) + this.stallMs - Date.now());
  }

  /** Whether it stalled since it was last said; says it. */
  due(): boolean {
    const left = this.remainingMs();
    if (left === undefined || left > 0) return false;
    this.#said = Date.now();
    return true;
  }
}

/** The long-poll of one workflow's history, with what is pending by its events. */
class Tail {
  #token: Uint8Array | undefined;
  /** The newest event read; the first look saw the history up to `looked`. */
  #last = 0;
  #task = false;
  #calls = new Map<string, string>();
  #pauseNext = false;
  /** A read still out when the last look returned (a stall said meanwhile): the next look takes its answer. */
  #reading: Promise<HistoryResponse> | undefined;

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
    private readonly busy: ReadonlySet<string>,
    private readonly signal: AbortSignal,
    private readonly stall: StallClock,
    private runId: string,
    private looked: number,
  ) {}

  /** Resolves when events past the last look landed, with what they leave pending, or when a queued task stalled. */
  async next(): Promise<WorkLook> {
    if (this.#pauseNext) {
      this.#pauseNext = false;
      await sleep(TASK_PAUSE_MS, undefined, { signal: this.signal });
    }
    for (;;) {
      this.#reading ??= longPollHistory(this.client, { workflowId: this.workflowId, runId: this.runId }, this.signal, {
        maximumPageSize: PAGE_SIZE,
        ...(this.#token ? { nextPageToken: this.#token } : {}),
      });
      const left = this.stall.remainingMs();
      const answered = left === undefined ? await this.#reading : await within(this.#reading, left);
      if (answered === undefined) {
        if (this.stall.due()) return { moved: false, running: true, stalled: true, closed: false };
        continue;
      }
      this.#reading = undefined;
      const events = answered.history?.events ?? [];
      const next = this.#read(events);
      if (next) {
        // Continued as new: the next run's history starts over, all of it new.
        this.runId = next;
        this.#token = undefined;
        this.#last = 0;
        this.looked = 0;
        this.#task = false;
        this.#calls.clear();
        this.stall.task(undefined);
        continue;
      }
      this.#token = answered.nextPageToken && answered.nextPageToken.length > 0 ? answered.nextPageToken : undefined;
      // No page after this one: the run closed (its last event says how).
      if (!this.#token) return { moved: true, running: false, stalled: false, closed: true };
      // Still catching up to the first look, or a long-poll that ended with nothing new.
      if (events.length === 0 || this.#last <= this.looked) continue;
      this.looked = this.#last;
      const callPending = [...this.#calls.values()].some((type) => this.busy.has(type));
      // A workflow task pending is written in two more batches (a worker took it, it
      // completed) a few milliseconds apart: a moment's pause reads them in one, a read of
      // the server fewer per step, for at most that moment later at the turn's end.
      if (this.#task) this.#pauseNext = true;
      return { moved: true, running: this.#task || callPending, stalled: this.stall.due(), closed: false };
    }
  }

  /** Takes `events` into what is pending; the next run's id when they end in a continue-as-new. */
  #read(events: HistoryEvents): string | undefined {
    for (const e of events) {
      this.#last = Number(e.eventId);
      if (e.workflowTaskScheduledEventAttributes) {
        this.#task = true;
        this.stall.task(millisOf(e.eventTime) ?? Date.now());
      } else if (e.workflowTaskStartedEventAttributes) this.stall.task(undefined);
      else if (e.workflowTaskCompletedEventAttributes || e.workflowTaskFailedEventAttributes || e.workflowTaskTimedOutEventAttributes) {
        this.#task = false;
        this.stall.task(undefined);
      } else if (e.activityTaskScheduledEventAttributes) this.#calls.set(String(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name ?? "");
      else {
        const closed =
          e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes ?? e.activityTaskCanceledEventAttributes;
        if (closed) this.#calls.delete(String(closed.scheduledEventId));
        const next = e.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
        if (next) return next;
      }
    }
    return undefined;
  }
}

/**
 * `read`'s answer, or undefined once `ms` passed first (the read goes on). A plain timer: a
 * signal would collect a listener per call on the wait's signal, and a wait makes many.
 */
async function within<T>(read: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([read, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms).unref()))]);
  } finally {
    clearTimeout(timer);
  }
}

/** A protobuf timestamp as epoch milliseconds. */
function millisOf(t: { seconds?: unknown; nanos?: number | null } | null | undefined): number | undefined {
  if (!t) return undefined;
  return Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}
