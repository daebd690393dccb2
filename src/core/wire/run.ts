import { defineQuery, defineUpdate } from "@temporalio/workflow";
import type { ChatMessage } from "../messages.js";
import type {
  DenyReply,
  DenyRequest,
  DeferralView,
  ReplaceStepStateReply,
  ReplaceStepStateRequest,
  ResumeReply,
  ResumeRequest,
  RunOutcome,
} from "../deferral-record.js";
import type { RunState } from "../run-state.js";

/** The run's live state (status, messages, turns, usage). */
export const runStateQuery = defineQuery<RunState>("durable-agents.runState");

/**
 * The first `length` messages of the run's transcript. A model activity that has no cached
 * copy (another worker, a restart) reads it through this instead of its own input. The
 * wire name predates the vocabulary and stays, so running workflows keep answering it.
 */
export const transcriptQuery = defineQuery<ChatMessage[], [{ epoch: number; length: number }]>("durable-agents.thread");

/** One deferral record (with step state for agent runs), or null when the run has no such deferral. */
export const deferralQuery = defineQuery<DeferralView | null, [string]>("durable-agents.deferral");

/**
 * Resumes a deferral. The validator refuses (with no history) a missing or wrong proof of
 * the token (RC5041), a token bound to another execution, an unknown id, a token minted for
 * another tool call, a denied (RC5050) or expired (RC5047) deferral, and a payload that is
 * not plain JSON or fails the schema.
 */
export const resumeUpdate = defineUpdate<ResumeReply, [ResumeRequest]>("durable-agents.resume");

/**
 * Waits until the run is not running: completed, failed, or deferred. Clients no longer
 * send it (each call wrote history; `settled()` now only reads); runs keep answering it
 * for older clients, and recorded histories hold it.
 */
export const settledUpdate = defineUpdate<RunOutcome>("durable-agents.settled");

/**
 * Compare-and-swap of a deferred (or needs-compaction) record's thread. The validator
 * refuses malformed threads (AI1008) and other agents' state (AI1007) with no history.
 */
export const replaceStepStateUpdate = defineUpdate<ReplaceStepStateReply, [ReplaceStepStateRequest]>(
  "durable-agents.replaceStepState",
);

/**
 * Cancels the run with a reason. It fails with AI1005 (turns and the whole run's usage);
 * a deferral it was waiting on is denied. Returns once the run has taken the request.
 */
export const cancelUpdate = defineUpdate<void, [{ reason?: string }]>("durable-agents.cancel");

/**
 * Denies a waiting deferral on purpose: its tokens read RC5050 from then on, and the run
 * goes on with the model told it was denied (a plain workflow's `defer()` throws RC5050).
 * The validator refuses, with no history, an unknown deferral (RC5046), one already denied
 * (RC5050), expired (RC5047) or resumed (RC5057).
 */
export const denyUpdate = defineUpdate<DenyReply, [DenyRequest]>("durable-agents.deny");
