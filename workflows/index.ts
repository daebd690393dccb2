// The workflow bundle's entry: every workflow type the SDK registers on a worker.
export { agentRun } from "./runs/agent-run.js";
export { agentThread } from "./threads/agent-thread.js";
