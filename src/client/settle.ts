import { isGrpcServiceError, WorkflowNotFoundError, type Client } from "@temporalio/client";
import { decodeTypedSearchAttributes } from "@temporalio/common/lib/converter/payload-search-attributes.js";
import { ackOf, type DeferredAck } from "../core/deferral-record.js";
import { RunNotFoundError } from "../core/errors/run-not-found.js";
import type { AgentResult } from "../core/run-state.js";
import { DeferralIdKey, DeferralStatusKey } from "../core/search-attributes.js";
import type { DeferralStore } from "./deferral-store.js";

/** What waiting for a run needs from the client it runs on. */
export interface SettleDeps {
  client: Client;
  /** The run's result once it closed, or its typed error. */
  result(): Promise<AgentResult>;
  /** The acknowledgment of `deferralId` when the run waits on it now; undefined once it moved on. */
  deferred(deferralId: string): Promise<DeferredAck | undefined>;
}

// Events per history page: bounds one response's size on long runs with large tool results.
const PAGE_SIZE = 256;
// gRPC status code (stable across gRPC implementations).
const NOT_FOUND = 5;

/**
 * Waits until the run completes (its result), fails (its typed error) or parks on a
 * deferral (the acknowledgment), writing nothing to its history: only reads, so a parked
 * run polled by any number of callers keeps the history it had.
 *
 * A run parks in the workflow task that writes its deferral's search attributes
 * (`DeferralStatus` "deferred" and its `DeferralId`). So: the run's current attributes
 * first (an already parked run answers at once), then a long-poll of the history's new
 * events; an event that lists a deferral as waiting is confirmed by reading the record,
 * and the history's end (the run closed) hands over to the run's result. History is read
 * from the start once per call, then only what is new.
 */
export async function settleRun(deps: SettleDeps, runId: string): Promise<AgentResult | DeferredAck> {
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
  const ack = waitingOn ? await deps.deferred(waitingOn) : undefined;
  if (ack) return ack;
  return (await watchForDeferral(deps, runId)) ?? deps.result();
}

/** The acknowledgment of `deferralId`, built from its record as the workflow built it, while the run waits on it. */
export async function deferredAck(deferrals: DeferralStore, deferralId: string): Promise<DeferredAck | undefined> {
  const record = await deferrals.get(deferralId);
  return record.status === "deferred" ? ackOf(record) : undefined;
}

/** Long-polls the run's history for new events until one parks the run (its ack) or the history ends (undefined). */
async function watchForDeferral(deps: SettleDeps, runId: string): Promise<DeferredAck | undefined> {
  const { client } = deps;
  let nextPageToken: Uint8Array | undefined;
  for (;;) {
    let response;
    try {
      response = await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId: runId },
        // Answers at once while there are events to read, then waits (up to the server's long-poll timeout) for new ones.
        waitNewEvent: true,
        skipArchival: true,
        maximumPageSize: PAGE_SIZE,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
    } catch (err) {
      if (isGrpcServiceError(err) && err.code === NOT_FOUND) throw new RunNotFoundError({ runId });
      throw err;
    }
    const deferralId = waitingDeferral(response.history?.events ?? []);
    if (deferralId) {
      const ack = await deps.deferred(deferralId);
      if (ack) return ack;
    }
    const token = response.nextPageToken;
    if (!token || token.length === 0) return undefined;
    nextPageToken = token;
  }
}

type HistoryEvents = NonNullable<NonNullable<Awaited<ReturnType<Client["workflowService"]["getWorkflowExecutionHistory"]>>["history"]>["events"]>;

/** The deferral these events leave listed as waiting, if the last status they write is "deferred". */
function waitingDeferral(events: HistoryEvents): string | undefined {
  let status: unknown;
  let deferralId: string | undefined;
  for (const event of events) {
    const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
    if (!fields) continue;
    const written = decodeTypedSearchAttributes(fields);
    status = written.get(DeferralStatusKey) ?? status;
    deferralId = written.get(DeferralIdKey) ?? deferralId;
  }
  return status === "deferred" ? deferralId : undefined;
}
