// `durable-agents/workflow`: safe to import from workflow code (Temporal's sandbox).
export { runStateQuery, threadQuery } from "../workflows/messages.js";
export type { AgentResult, AgentRunInput, RunState, RunStatus } from "../workflows/run-state.js";
