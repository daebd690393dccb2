import { setTimeout as sleep } from "node:timers/promises";
import { isGrpcServiceError, WorkflowNotFoundError, type Client } from "@temporalio/client";
import { ackOf, type DeferredAck } from "../core/deferral-record.js";
import { RunNotFoundError } from "../core/errors/runs.js";
import type { AgentResult } from "../core/run-state.js";
import { DeferralIdKey, DeferralStatusKey } from "../core/search-attributes.js";
import { typedSearchAttributesOf } from "./data-converter.js";
import { ackFromLine, parkedOn } from "../core/status-line.js";
import type { DeferralStore } from "./deferral-store.js";
import { onParkBell, parkBellsServed, type ParkBellKey } from "../stream/park-bell.js";
import { ackFromEvents } from "./history-ack.js";
import { longPollHistory, type HistoryEvents, type HistoryResponse } from "./history-poll.js";

/** What waiting for a run needs from the client it runs on. */
export interface SettleDeps {
  client: Client;
  /** The run's result once it closed, or its typed error. */
  result(): Promise<AgentResult>;
  /** The acknowledgment of `deferralId` when the run waits on it now; undefined once it moved on. */
  deferred(deferralId: string): Promise<DeferredAck | undefined>;
  /** The run's task queue, to take the acknowledgment of a park from a worker of this process as it parks the run (park-bell.ts); none reads the history alone. */
  taskQueue?: string;
}

// Events per history page: bounds one response's size on long runs with large tool results.
const PAGE_SIZE = 256;
// gRPC status code (stable across gRPC implementations).
const NOT_FOUND = 5;
// temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT: the long-poll answers only with the close event.
const CLOSE_EVENT = 2;
/**
 * Most time between two reads of a running run's new events. A run's workflow tasks and
 * activities write several batches of events per step; reading each at once, for as long
 * as a long run goes, would cost the server and this process (every read is decoded) as
 * much as the run. A deferral is seen at most this much later.
 */
const WATCH_INTERVAL_MS = 250;
/**
 * The first `EAGER_READS` reads of a wait follow each other at once: a long-poll answers
 * as soon as the run writes, so a run that parks or finishes within them (most do) is
 * seen doing so when it does. After them the pause starts at `FIRST_PAUSE_MS` and doubles
 * up to `WATCH_INTERVAL_MS`. Pausing 10 ms between the first reads made `run()` see a park
 * about 8 ms late on average; 10 ms throughout a 20-turn run's first second made some 40
 * reads, a measurable share of a two-core machine.
 */
const EAGER_READS = 16;
const FIRST_PAUSE_MS = 10;
// Events kept from the reads of a wait: the park's own workflow task and the tool calls before it.
const KEPT_EVENTS = 128;

/**
 * Waits until the run completes (its result), fails (its typed error) or parks on a
 * deferral (the acknowledgment), writing nothing to its history: only reads, so a parked
 * run polled by any number of callers keeps the history it had.
 *
 * A run parks in the workflow task that writes its deferral's search attributes
 * (`DeferralStatus` "deferred" and its `DeferralId`). So three reads race: the run's
 * description (a closed run's result; a park in a long history), a long-poll of its
 * history answered by the server only when the run closes (then its result), and one of
 * all new events, where an event listing a deferral as waiting is acknowledged from the
 * events themselves (the park's timer names the deferral) or else by reading the record.
 * History is read from the start once per call, then only what is new; after a wait's
 * first few reads new events are read at most every `WATCH_INTERVAL_MS`, so a busy run
 * does not wake the watch for each of them.
 *
 * `after` (a deferral id, or `CURRENT_PARK` for the one the run waits on when asked): a park
 * the caller has seen is not answered again; the wait goes on past it, for what the run
 * does next.
 */
export async function settleRun(deps: SettleDeps, runId: string, after?: string): Promise<AgentResult | DeferredAck> {
  let past = after === CURRENT_PARK ? await currentPark(deps.client, runId) : after;
  for (;;) {
    const found = await settleOnce(deps, runId);
    if (past === undefined || found.status !== "deferred" || found.deferralId !== past) return found;
    // The park the caller has seen: wait until the run has moved on from it, then for what it does next.
    await movedOn(deps.client, runId, past);
    past = undefined;
  }
}

/** `settled({ after: "current" })`: past whatever the run waits on when it is asked. */
const CURRENT_PARK = "current";

/** The deferral a running run waits on now, from its description (not billed); undefined when it waits on none. */
async function currentPark(client: Client, runId: string): Promise<string | undefined> {
  try {
    const description = await client.workflow.getHandle(runId).describe();
    if (description.status.name !== "RUNNING") return undefined;
    const attributes = description.typedSearchAttributes;
    return attributes.get(DeferralStatusKey) === "deferred" ? attributes.get(DeferralIdKey) : undefined;
  } catch {
    // An unknown run has no park: the wait itself says it is unknown (AI1010).
    return undefined;
  }
}

