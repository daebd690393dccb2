// `durable-agents/workflow`: safe to import from workflow code (Temporal's sandbox).
export { deferrable, defer, nextDeferralId, type WorkflowDeferOptions } from "../workflows/plain-defer.js";
export { fanOut, inFanOut } from "../workflows/fan-out.js";
export { runAgent, type RunAgentOptions } from "../workflows/run-agent.js";
export { runStateQuery, threadQuery, deferralQuery, resumeUpdate, settledUpdate, cancelUpdate, replaceStepStateUpdate } from "./core/wire/run.js";
export type { AgentResult, AgentRunInput, RunState, RunStatus } from "./core/run-state.js";
export type { DeferralRecord, DeferralView, DeferredAck, RunOutcome, StepState, DeferralEvent } from "./core/deferral-record.js";
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
} from "./core/wire/thread.js";
export type { ThreadInput, ThreadStatus, ThreadMessage, StreamUpdate, StreamSnapshot, ThreadSnapshot } from "./core/thread-contracts.js";
