import type { AgentDefinition } from "../src/core/define-agent.js";
import type { Principal } from "../src/core/json.js";

/** The system prompt, resolved for the host's principal when it is a function. */
export function systemPrompt(agent: AgentDefinition, input: { principal?: Principal; restored?: boolean }): string {
  return typeof agent.system === "function" ? agent.system({ principal: input.principal, restored: input.restored ?? false }) : agent.system;
}
