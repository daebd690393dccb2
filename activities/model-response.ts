import { ApplicationFailure } from "@temporalio/common";
import type { ModelResponse } from "../src/core/model.js";
import { messageProblem } from "../src/core/thread-transcript.js";

/** The failure type of a malformed answer: retried like a provider hiccup, then AI1003. */
export const MALFORMED_MODEL_RESPONSE = "ModelResponseMalformed";

/**
 * What is wrong with an answer a `Model` returned, or undefined. A custom model can return
 * anything; checked here, on the worker, a malformed answer never reaches workflow code,
 * where reading it would fail the workflow task.
 */
export function modelResponseProblem(response: unknown): string | undefined {
  if (typeof response !== "object" || response === null) return "the answer is not an object";
  const { message, usage } = response as Partial<Record<keyof ModelResponse, unknown>>;
  if (typeof message !== "object" || message === null || (message as { role?: unknown }).role !== "assistant") {
    return "message must be an assistant message";
  }
  const problem = messageProblem(message, true);
  if (problem) return `message: ${problem}`;
  const calls = (message as { tool_calls?: Array<{ id: string }> }).tool_calls ?? [];
  // Results are matched to calls by id: two calls with one id could never both be answered.
  if (new Set(calls.map((c) => c.id)).size !== calls.length) return "message: two tool calls share an id";
  if (typeof usage !== "object" || usage === null) return "usage is missing";
  for (const key of ["promptTokens", "completionTokens", "totalTokens"] as const) {
    const n = (usage as Record<string, unknown>)[key];
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0) return `usage.${key} must be a non-negative number`;
  }
  return undefined;
}

/** Throws a retryable failure for a malformed answer (its last attempt reports AI1003). */
export function assertModelResponse(response: unknown): asserts response is ModelResponse {
  const problem = modelResponseProblem(response);
  if (problem) throw ApplicationFailure.retryable(`the model's answer is malformed: ${problem}`, MALFORMED_MODEL_RESPONSE);
}
