import type { AgentDefinition } from "../src/core/define-agent.js";
import type { Principal } from "../src/core/json.js";
import type { ChatMessage } from "../src/core/messages.js";
import { InvalidDefinitionError } from "../src/core/errors/setup.js";

/** The system prompt, resolved for the host's principal when it is a function. */
export function systemPrompt(agent: AgentDefinition, input: { principal?: Principal; restored?: boolean }): string {
  return typeof agent.system === "function" ? agent.system({ principal: input.principal, restored: input.restored ?? false }) : agent.system;
}

/**
 * What a model call sends: the system prompt, then the transcript, through the agent's
 * `transformMessages` when it has one. The transcript itself is never changed by it.
 */
export function outgoingMessages(agent: AgentDefinition, input: { principal?: Principal; restored?: boolean }, transcript: ChatMessage[]): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: systemPrompt(agent, input) }, ...transcript];
  if (!agent.transformMessages) return messages;
  // A copy, so a transform that edits in place cannot reach the worker's cached transcript.
  const transformed: unknown = agent.transformMessages(structuredClone(messages), { principal: input.principal, restored: input.restored ?? false });
  if (!Array.isArray(transformed) || transformed.length === 0) {
    throw new InvalidDefinitionError({ subject: `agent "${agent.id}"`, problem: "transformMessages must return a non-empty array of messages" });
  }
  return transformed as ChatMessage[];
}
