import type { Client } from "@temporalio/client";
import type { DeferralRecord } from "../core/deferral-record.js";
import { mintResumeToken } from "../deferral/token.js";

/**
 * The token of a waiting request, as its worker minted it (it is deterministic): bound to
 * the request, its first call and the first execution of the run or thread that holds it.
 * What a client holding the secret decides with, by id, without the link.
 */
export async function requestToken(client: Client, secret: Buffer, record: DeferralRecord): Promise<string> {
  const described = await client.workflow.getHandle(record.runId).describe();
  const firstRunId = described.raw.workflowExecutionInfo?.firstRunId ?? described.runId;
  return mintResumeToken(secret, record.id, record.toolCallId, {
    window: record.contextWindow !== undefined,
    binding: { namespace: client.options.namespace, workflowId: record.runId, firstRunId },
  });
}
