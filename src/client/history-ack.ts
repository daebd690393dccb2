import type { Client } from "@temporalio/client";
import type { DeferredAck } from "../core/deferral-record.js";
import type { JsonObject } from "../core/json.js";
import { parkedOn } from "../core/status-line.js";
import { scheduledDeferralId } from "../core/step-wire.js";
import { decodePayloadAt } from "./data-converter.js";
import type { HistoryEvents } from "./history-poll.js";

// The tool-call activity of a run.
const RUN_TOOL_ACTIVITY = "callAgentTool";
// A run parks in the workflow task right after its deferring tool call completes: its newest events hold that call.
const PAGE_SIZE = 64;

/**
 * The acknowledgment of the deferral a run is parked on, read from its history (which
 * Temporal does not bill) instead of from its record (a billed query): `expiresAt` as the
 * run's status line gives it, the schema from the tool call that asked for the deferral,
 * its activity result in the run's newest events. Undefined when the history does not
 * settle it (no such call among the newest events, calls of one batch asking different
 * schemas, a payload this client cannot decode): the caller then reads the record.
 */
export async function ackFromHistory(client: Client, runId: string, deferralId: string, expiresAt: string): Promise<DeferredAck | undefined> {
  try {
    const response = await client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: client.options.namespace,
      execution: { workflowId: runId },
      maximumPageSize: PAGE_SIZE,
    });
    return await ackOfNewest(client, runId, response.history?.events ?? [], deferralId, expiresAt);
  } catch {
    return undefined;
  }
}

/**
 * The acknowledgment of `deferralId` from events a caller already read (oldest first),
 * when they hold the park: the run's expiry timer for the deferral is named by the parked
 * status line (workflows/deferrals/book.ts), so the deferral id, its expiry and whether it takes any
 * payload are in the timer's event; a schema comes from the deferring tool call's result
 * among the same events. Undefined when they do not settle it (a run from before timers
 * were named, a sub-agent's deferral, a payload this client cannot decode).
 */
export async function ackFromEvents(client: Client, runId: string, events: HistoryEvents, deferralId: string): Promise<DeferredAck | undefined> {
  try {
    const newest = [...events].reverse();
    const timer = newest.find((e) => e.timerStartedEventAttributes && e.userMetadata?.summary);
    if (!timer) return undefined;
    const line = await decodePayloadAt<unknown>(client.options.loadedDataConverter, 0, [timer.userMetadata!.summary!]);
    const parked = parkedOn(typeof line === "string" ? line : undefined);
    if (parked?.deferralId !== deferralId) return undefined;
    if (parked.anyPayload) return { status: "deferred", deferralId, expiresAt: parked.expiresAt };
    return await ackOfNewest(client, runId, newest, deferralId, parked.expiresAt);
  } catch {
    return undefined;
  }
}

/** The acknowledgment with the schema the batch that parked the run asked for, from its events newest first. */
async function ackOfNewest(client: Client, runId: string, events: HistoryEvents, deferralId: string, expiresAt: string): Promise<DeferredAck | undefined> {
  const scheduled = new Map(events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [[String(e.eventId), e.activityTaskScheduledEventAttributes] as const] : [])));
  const converter = client.options.loadedDataConverter;
  const schemas: (JsonObject | undefined)[] = [];
  // Newest first: the calls of the batch that parked the run, back to the step before it.
  for (const event of events) {
    const completed = event.activityTaskCompletedEventAttributes;
    if (!completed) continue;
    const attributes = scheduled.get(String(completed.scheduledEventId));
    // A call scheduled before these events: they do not hold the whole batch.
    if (!attributes) return undefined;
    if (attributes.activityType?.name !== RUN_TOOL_ACTIVITY) break;
    const input = await decodePayloadAt<Parameters<typeof scheduledDeferralId>[0] | undefined>(converter, 0, attributes.input?.payloads);
    if (!input || scheduledDeferralId(input, runId) !== deferralId) continue;
    const output = await decodePayloadAt<{ deferred?: { schema?: JsonObject } }>(converter, 0, completed.result?.payloads);
    if (output && typeof output === "object" && output.deferred) schemas.push(output.deferred.schema);
  }
  const [schema] = schemas;
  if (schemas.length === 0 || schemas.some((s) => JSON.stringify(s) !== JSON.stringify(schema))) return undefined;
  return { status: "deferred", deferralId, ...(schema ? { schema } : {}), expiresAt };
}
