import type { WorkflowHandle } from "@temporalio/client";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import type { ChatMessage } from "../core/messages.js";
import { MAX_PAGE_MESSAGES } from "../core/payload-size.js";
import type { AgentResult, RunMessagePage } from "../core/run-state.js";
import { runMessagesQuery } from "../core/wire/run.js";

/** `agents.messages()`: which page to read. */
export interface RunMessagesOptions {
  /** The `cursor` of the previous page; absent for the first. */
  cursor?: string;
  /**
   * The most messages on the page: 1 to 1,000, default 100. A page also stops before it
   * would weigh more than `MAX_PAGE_BYTES` (1 MiB of JSON), so it may hold fewer.
   */
  limit?: number;
}

/** One page of a run's transcript by query: live, deferred, or closed (a worker then replays the run to answer). */
export async function readRunMessages(handle: WorkflowHandle, options: RunMessagesOptions = {}): Promise<RunMessagePage> {
  const subject = "agents.messages()";
  const offset = options.cursor === undefined ? 0 : /^\d{1,9}$/.test(String(options.cursor)) ? Number(options.cursor) : NaN;
  if (!Number.isSafeInteger(offset)) throw new InvalidDefinitionError({ subject, problem: `cursor ${JSON.stringify(options.cursor)} is not one agents.messages() returned` });
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_MESSAGES) {
    throw new InvalidDefinitionError({ subject, problem: `limit must be a whole number from 1 to ${MAX_PAGE_MESSAGES}` });
  }
  const page = await handle.query(runMessagesQuery, { offset, limit });
  const next = offset + page.messages.length;
  return { messages: page.messages, total: page.total, ...(next < page.total ? { cursor: String(next) } : {}) };
}

/**
 * A run's result in today's shape. Runs that completed before results stopped carrying the
 * transcript returned it as `messages`: they are counted, and their transcript is read with
 * `agents.messages()` like any other run's.
 */
export function currentResult(result: AgentResult & { messages?: ChatMessage[] }): AgentResult {
  if (result?.status !== "completed" || result.messageCount !== undefined) return result;
  const { messages, ...rest } = result;
  return { ...rest, messageCount: Array.isArray(messages) ? messages.length : 0 };
}
