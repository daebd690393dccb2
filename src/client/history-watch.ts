import type { Client } from "@temporalio/client";
import { workflowMetadataQuery } from "@temporalio/workflow";

/**
 * Tells a reader whether a workflow's history grew since it last asked, from a describe:
 * Temporal bills every query answered by a worker but not a describe, which the server
 * answers alone. Whatever a query could show differently (a status, a message, a delta
 * batch) was written by a workflow task, which appends to the history, so a reader that
 * polls this and queries only on a change sees everything for a fraction of the queries.
 * A continue-as-new counts as a change (the run id is part of what is compared).
 */
export class HistoryWatch {
  #seen: string | undefined;
  /** The activity types pending at the last look: what the workflow is waiting on now (the same describe, no extra read). */
  pendingActivities: readonly string[] = [];

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
  ) {}

  /** The next `changed()` is true again (the reader could not read after the last change). */
  forget(): void {
    this.#seen = undefined;
  }

  /** True the first time, then whenever the history grew or the run changed. */
  async changed(): Promise<boolean> {
    // Through the handle, so a missing workflow is the SDK's WorkflowNotFoundError, as a query's is.
    const described = await this.client.workflow.getHandle(this.workflowId).describe();
    this.pendingActivities = (described.raw.pendingActivities ?? []).map((a) => a.activityType?.name ?? "");
    const seen = `${described.runId}:${described.historyLength}`;
    const changed = seen !== this.#seen;
    this.#seen = seen;
    return changed;
  }
}

/**
 * The workflow's current details, read by the SDK's built-in metadata query
 * (`workflowMetadataQuery`, which @temporalio/workflow exports; the Temporal UI reads it
 * too): the one query Temporal does not bill. Runs and threads keep their status line there.
 */
export async function currentDetails(client: Client, workflowId: string): Promise<string | undefined> {
  const metadata = await client.workflow.getHandle(workflowId).query(workflowMetadataQuery);
  return metadata?.currentDetails || undefined;
}
