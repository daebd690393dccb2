import { tailOf } from "../src/core/payload-size.js";
import { RECENT_MESSAGES, RECENT_MESSAGES_BYTES, type RunProgress, type RunState } from "../src/core/run-state.js";
import type { DeferralBook } from "./deferral-book.js";
import type { RunStream } from "./run-stream.js";

/** What the run-state query answers: never the whole transcript, which may be larger than a query's answer can be. */
export function runStateView(state: RunProgress, book: DeferralBook, stream: RunStream): RunState {
  const waiting = book.current();
  const last = book.outcome.last;
  const streaming = stream.log.streamingMessageId;
  const { messages, ...rest } = state;
  return {
    ...rest,
    status: book.phase,
    recentMessages: tailOf(messages, RECENT_MESSAGES, RECENT_MESSAGES_BYTES),
    messageCount: messages.length,
    ...(waiting ? { deferralId: waiting.id } : {}),
    ...(book.phase === "failed" && last?.status === "failed" ? { error: last.error } : {}),
    lastSeq: stream.log.lastSeq,
    ...(streaming !== undefined ? { streamingMessageId: streaming } : {}),
  };
}
