import type { WorkflowHandle } from "@temporalio/client";
import type { ChatMessage } from "../core/messages.js";
import type { AgentResult, RunMessagePage } from "../core/run-state.js";
import { runMessagesQuery } from "../core/wire/run.js";

/** One page of a run's transcript by query: live, deferred, or closed (a worker then replays the run to answer). */
export async function readRunMessages(handle: WorkflowHandle, page: { offset: number; limit: number }): Promise<RunMessagePage> {
  const { offset, limit } = page;
  const read = await handle.query(runMessagesQuery, { offset, limit });
  const next = offset + read.messages.length;
  return { messages: read.messages, total: read.total, ...(next < read.total ? { cursor: String(next) } : {}) };
}

/**
 * A run's result in today's shape. Runs that completed before results stopped carrying the
 * transcript returned it as `messages`: they are counted, and their transcript is read with
 * `agents.listMessages()` like any other run's.
 */
export function currentResult(result: AgentResult & { messages?: ChatMessage[] }): AgentResult {
  if (result?.status !== "completed" || result.messageCount !== undefined) return result;
  const { messages, ...rest } = result;
  return { ...rest, messageCount: Array.isArray(messages) ? messages.length : 0 };
}
