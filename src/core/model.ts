import type { JsonObject } from "./json.js";
import type { AssistantMessage, ChatMessage, Usage } from "./messages.js";

/**
 * Sampling and provider settings an agent sends with every model call. Part of the
 * definition fingerprint: a run deferred under one set is denied (RC5048) under another.
 */
export interface ModelSettings {
  /** Sampling temperature, e.g. 0 for the most deterministic answers. */
  temperature?: number;
  /** Upper bound on the tokens of one answer. */
  maxOutputTokens?: number;
  /** Sequences that end the answer when the model writes them. */
  stop?: string[];
  /**
   * Provider-specific options, keyed by provider, as the AI SDK takes them:
   * `{ openai: { reasoning_effort: "low" } }`. `openaiModel` merges `openai` into the request body.
   */
  providerOptions?: Record<string, JsonObject>;
}

/** A tool as the model sees it: name, description and a JSON Schema for its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A piece of the answer while it is being written (streaming). */
export type ModelDelta =
  | { kind: "text"; text: string }
  | { kind: "tool-input"; toolCallId: string; name?: string; argumentsDelta: string };

export interface ModelRequest {
  /** Model name, e.g. `gpt-4.1-mini`. */
  model: string;
  /** The whole thread, system prompt first. */
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** The agent's sampling and provider settings, when it declares any. */
  settings?: ModelSettings;
  /**
   * When the agent declares `output`: the JSON Schema a final answer (one without tool
   * calls) must match, for the provider's structured output. The worker validates the
   * answer itself, so a provider without structured output may ignore it.
   */
  output?: { name: string; schema: Record<string, unknown> };
  /** Aborts the HTTP request when the run is cancelled or stopped. */
  signal?: AbortSignal;
  /** When set, the call streams and reports deltas as they arrive. */
  onDelta?: (delta: ModelDelta) => void;
}

export interface ModelResponse {
  message: AssistantMessage;
  usage: Usage;
}

/**
 * What a model provider implements. `openaiModel()` is the built-in one; any other
 * provider only has to turn a thread and tool list into one assistant message plus usage.
 */
export interface Model {
  complete(request: ModelRequest): Promise<ModelResponse>;
}