/**
 * Resolves once the run no longer waits on `deferralId`: its history, read to its end,
 * lists another deferral or status (a resume's "resumed" is written with the run's next
 * step), or the execution closed (it finished, or continued as new). Only reads.
 */
async function movedOn(client: Client, runId: string, deferralId: string): Promise<void> {
  const signal = new AbortController().signal;
  let nextPageToken: Uint8Array | undefined;
  let listed: Listing = {};
  for (;;) {
    const response = await history(client, runId, signal, { maximumPageSize: PAGE_SIZE, nextPageToken });
    const events = response.history?.events ?? [];
    listed = listing(events, listed);
    const token = response.nextPageToken;
    if (!token || token.length === 0) return;
    // Caught up (a short page): what the history lists now is what the run waits on.
    if (events.length < PAGE_SIZE && !(listed.status === "deferred" && listed.deferralId === deferralId)) return;
    nextPageToken = token;
  }
}

async function settleOnce(deps: SettleDeps, runId: string): Promise<AgentResult | DeferredAck> {
  // A run that continues as new closes one execution and goes on in the next: wait again on that one.
  for (let round = 0; ; round++) {
    const stop = new AbortController();
    const described = fromDescription(deps, runId, round === 0);
    // After a close, the description says what it was (a result, or an execution that
    // continued as new). The first time it races the history: a run just started is
    // neither parked nor closed, and reading its description first made `run()` see its
    // park one round trip later.
    if (round > 0) {
      const found = await described;
      if (found) return found;
    }
    const closed = watchForClose(deps.client, runId, stop.signal).then(() => undefined);
    const queue = deps.taskQueue === undefined ? undefined : { namespace: deps.client.options.namespace, taskQueue: deps.taskQueue };
    // A worker of this process answers the park itself: the history is read at a walk, for a
    // task that went to a worker elsewhere, so as not to slow the run's own writes.
    const parked = watchForDeferral(deps, runId, stop.signal, queue !== undefined && parkBellsServed(queue));
    const settles = round === 0 ? described.then((found) => found ?? untilAborted(stop.signal)) : untilAborted(stop.signal);
    const watches = [settles, closed, parked.then((a) => a ?? closed)];
    if (queue) watches.push(parkBell({ ...queue, workflowId: runId }, stop.signal));
    for (const watch of [...watches, parked]) watch.catch(() => undefined);
    try {
      const found = await Promise.race(watches);
      if (found) return found;
    } finally {
      stop.abort();
    }
  }
}

/**
 * What the run's description settles: its result once it closed, the acknowledgment when
 * its attributes list a deferral it still waits on. Racing the history watch (`racing`),
 * a park in a history of one page is left to the watch, which acknowledges it from the
 * events (no query, no worker needed); a longer one is read from the record at once
 * rather than after every page.
 */
async function fromDescription(deps: SettleDeps, runId: string, racing: boolean): Promise<AgentResult | DeferredAck | undefined> {
  let description;
  try {
    description = await deps.client.workflow.getHandle(runId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new RunNotFoundError({ runId });
    throw err;
  }
  if (description.status.name !== "RUNNING") return deps.result();
  const attributes = description.typedSearchAttributes;
  const waitingOn = attributes.get(DeferralStatusKey) === "deferred" ? attributes.get(DeferralIdKey) : undefined;
  if (!waitingOn || (racing && description.historyLength <= PAGE_SIZE)) return undefined;
  return deps.deferred(waitingOn);
}

/** Never resolves; rejects once `signal` aborts (the race it was in is over). */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("settled")), { once: true }));
}

/** The acknowledgment of `deferralId`, built from its record as the workflow built it, while the run waits on it. */
async function deferredAck(deferrals: DeferralStore, deferralId: string): Promise<DeferredAck | undefined> {
  const record = await deferrals.getRecord({ deferralId });
  return record.status === "deferred" ? ackOf(record) : undefined;
}

/**
 * The acknowledgment of `deferralId` without a billed query when it can be: as the run's
 * status line (the metadata query, which Temporal does not bill) spells it when the deferral
 * takes any payload; else with its schema from the run's history (`fromHistory`, also free).
 * Otherwise (an older worker, a line that moved on, a history that does not settle it) read
 * from the record, a billed query.
 */
