import type { DeferralView, ReplaceStepStateReply } from "../core/deferral-record.js";
import { assertResumableThread } from "../core/thread-transcript.js";
import { assertRewriteKeeps } from "../core/transcript-trust.js";
import { StepStateError } from "../core/errors/deferrals.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import type { ChatMessage } from "../core/messages.js";
import { authorizeDeferral, unguarded, type DeferralStore, type DeferralTarget } from "./deferral-store.js";

/** Rewrites a thread, e.g. by summarising old turns. Gets a copy it may change freely. */
export type ThreadRewrite = (messages: ChatMessage[], deferral: DeferralView) => ChatMessage[] | Promise<ChatMessage[]>;

/** `replaceDeferredThread`: the rewrite, and whether its caller vouches for it. */
export interface ReplaceDeferredThreadOptions {
  /** Gets a copy of the waiting run's messages (and its record) and returns the messages to continue from. */
  rewrite: ThreadRewrite;
  /**
   * Vouches for the rewritten transcript: it was built by your server code, so tool calls,
   * tool results and system messages the run did not have (a tool result summarised in
   * place, a note to the model) are taken as the model's, the tools' and the operator's
   * own. Without it such a rewrite is refused with AI1008. The deferred call (id, name,
   * arguments), and once answered its answer, stay as they were either way. The `authorize`
   * hook sees it (`deferral.replace` with `trustTranscript: true`). Never set it from request
   * input: it would let a caller forge what the tools returned.
   */
  trustTranscript?: boolean;
}

/**
 * Shrinks a waiting run's thread without racing its approver. Takes the fingerprint,
 * rewrites a copy, refuses (AI1008) before anything is written a rewrite the run could not
 * continue from, one that changes the deferred call (id, name, arguments: what the approver
 * decides on), and, unless `options.trustTranscript` vouches for it, one holding tool
 * calls, tool results or system messages the run did not have. Then it swaps it in only if
 * nothing (a resume, an expiry, another rewrite) got there first. Losing is
 * `{ won: false, deferral }`: the record as it now stands. Only messages change: turnsUsed
 * and usage stay. The store's `authorize` hook is asked once, `deferral.replace` for
 * `options.principal`, before anything is read (AI1013). The run checks all of it again
 * where the state lives.
 */
export async function replaceDeferredThread(store: DeferralStore, options: DeferralTarget & ReplaceDeferredThreadOptions): Promise<ReplaceStepStateReply> {
  const { deferralId, rewrite } = options ?? {};
  if (typeof rewrite !== "function") throw new InvalidDefinitionError({ subject: "replaceDeferredThread()", problem: "rewrite must be a function of the messages" });
  const trusted = options?.trustTranscript === true;
  await authorizeDeferral(store, "deferral.replace", deferralId, options?.principal, trusted);
  // Authorized as a whole: reading what it rewrites is part of the replace.
  store = unguarded(store);
  const before = await store.get({ deferralId });
  if (!before.stepState) {
    if (before.status === "deferred" || before.status === "needs-compaction") {
      throw new StepStateError({ agentId: before.agentId ?? "(plain workflow)", reason: "this deferral has no thread to rewrite" });
    }
    return { won: false, deferral: before };
  }
  const messages = await rewrite(structuredClone(before.stepState.messages), structuredClone(before));
  assertResumableThread(messages, before.status === "needs-compaction" ? undefined : before.stepState.deferredToolCallId);
  assertRewriteKeeps(before.stepState.messages, messages, { deferredToolCallId: before.toolCallId, trusted });
  return store.replaceStepState({ deferralId, expectedFingerprint: before.fingerprint, stepState: { ...before.stepState, messages }, ...(trusted ? { trustTranscript: true } : {}) });
}
