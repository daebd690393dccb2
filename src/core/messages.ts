/**
 * The thread format: plain JSON in the OpenAI chat-completions shape, because it is
 * what most models speak and it is what a deferral persists. Nothing live goes in here.
 */

/** One tool call the model asked for. `arguments` is the raw JSON text the model wrote. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface SystemMessage {
  role: "system";
  content: string;
}

export interface UserMessage {
  role: "user";
  content: string;
}

export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: ToolCall[];
}

export interface ToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** Token spend, summed over every model call of a run (and across its deferrals). */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /**
   * The share of these tokens that an agent's `fallbackModels` spent, by model name (already
   * counted in the totals); absent while the agent's own model answered every call.
   */
  fallback?: Record<string, TokenCounts>;
}

/** Token counts without the fallback breakdown. */
export type TokenCounts = Omit<Usage, "fallback">;

export const emptyUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

function addCounts(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** Token counts of a usage, without its fallback breakdown. */
export function countsOf({ promptTokens, completionTokens, totalTokens }: Usage): TokenCounts {
  return { promptTokens, completionTokens, totalTokens };
}

export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = addCounts(a, b);
  if (!a.fallback && !b.fallback) return sum;
  const fallback: Record<string, TokenCounts> = { ...a.fallback };
  for (const [model, counts] of Object.entries(b.fallback ?? {})) fallback[model] = addCounts(fallback[model] ?? emptyUsage(), counts);
  return { ...sum, fallback };
}
