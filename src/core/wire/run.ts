import { defineQuery, defineSignal, defineUpdate } from "@temporalio/workflow";
import type { ChatMessage } from "../messages.js";
import type { JsonObject } from "../json.js";
import type {
  DeferralRecord,
  DenyReply,
  DenyRequest,
  DeferralView,
  ReplaceStepStateReply,
  ReplaceStepStateRequest,
  ResumeReply,
  ResumeRequest,
  RunOutcome,
} from "../deferral-record.js";
import type { RunMessagePage, RunState } from "../run-state.js";
import type { ApprovalRecord } from "../approval-context.js";
import type { StreamSnapshot } from "../thread-contracts.js";

/** The run's live state (status, turns, usage, the newest messages and how many there are). */
export const runStateQuery = defineQuery<RunState>("durable-agents.runState");

/** What `runMessagesQuery` takes: where the page starts, its most messages, and optionally the epoch it must be read at. */
export interface RunMessagesRequest {
  offset: number;
  limit: number;
  /** A worker's transcript read: refused when a rewrite replaced the transcript since (it must not read the new one as its prefix). */
  epoch?: number;
}

/**
 * A page of the run's transcript: at most `limit` messages (and `MAX_PAGE_MESSAGES`) from
 * `offset`, cut at `MAX_PAGE_BYTES` of JSON, at least one message when there is one. Used by
 * `agents.listMessages()` and by a model activity whose worker has no cached copy, so neither
 * reads more than one payload can carry. `cursor` is left to the caller.
 */
export const runMessagesQuery = defineQuery<Omit<RunMessagePage, "cursor">, [RunMessagesRequest]>("durable-agents.run.messages");

/**
 * The first `length` messages of the run's transcript, unpaged: what workers before
 * `runMessagesQuery` read, and still do from a workflow executed by such a worker. A
 * transcript over one payload fails it. The wire name predates the vocabulary and stays,
 * so running workflows keep answering it.
 */
export const transcriptQuery = defineQuery<ChatMessage[], [{ epoch: number; length: number }]>("durable-agents.thread");

/**
 * The run's stream entries after `fromSeq` (messages, statuses, deferrals, and the answer's
 * deltas while it is written). Costs no history: readers poll it. `threadId` in the snapshot
 * is the run's id. The answer's deltas arrive on the signal threads use,
 * `threadStreamSignal`, when the worker streams by signal.
 */
export const runStreamQuery = defineQuery<StreamSnapshot, [{ fromSeq: number }]>("durable-agents.run.stream");

/** One deferral record (with step state for agent runs), or null when the run has no such deferral. */
export const deferralQuery = defineQuery<DeferralView | null, [string]>("durable-agents.deferral");

/**
 * One deferral record without its step state, or null: what a resume, an acknowledgment or
 * a listing needs, at a size that does not grow with the transcript (which may be larger
 * than a query's answer can be).
 */
export const deferralRecordQuery = defineQuery<DeferralRecord | null, [string]>("durable-agents.deferralRecord");

/**
 * One record as `deferralRecordQuery` reads it, with what led to the request (the user's
 * message, the agent's last messages, the tool results it read), bounded: `approvals.get`
 * reads the request and why it was made in this one query.
 */
export const approvalRecordQuery = defineQuery<ApprovalRecord | null, [string]>("durable-agents.approvalRecord");

/**
 * The records of every deferral of the run (or thread), oldest first, from `offset`, without
 * step states, a page at a time (bounded like a transcript page): `approvals.history({ runId })`.
 */
export const deferralRecordsQuery = defineQuery<{ records: DeferralRecord[]; total: number }, [{ offset: number }]>("durable-agents.deferralRecords");

/**
 * For a sub-agent's deferral this run waited on: the state this run settled in next once it
 * was resumed (what the first resume answered with, and so every duplicate), or null when
 * the run has not settled since, or never waited on it.
 */
export const subAgentOutcomeQuery = defineQuery<RunOutcome | null, [string]>("durable-agents.subAgentOutcome");

/**
 * Resumes a deferral. The validator refuses (with no history) a missing or wrong proof of
 * the token (RC5041), a token bound to another execution, an unknown id, a token minted for
 * another tool call, a denied (RC5050) or expired (RC5047) deferral, and a payload that is
 * not plain JSON or fails the schema.
 */
export const resumeUpdate = defineUpdate<ResumeReply, [ResumeRequest]>("durable-agents.resume");

/**
 * Waits until the run is not running (completed, failed, or deferred) and answers its
 * outcome: for a Temporal client of your own that would rather wait on an update than read
 * history. `AgentClient` never sends it (each call is billed and written to history; its
 * `settled()` reads the history, which is free). An update still waiting delays the run's
 * continue-as-new (docs/limits.md).
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

/** What a sub-agent's run tells the run that called it about its deferral. */
export interface SubAgentDeferral {
  agentId: string;
  deferralId: string;
  /** `deferred`: it parked (the parent parks too); otherwise it moved on. */
  status: "deferred" | "resumed" | "expired" | "denied";
  expiresAt: string;
  /** JSON Schema of a valid resume payload, when the deferral declared one. */
  schema?: JsonObject;
  /** The calls of an approval request (when it is one), as a thread that called the sub-agent shows them. */
  calls?: Array<{ toolCallId: string; toolName: string; arguments: string }>;
  /**
   * With `deferred` again for a request it told of before: the calls decided one at a time so
   * far (the request waits for the others), sent after each such decision, so a thread shows
   * them decided as it shows its own.
   */
  decided?: string[];
}

/** From a sub-agent's run to its parent: it parked on a deferral, or that deferral moved on. */
export const subAgentDeferralSignal = defineSignal<[SubAgentDeferral]>("durable-agents.subAgentDeferral");
