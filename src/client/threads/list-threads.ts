import { defaultPayloadConverter } from "@temporalio/common";
import { AgentIdKey } from "../../core/search-attributes.js";
import { decodePayloadAt } from "../data-converter.js";
import type { ThreadAccess } from "./thread-access.js";
import type { ListThreadsOptions, ThreadSummary } from "./thread-types.js";

/** `ThreadsClient.listThreads`: a page of the task queue's running threads, each row asked as `thread.list`. */
export async function listThreads(
  access: ThreadAccess,
  options: ListThreadsOptions,
): Promise<{ threads: ThreadSummary[]; cursor?: string }> {
  const client = access.client;
  const namespace = client.options.namespace;
  const query = `WorkflowType = "agentThread" AND TaskQueue = "${access.taskQueue.replace(/"/g, '\\"')}" AND ExecutionStatus = "Running"`;
  const response = await client.workflowService.listWorkflowExecutions({
    namespace,
    query,
    pageSize: options.limit ?? 50,
    ...(options.cursor ? { nextPageToken: Buffer.from(options.cursor, "base64") } : {}),
  });
  const threads: ThreadSummary[] = [];
  for (const execution of response.executions ?? []) {
    const threadId = execution.execution?.workflowId;
    if (!threadId) continue;
    const agent = execution.searchAttributes?.indexedFields?.[AgentIdKey.name];
    const agents = agent ? defaultPayloadConverter.fromPayload<string | string[]>(agent) : undefined;
    const agentId = Array.isArray(agents) ? agents[0] : agents;
    if (!(await access.allowed({ operation: "thread.list", principal: options.principal, threadId, ...(agentId ? { agentId } : {}) }))) continue;
    // The memo went through the client's data converter, a payload codec included; search attributes never do.
    const created = execution.memo?.fields?.threadCreatedAt;
    const memo = created ? await decodePayloadAt<string>(client.options.loadedDataConverter, 0, [created]) : undefined;
    const createdAt = memo ? String(memo) : new Date(Number(execution.startTime?.seconds ?? 0) * 1000).toISOString();
    threads.push({ threadId, createdAt, ...(agentId ? { agentId } : {}) });
  }
  const token = response.nextPageToken;
  return { threads, ...(token && token.length > 0 ? { cursor: Buffer.from(token).toString("base64") } : {}) };
}
