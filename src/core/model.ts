import type { AssistantMessage, ChatMessage, Usage } from "./messages.js";

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
