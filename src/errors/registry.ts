import { AgentNotRegisteredError } from "./agent-not-registered.js";
import { ContextOverflowError } from "./context-overflow.js";
import { InvalidDefinitionError } from "./invalid-definition.js";
import { MaxTurnsError } from "./max-turns.js";
import { ModelCallFailedError } from "./model-call-failed.js";
import { RunNotFoundError } from "./run-not-found.js";

/** Code → class, so a failure that crossed the wire can be rebuilt as the typed error. */
export const errorClasses = {
  [InvalidDefinitionError.code]: InvalidDefinitionError,
  [AgentNotRegisteredError.code]: AgentNotRegisteredError,
  [ModelCallFailedError.code]: ModelCallFailedError,
  [MaxTurnsError.code]: MaxTurnsError,
  [ContextOverflowError.code]: ContextOverflowError,
  [RunNotFoundError.code]: RunNotFoundError,
} as const;
