import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface ContextOverflowFields {
  /** What the provider said. */
  detail: string;
  /** Estimated prompt tokens, when the SDK measured them itself. */
  estimatedTokens?: number;
  /** The model's context window, when known. */
  contextWindow?: number;
}

/** AI1009: the prompt does not fit the model's context window. Compact the thread and retry. */
export class ContextOverflowError extends DurableAgentsError<ContextOverflowFields> {
  static readonly code = ErrorCode.ContextOverflow;
  readonly code = ErrorCode.ContextOverflow;
  constructor(fields: ContextOverflowFields) {
    super(
      `[AI1009] The prompt exceeds the model's context window: ${fields.detail}. ` +
        "Shrink the thread (replaceDeferredThread) or use a model with a larger window.",
      fields,
    );
  }
}
