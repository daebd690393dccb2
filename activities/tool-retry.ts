import { Context } from "@temporalio/activity";
import { ApplicationFailure } from "@temporalio/common";
import type { ToolDefinition } from "../src/core/define-tool.js";
import { backoffDelayMs, resolveToolRetry, type ResolvedToolRetry } from "../src/core/tool-retry.js";

/** Type of the failure that asks Temporal for another attempt of a tool handler. */
export const TOOL_RETRY_FAILURE = "ToolAttemptFailed";

/** What a retried attempt's failure carries, for `getThread` to show. */
export interface ToolRetryDetails {
  toolCallId: string;
  attempt: number;
  maxAttempts: number;
  delayMs: number;
}

/** Which call failed: in a thread turn or in an agent run. */
export interface ToolCallScope {
  threadId?: string;
  runId?: string;
  toolCallId: string;
}

/**
 * Throws the failure that makes Temporal run the handler again after the backoff, when
 * the tool retries and this error is worth it; returns when the error is final.
 */
export async function retryOrGiveUp(call: ToolCallScope, tool: ToolDefinition, args: unknown, error: unknown): Promise<void> {
  const retry: ResolvedToolRetry | undefined = resolveToolRetry(tool.retry, `tool "${tool.name}"`);
  if (!retry) return;
  const attempt = Context.current().info.attempt;
  if (attempt >= retry.maxAttempts) return;
  if (retry.shouldRetryError) {
    let verdict: unknown;
    try {
      verdict = await retry.shouldRetryError({
        ...(call.threadId !== undefined ? { threadId: call.threadId } : {}),
        ...(call.runId !== undefined ? { runId: call.runId } : {}),
        toolCallId: call.toolCallId,
        toolName: tool.name,
        args,
        error,
        attempt,
        maxAttempts: retry.maxAttempts,
      });
    } catch {
      verdict = false;
    }
    if (!verdict) return;
  }
  const delayMs = backoffDelayMs(attempt, retry.backoff);
  const details: ToolRetryDetails = { toolCallId: call.toolCallId, attempt, maxAttempts: retry.maxAttempts, delayMs };
  throw ApplicationFailure.create({
    type: TOOL_RETRY_FAILURE,
    message: messageOf(error),
    details: [details],
    // Temporal waits this long before the next attempt; zero would mean "use the policy's interval".
    nextRetryDelay: Math.max(1, delayMs),
  });
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
