// `durable-agents/workflow`: safe to import from workflow code (Temporal's sandbox).
export { deferrable, defer, nextDeferralId, type WorkflowDeferOptions } from "../workflows/plain-defer.js";
export { fanOut, inFanOut } from "../workflows/fan-out.js";
export { runAgent, type RunAgentOptions } from "../workflows/run-agent.js";
export { runStateQuery, threadQuery, deferralQuery, resumeUpdate, settledUpdate, cancelUpdate, replaceStepStateUpdate } from "../workflows/messages.js";
export type { AgentResult, AgentRunInput, RunState, RunStatus } from "../workflows/run-state.js";
export type { DeferralRecord, DeferralView, DeferredAck, RunOutcome, StepState, DeferralEvent } from "../workflows/deferral-record.js";
export {
  threadSnapshotQuery,
  threadMessagesQuery,
  threadStreamQuery,
  threadTranscriptQuery,
  threadSendUpdate,
  threadResumeUpdate,
  threadStopUpdate,
  threadToolResultUpdate,
  threadDeleteUpdate,
  threadStreamSignal,
} from "../workflows/thread-messages.js";
export type { ThreadInput, ThreadStatus, ThreadMessage, StreamUpdate, StreamSnapshot, ThreadSnapshot } from "../workflows/thread-contracts.js";
