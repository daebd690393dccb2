import type { DeferralView, ReplaceStepStateReply } from "../core/deferral-record.js";
import { assertResumableThread } from "../core/thread-transcript.js";
import { StepStateError } from "../core/errors/step-state.js";
import type { ChatMessage } from "../core/messages.js";
import type { DeferralStore } from "./deferral-store.js";

/** Rewrites a thread, e.g. by summarising old turns. Gets a copy it may change freely. */
export type ThreadRewrite = (messages: ChatMessage[], deferral: DeferralView) => ChatMessage[] | Promise<ChatMessage[]>;

/**
 * Shrinks a waiting run's thread without racing its approver. Takes the fingerprint,
 * rewrites a copy, refuses a rewrite the run could not continue from (AI1008) before
 * anything is written, then swaps it in only if nothing (a resume, an expiry, another
 * rewrite) got there first. Losing is `{ won: false, deferral }`: the record as it now
 * stands. Only messages change: turnsUsed and usage stay.
 */
export async function replaceDeferredThread(store: DeferralStore, deferralId: string, rewrite: ThreadRewrite): Promise<ReplaceStepStateReply> {
  const before = await store.get(deferralId);
  if (!before.stepState) {
    if (before.status === "deferred" || before.status === "needs-compaction") {
      throw new StepStateError({ agentId: before.agentId ?? "(plain workflow)", reason: "this deferral has no thread to rewrite" });
    }
    return { won: false, deferral: before };
  }
  const messages = await rewrite(structuredClone(before.stepState.messages), structuredClone(before));
  assertResumableThread(messages, before.status === "needs-compaction" ? undefined : before.stepState.deferredToolCallId);
  return store.replaceStepState(deferralId, before.fingerprint, { ...before.stepState, messages });
}
