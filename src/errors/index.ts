export { ErrorCode } from "./codes.js";
export { DurableAgentsError } from "./base.js";
export { fromFailure, unwrapFailure } from "./from-failure.js";
export { InvalidDefinitionError, type InvalidDefinitionFields } from "./invalid-definition.js";
export { AgentNotRegisteredError, type AgentNotRegisteredFields } from "./agent-not-registered.js";
export { ModelCallFailedError, type ModelCallFailedFields } from "./model-call-failed.js";
export { MaxTurnsError, type MaxTurnsFields } from "./max-turns.js";
export { ContextOverflowError, type ContextOverflowFields } from "./context-overflow.js";
export { RunNotFoundError, type RunNotFoundFields } from "./run-not-found.js";
