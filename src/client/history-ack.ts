import type { Client } from "@temporalio/client";
import { decodeFromPayloadsAtIndex } from "@temporalio/common/lib/internal-non-workflow/index.js";
import type { DeferredAck } from "../core/deferral-record.js";
import type { JsonObject } from "../core/json.js";
import { scheduledDeferralId } from "../core/step-wire.js";

// The tool-call activities of a run, under the names runs schedule them by (callTool: before the agent-step layer).
const RUN_TOOL_ACTIVITIES = new Set(["callAgentTool", "callTool"]);
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
    const events = response.history?.events ?? [];
    const scheduled = new Map(events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [[String(e.eventId), e.activityTaskScheduledEventAttributes] as const] : [])));
    const converter = client.options.loadedDataConverter;
    const schemas: (JsonObject | undefined)[] = [];
    // Newest first: the calls of the batch that parked the run, back to the step before it.
    for (const event of events) {
      const completed = event.activityTaskCompletedEventAttributes;
      if (!completed) continue;
      const attributes = scheduled.get(String(completed.scheduledEventId));
      // A call scheduled before these events: the page does not hold the whole batch.
      if (!attributes) return undefined;
      if (!RUN_TOOL_ACTIVITIES.has(attributes.activityType?.name ?? "")) break;
      const input = await decodeFromPayloadsAtIndex<Parameters<typeof scheduledDeferralId>[0] | undefined>(converter, 0, attributes.input?.payloads);
      if (!input || scheduledDeferralId(input, runId) !== deferralId) continue;
      const output = await decodeFromPayloadsAtIndex<{ deferred?: { schema?: JsonObject } }>(converter, 0, completed.result?.payloads);
      if (output && typeof output === "object" && output.deferred) schemas.push(output.deferred.schema);
    }
    const [schema] = schemas;
    if (schemas.length === 0 || schemas.some((s) => JSON.stringify(s) !== JSON.stringify(schema))) return undefined;
    return { status: "deferred", deferralId, ...(schema ? { schema } : {}), expiresAt };
  } catch {
    return undefined;
  }
}
