/** Errors of limits (docs/limits.md): turns, the model's context window, one Temporal payload, the tool calls of one answer, a transcript's room. Nothing over a limit is kept or sent. */
import type { Usage } from "../messages.js";
import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface MaxTurnsFields {
  maxTurns: number;
  turnsUsed: number;
  /** Token spend of the whole run, deferrals included. */
  usage: Usage;
}

/** AI1004: the run reached its `maxTurns` without a final answer. */
export class MaxTurnsError extends DurableAgentsError<MaxTurnsFields> {
  static readonly code = ErrorCode.MaxTurnsExceeded;
  readonly code = ErrorCode.MaxTurnsExceeded;
  constructor(fields: MaxTurnsFields) {
    super(
      `[AI1004] The agent used all ${fields.maxTurns} of its turns without a final answer ` +
        `(${fields.usage.totalTokens} tokens spent). Raise maxTurns on the agent or tighten its prompt.`,
      fields,
    );
  }
}

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

export interface PayloadTooLargeFields {
  /** What was too large: "the run's prompt", "the resume payload", "the model's answer", … */
  what: string;
  /** Its size as UTF-8 bytes of its JSON, or at least this much when measuring stopped early. */
  bytes: number;
  /** The limit it went over (`MAX_PAYLOAD_BYTES` unless said otherwise). */
  limitBytes: number;
  /** What to do instead, when there is more to say than "send less". */
  hint?: string;
}

/**
 * AI1016: something is too large to travel as one Temporal payload. Temporal refuses a
 * payload over 2 MB by terminating the workflow that carries it, so the SDK refuses first,
 * below that limit, and nothing is sent or changed.
 */
export class PayloadTooLargeError extends DurableAgentsError<PayloadTooLargeFields> {
  static readonly code = ErrorCode.PayloadTooLarge;
  readonly code = ErrorCode.PayloadTooLarge;
  constructor(f: PayloadTooLargeFields) {
    super(
      `[AI1016] ${f.what} is ${f.bytes} bytes of JSON, over the ${f.limitBytes}-byte limit of one durable-agents payload ` +
        `(Temporal refuses payloads over 2 MB). Nothing was sent or changed. ${f.hint ?? "Send less: keep large data elsewhere (a blob store, a database) and pass a reference."}`,
      f,
    );
  }
}

export interface ToolCallsOverLimitFields {
  agentId: string;
  /** Tool calls the model's answer held. */
  calls: number;
  /** The most one answer may hold for this agent and principal. */
  limit: number;
  /** The agent's `maxToolCalls`, when the principal's size brought the limit below it. */
  maxToolCalls?: number;
}

/**
 * AI1017: one model answer asked for more tool calls than the agent allows (`maxToolCalls`).
 * Each call is a Temporal activity, and a workflow may have at most 2,000 in flight: past
 * that, every workflow task fails. The answer is not kept; the run fails, or the thread's
 * turn fails with its transcript as it was.
 */
export class ToolCallsOverLimitError extends DurableAgentsError<ToolCallsOverLimitFields> {
  static readonly code = ErrorCode.ToolCallsOverLimit;
  readonly code = ErrorCode.ToolCallsOverLimit;
  constructor(f: ToolCallsOverLimitFields) {
    const why = f.maxToolCalls !== undefined && f.maxToolCalls > f.limit ? ` (${f.maxToolCalls} as declared, fewer for a principal this large: every call carries it)` : "";
    super(
      `[AI1017] The model asked for ${f.calls} tool calls in one answer; agent "${f.agentId}" allows at most ${f.limit}${why}. ` +
        `The answer was not kept and no tool ran. Tell the model to call fewer tools at once, or raise defineAgent({ maxToolCalls }) (at most 512).`,
      f,
    );
  }
}

export interface TranscriptFullFields {
  /** Whose transcript: a run's or a thread's. */
  host: "run" | "thread";
  /** The run's or thread's id. */
  id: string;
  /** What did not fit: "the model's answer", "the message", "the resume payload", … */
  what: string;
  /** Its size, as UTF-8 bytes of its JSON. */
  bytes: number;
  /** What the transcript (with a thread's queue) still had room for. */
  leftBytes: number;
  /** The most the transcript may hold. */
  limitBytes: number;
}

/**
 * AI1018: a run's or thread's transcript has no room left for what came. A thread carries
 * its transcript whole into each continue-as-new, so it holds at most what one Temporal
 * payload can carry; a run's transcript is bounded by what its history can hold. Nothing
 * was changed: a refused message or payload changes nothing, a model answer that does not
 * fit is not kept (the run fails, or the thread's turn fails).
 */
export class TranscriptFullError extends DurableAgentsError<TranscriptFullFields> {
  static readonly code = ErrorCode.TranscriptFull;
  readonly code = ErrorCode.TranscriptFull;
  constructor(f: TranscriptFullFields) {
    const next =
      f.host === "thread"
        ? "Declare compaction on the agent (defineAgent({ compaction })) so the thread summarises its older turns before it fills up, or send something smaller."
        : "Compact the run's transcript (replaceDeferredThread() while it is deferred), or start a new run from a summary.";
    super(
      `[AI1018] The ${f.host} "${f.id}" has room for ${f.leftBytes} more bytes of transcript (of ${f.limitBytes}); ${f.what} is ${f.bytes} bytes. Nothing was changed. ${next}`,
      f,
    );
  }
}
