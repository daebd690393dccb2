import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@temporalio/client";
import { longPollHistory, type HistoryEvents } from "./history-poll.js";

/** What one look at a workflow found. */
export interface WorkLook {
  /** Its history grew (or its run changed) since the last look; always true the first time. */
  moved: boolean;
  /** A worker has a workflow task of it in hand, or one of the `busy` activities is pending: it is at work, and its next step moves the history again. */
  running: boolean;
}

/**
 * Histories up to this size are followed by a long-poll, read from their first event once
 * per wait; longer ones by describes (`HistoryWatch`'s way), which cost the server a read
 * each but no bytes: a thread's run grows to about 4 MB before Temporal suggests it go on
 * as new, and a closed-loop caller waits once a turn.
 */
export const FOLLOW_MAX_BYTES = 512 * 1024;
/** Events a page of the catch-up read holds. */
const PAGE_SIZE = 1_000;
/** Pauses between describes, for a long history: short while the workflow just moved and no call runs, backing off to the longest while nothing moves or a call runs. */
const FIRST_INTERVAL_MS = 20;
const MAX_INTERVAL_MS = 250;
/** The pause before reading on while a workflow task is pending (see `Tail.next`). */
const TASK_PAUSE_MS = 10;
// temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED
const WORKFLOW_TASK_STARTED = 2;

/**
 * Follows a workflow from one look to the next, for a waiter that asks a worker (a billed,
 * or at least busy, read) only when the workflow may be at rest: its history moved and no
 * workflow task or `busy` activity is under way. The first look is a describe, which the
 * server answers alone. After it, the history is long-polled (a free read the server
 * answers when events land), so a waiter costs the server one open read instead of a
 * describe every few milliseconds, however many wait at once; the pending work is counted
 * from the events themselves (scheduled, started and closed workflow tasks and activities),
 * so whether a look finds the workflow at rest depends on its history, not on how busy the
 * machine is. A history over `FOLLOW_MAX_BYTES` is described instead, at a backing-off pace.
 * A continue-as-new is followed into the next run. Reads only.
 */
export class WorkFollow {
  #looked = false;
  #tail: Tail | undefined;
  #described = { runId: "", historyLength: 0 };
  #interval = FIRST_INTERVAL_MS;
  #callPending = false;

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
    /** Activity types whose pendency means the workflow is at work (a model or tool call). */
    private readonly busy: ReadonlySet<string>,
    private readonly signal: AbortSignal,
  ) {}

  /**
   * The next look. The first is at once. At it a workflow task no worker has taken yet
   * counts as not running: a waiter asks then, so that a workflow no worker serves is
   * reported (the query's deadline) instead of waited on forever.
   */
  async next(): Promise<WorkLook> {
    if (!this.#looked) {
      this.#looked = true;
      return this.#describe(false);
    }
    if (this.#tail) return this.#tail.next();
    await sleep(this.#interval, undefined, { signal: this.signal });
    return this.#describe(true);
  }

  async #describe(again: boolean): Promise<WorkLook> {
    const described = await this.client.workflow.getHandle(this.workflowId).describe();
    const task = described.raw.pendingWorkflowTask;
    const callPending = (described.raw.pendingActivities ?? []).some((a) => this.busy.has(a.activityType?.name ?? ""));
    const moved = !again || described.runId !== this.#described.runId || described.historyLength !== this.#described.historyLength;
    this.#described = { runId: described.runId, historyLength: described.historyLength };
    this.#callPending = callPending;
    // A task in its first attempt that a worker took; a retried one is not written to history until it succeeds.
    const taskInHand = task?.state === WORKFLOW_TASK_STARTED;
    if (!again && (described.historySize ?? 0) <= FOLLOW_MAX_BYTES) {
      this.#tail = new Tail(this.client, this.workflowId, this.busy, this.signal, described.runId, described.historyLength);
    }
    this.#interval = moved && !callPending ? FIRST_INTERVAL_MS : Math.min(MAX_INTERVAL_MS, this.#interval * 1.5);
    return { moved, running: callPending || (again ? task !== undefined && task !== null : taskInHand) };
  }
}

/** The long-poll of one workflow's history, with what is pending by its events. */
class Tail {
  #token: Uint8Array | undefined;
  /** The newest event read; the first look saw the history up to `#looked`. */
  #last = 0;
  #task = false;
  #calls = new Map<string, string>();
  #pauseNext = false;

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
    private readonly busy: ReadonlySet<string>,
    private readonly signal: AbortSignal,
    private runId: string,
    private looked: number,
  ) {}

  /** Resolves when events past the last look landed, with what they leave pending. */
  async next(): Promise<WorkLook> {
    if (this.#pauseNext) {
      this.#pauseNext = false;
      await sleep(TASK_PAUSE_MS, undefined, { signal: this.signal });
    }
    for (;;) {
      const response = await longPollHistory(this.client, { workflowId: this.workflowId, runId: this.runId }, this.signal, {
        maximumPageSize: PAGE_SIZE,
        ...(this.#token ? { nextPageToken: this.#token } : {}),
      });
      const events = response.history?.events ?? [];
      const next = this.#read(events);
      if (next) {
        // Continued as new: the next run's history starts over, all of it new.
        this.runId = next;
        this.#token = undefined;
        this.#last = 0;
        this.looked = 0;
        this.#task = false;
        this.#calls.clear();
        continue;
      }
      this.#token = response.nextPageToken && response.nextPageToken.length > 0 ? response.nextPageToken : undefined;
      if (!this.#token) {
        // Closed: whoever waits learns it from the workflow's result; nothing more to read.
        await new Promise<never>((_, reject) => this.signal.addEventListener("abort", () => reject(this.signal.reason), { once: true }));
      }
      // Still catching up to the first look, or a long-poll that ended with nothing new.
      if (events.length === 0 || this.#last <= this.looked) continue;
      this.looked = this.#last;
      const callPending = [...this.#calls.values()].some((type) => this.busy.has(type));
      // A workflow task pending is written in two more batches (a worker took it, it
      // completed) a few milliseconds apart: a moment's pause reads them in one, a read of
      // the server fewer per step, for at most that moment later at the turn's end.
      if (this.#task) this.#pauseNext = true;
      return { moved: true, running: this.#task || callPending };
    }
  }

  /** Takes `events` into what is pending; the next run's id when they end in a continue-as-new. */
  #read(events: HistoryEvents): string | undefined {
    for (const e of events) {
      this.#last = Number(e.eventId);
      if (e.workflowTaskScheduledEventAttributes) this.#task = true;
      else if (e.workflowTaskCompletedEventAttributes || e.workflowTaskFailedEventAttributes || e.workflowTaskTimedOutEventAttributes) this.#task = false;
      else if (e.activityTaskScheduledEventAttributes) this.#calls.set(String(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name ?? "");
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
