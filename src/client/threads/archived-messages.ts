import { isGrpcServiceError, type Client } from "@temporalio/client";
import type { ArchivedSpan, SummarizeInput } from "../../core/compaction.js";
import { ArchivedMessagesGoneError } from "../../core/errors/threads.js";
import type { ThreadMessage } from "../../core/thread-contracts.js";
import { decodePayloadAt } from "../data-converter.js";

const GRPC_NOT_FOUND = 5;

/** Spans read lately, per client: paging through one reads its run's history once. */
const recent = new WeakMap<Client, Map<string, ThreadMessage[]>>();
const RECENT_SPANS = 8;

/**
 * The messages of one compaction, from the history of the run that compacted them: the
 * summarizer activity's input holds them (reading history is no billed action). AI1030 when
 * the namespace no longer retains that run.
 */
export async function archivedMessages(client: Client, threadId: string, span: ArchivedSpan, offset: number): Promise<ThreadMessage[]> {
  // The thread's index dropped where these were (it keeps MAX_ARCHIVED_SPANS).
  if (span.runId === "") throw new ArchivedMessagesGoneError({ threadId, runId: span.runId, offset });
  const key = `${threadId}\u0000${span.runId}\u0000${span.activityId}`;
  let cache = recent.get(client);
  if (!cache) recent.set(client, (cache = new Map()));
  const hit = cache.get(key);
  if (hit) return hit;
  let nextPageToken: Uint8Array | undefined;
  try {
    do {
      const page = await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId: threadId, runId: span.runId },
        ...(nextPageToken ? { nextPageToken } : {}),
      });
      for (const event of page.history?.events ?? []) {
        const scheduled = event.activityTaskScheduledEventAttributes;
        if (scheduled?.activityId !== span.activityId) continue;
        const input = await decodePayloadAt<SummarizeInput>(client.options.loadedDataConverter, 0, scheduled.input?.payloads);
        const messages = input.messages.slice(span.from, span.from + span.count);
        cache.set(key, messages);
        if (cache.size > RECENT_SPANS) cache.delete(cache.keys().next().value!);
        return messages;
      }
      nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
    } while (nextPageToken);
  } catch (err) {
    if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) throw new ArchivedMessagesGoneError({ threadId, runId: span.runId, offset });
    throw err;
  }
  throw new ArchivedMessagesGoneError({ threadId, runId: span.runId, offset });
}
