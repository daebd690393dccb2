/**
 * `durable-agents/workflow`: safe to import from workflow code (Temporal's sandbox). Plain
 * workflows defer and resume with `deferrable` and `defer`, run branches with `fanOut`, and
 * dispatch agents with `runAgent`; the run and thread messages (queries, updates) are here
 * for callers with a Temporal client of their own.
 *
 * @example
 * ```ts
 * import { proxyActivities } from "@temporalio/workflow";
 * import { defer, deferrable, nextDeferralId } from "durable-agents/workflow";
 * import type * as activities from "./activities.js";
 *
 * const { requestApproval } = proxyActivities<typeof activities>({ startToCloseTimeout: "1 minute" });
 *
 * export const expenseApproval = deferrable(async function expenseApproval(expenseId: string) {
 *   const { digest } = await requestApproval({ expenseId, deferralId: nextDeferralId() });
 *   const answer = await defer<{ approved: boolean }>({ callId: "approval", digest, ttl: "72h" });
 *   return answer.approved ? "paid" : "refused";
 * });
 * ```
 *
 * @packageDocumentation
 * @module durable-agents/workflow
 */
export { deferrable, defer, nextDeferralId, type WorkflowDeferOptions } from "../workflows/plain/deferrable.js";
export { fanOut, inFanOut } from "../workflows/plain/fan-out.js";
export { runAgent, type RunAgentOptions } from "../workflows/plain/run-agent.js";
// Messages the façade uses, for callers with their own Temporal client. Messages only the
// SDK's own workers send (transcript sync, stream batches) are not part of the API.
export { runStateQuery, runMessagesQuery, runStreamQuery, deferralQuery, resumeUpdate, settledUpdate, cancelUpdate, replaceStepStateUpdate, type RunMessagesRequest } from "./core/wire/run.js";
export type { AgentResult, AgentRunInput, RunMessagePage, RunProgress, RunState, RunStatus } from "./core/run-state.js";
export type { DeferralRecord, DeferralView, DeferredAck, FailureInfo, ReplaceStepStateRequest, ResumeReply, ResumeRequest, RunOutcome, StepState, DeferralEvent } from "./core/deferral-record.js";
export {
  threadSnapshotQuery,
  threadMessagesQuery,
  threadStreamQuery,
  threadSendUpdate,
  threadResumeUpdate,
  threadStopUpdate,
  threadToolResultUpdate,
  threadDeleteUpdate,
} from "./core/wire/thread.js";
export type {
  InboxItem,
  StreamSnapshot,
  StreamUpdate,
  ThreadInput,
  ThreadMessage,
  ThreadMessagePage,
  ThreadResumeRequest,
  ThreadSendRequest,
  ThreadSnapshot,
  ThreadStatus,
  ThreadToolResultRequest,
} from "./core/thread-contracts.js";
export type { ArchivedSpan } from "./core/compaction.js";
