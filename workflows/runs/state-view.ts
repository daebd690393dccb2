import { tailOf } from "../../src/core/payload-size.js";
import { RECENT_MESSAGES, RECENT_MESSAGES_BYTES, type RunProgress, type RunState } from "../../src/core/run-state.js";
import type { DeferralBook } from "../deferrals/book.js";
import type { RunStream } from "./stream.js";

/** What the run-state query answers: never the whole transcript, which may be larger than a query's answer can be. */
export function runStateView(state: RunProgress, book: DeferralBook, stream: RunStream): RunState {
  const last = book.outcome.last;
  // Parked with a sub-agent, the run holds no record of its own: the deferral is the child's, as run() answered.
  const waitingId = book.current()?.id ?? (book.phase === "deferred" && last?.status === "deferred" ? last.deferralId : undefined);
  const streaming = stream.log.streamingMessageId;
  const { messages, ...rest } = state;
  return {
    ...rest,
    status: book.phase,
    recentMessages: tailOf(messages, RECENT_MESSAGES, RECENT_MESSAGES_BYTES),
    messageCount: messages.length,
    ...(waitingId !== undefined ? { deferralId: waitingId } : {}),
    ...(book.phase === "failed" && last?.status === "failed" ? { error: last.error } : {}),
    lastSeq: stream.log.lastSeq,
    ...(streaming !== undefined ? { streamingMessageId: streaming } : {}),
  };
}
