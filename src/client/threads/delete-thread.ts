import { isGrpcServiceError, WorkflowFailedError, WorkflowNotFoundError } from "@temporalio/client";
import { ThreadNotFoundError } from "../../core/errors/threads.js";
import { threadDeleteUpdate } from "../../core/wire/thread.js";
import type { ThreadAccess } from "./thread-access.js";
import type { ThreadTarget } from "./thread-types.js";

/** `ThreadsClient.deleteThread`: ends the thread through its own delete update, then deletes its history. */
export async function deleteThread(access: ThreadAccess, options: ThreadTarget): Promise<{ deleted: true }> {
  await access.check(options, "thread.delete");
  const { threadId } = options;
  // Only a thread: an agent run or any other workflow under this id (a finished run's
  // transcript and approval record) is not this client's to delete.
  const type = await access
    .handle(threadId)
    .describe()
    .then(
      (d) => d.type,
      (err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      },
    );
  if (type !== "agentThread") throw new ThreadNotFoundError({ threadId });
  // Refused as not found: it never existed, or it ended without its history being deleted
  // (an earlier delete the server refused, a delete racing this one, a terminate).
  const accepted = await access.update(threadId, threadDeleteUpdate).then(
    () => true,
    (err: unknown) => {
      if (ThreadNotFoundError.isInstance(err)) return false;
      throw err;
    },
  );
  // Deleting a running execution terminates it: let it finish its own way first (status hook, replies).
  try {
    await access.handle(threadId).result();
  } catch (err) {
    if (!(err instanceof WorkflowFailedError) && !(err instanceof WorkflowNotFoundError)) throw err;
  }
  let removed = true;
  try {
    await access.client.workflowService.deleteWorkflowExecution({ namespace: access.client.options.namespace, workflowExecution: { workflowId: threadId } });
  } catch (err) {
    // Not found: a delete racing this one removed it first. The thread is gone either way, as asked.
    if (!(isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND)) throw err;
    removed = false;
  }
  if (!accepted && !removed) throw new ThreadNotFoundError({ threadId });
  return { deleted: true };
}

// gRPC's status code, as Temporal's service errors carry it.
const GRPC_NOT_FOUND = 5;
