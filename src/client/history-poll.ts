import type { Client } from "@temporalio/client";

export type HistoryResponse = Awaited<ReturnType<Client["workflowService"]["getWorkflowExecutionHistory"]>>;
export type HistoryEvents = NonNullable<NonNullable<HistoryResponse["history"]>["events"]>;

/**
 * One long-poll of a workflow's history (reading it is not billed): answers at once while
 * there are events to read, then waits, up to the server's long-poll timeout, for new ones.
 * Each call gets its own abort signal, tied to the caller's: a signal given to the client
 * keeps a listener per call made under it, and a follower makes many.
 */
export async function longPollHistory(
  client: Client,
  execution: { workflowId: string; runId?: string },
  signal: AbortSignal,
  page: { nextPageToken?: Uint8Array; historyEventFilterType?: number; maximumPageSize?: number } = {},
): Promise<HistoryResponse> {
  signal.throwIfAborted();
  const call = new AbortController();
  const abort = () => call.abort();
  signal.addEventListener("abort", abort, { once: true });
  try {
    return await client.withAbortSignal(call.signal, () =>
      client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution,
        waitNewEvent: true,
        skipArchival: true,
        ...(page.historyEventFilterType ? { historyEventFilterType: page.historyEventFilterType } : {}),
        ...(page.maximumPageSize ? { maximumPageSize: page.maximumPageSize } : {}),
        ...(page.nextPageToken && page.nextPageToken.length > 0 ? { nextPageToken: page.nextPageToken } : {}),
      }),
    );
  } finally {
    signal.removeEventListener("abort", abort);
  }
}
