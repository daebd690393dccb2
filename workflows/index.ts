// The workflow bundle's entry: every workflow type the SDK registers on a worker.
export { agentRun } from "./agent-run.js";
export { agentThread } from "./thread.js";