export async function parkedAck(
  statusLine: () => Promise<string | undefined>,
  deferrals: DeferralStore,
  deferralId: string,
  fromHistory: (deferralId: string, expiresAt: string) => Promise<DeferredAck | undefined>,
): Promise<DeferredAck | undefined> {
  const line = await statusLine().catch(() => undefined);
  const fromLine = ackFromLine(line);
  if (fromLine?.deferralId === deferralId) return fromLine;
  const parked = parkedOn(line);
  const fromEvents = parked?.deferralId === deferralId ? await fromHistory(deferralId, parked.expiresAt) : undefined;
  return fromEvents ?? deferredAck(deferrals, deferralId);
}

/** The acknowledgment a worker of this process hands over as it parks the run (park-bell.ts); rejects once `signal` aborts. */
function parkBell(key: ParkBellKey, signal: AbortSignal): Promise<DeferredAck> {
  let stop = (): void => {};
  const rung = new Promise<DeferredAck>((resolve) => (stop = onParkBell(key, resolve)));
  // Listening ends either way: the bell rang, or the race is over without it.
  return Promise.race([rung, untilAborted(signal)]).finally(() => stop());
}

/** Resolves once the run has closed: the server answers this long-poll only with the close event. */
async function watchForClose(client: Client, runId: string, signal: AbortSignal): Promise<void> {
  let nextPageToken: Uint8Array | undefined;
  for (;;) {
    const response = await history(client, runId, signal, { historyEventFilterType: CLOSE_EVENT, nextPageToken });
    if ((response.history?.events?.length ?? 0) > 0) return;
    nextPageToken = response.nextPageToken ?? undefined;
  }
}

/**
 * Long-polls the run's new events until one parks the run (its ack) or the history ends
 * (undefined). `patient`: every read after the first waits `WATCH_INTERVAL_MS`.
 */
async function watchForDeferral(deps: SettleDeps, runId: string, signal: AbortSignal, patient = false): Promise<DeferredAck | undefined> {
  let nextPageToken: Uint8Array | undefined;
  let reads = patient ? EAGER_READS : 0;
  let pause = patient ? WATCH_INTERVAL_MS : 0;
  let kept: HistoryEvents = [];
  for (;;) {
    const response = await history(deps.client, runId, signal, { maximumPageSize: PAGE_SIZE, nextPageToken });
    const events = response.history?.events ?? [];
    kept = [...kept, ...events].slice(-KEPT_EVENTS);
    const token = response.nextPageToken;
    // A running run's history always has a next page (the long-poll goes on); a closed
    // run's last page has none. Caught up, the events say what the run does now.
    const running = token !== undefined && token !== null && token.length > 0;
    const caughtUp = running && events.length < PAGE_SIZE;
    // A closed run waits on nothing: its description says how it ended.
    const deferralId = running ? waitingDeferral(events) : undefined;
    if (deferralId) {
      const ack = (caughtUp ? await ackFromEvents(deps.client, runId, kept, deferralId) : undefined) ?? (await deps.deferred(deferralId));
      if (ack) return ack;
    }
    if (!running) return undefined;
    nextPageToken = token;
    // Only once caught up: the pages of a long history are read back to back.
    if (caughtUp) {
      if (pause > 0) await sleep(pause, undefined, { signal });
      if (++reads >= EAGER_READS) pause = Math.min(WATCH_INTERVAL_MS, Math.max(FIRST_PAUSE_MS, pause * 2));
    }
  }
}

/** One long-poll of the run's history; a run that does not exist is RunNotFoundError. */
async function history(
  client: Client,
  runId: string,
  signal: AbortSignal,
  page: { nextPageToken?: Uint8Array; historyEventFilterType?: number; maximumPageSize?: number },
): Promise<HistoryResponse> {
  try {
    return await longPollHistory(client, { workflowId: runId }, signal, page);
  } catch (err) {
    if (isGrpcServiceError(err) && err.code === NOT_FOUND) throw new RunNotFoundError({ runId });
    throw err;
  }
}

/** What a run's deferral attributes say, as its upserts wrote them. */
interface Listing {
  status?: unknown;
  deferralId?: string;
}

/** `from`, updated by the deferral attributes these events write. */
function listing(events: HistoryEvents, from: Listing): Listing {
  let { status, deferralId } = from;
  for (const event of events) {
    const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
    if (!fields) continue;
    const written = typedSearchAttributesOf(fields, [DeferralStatusKey, DeferralIdKey]);
    status = written.get(DeferralStatusKey) ?? status;
    deferralId = written.get(DeferralIdKey) ?? deferralId;
  }
  return { status, ...(deferralId !== undefined ? { deferralId } : {}) };
}

/** The deferral these events leave listed as waiting, if the last status they write is "deferred". */
function waitingDeferral(events: HistoryEvents): string | undefined {
  const { status, deferralId } = listing(events, {});
  return status === "deferred" ? deferralId : undefined;
}
