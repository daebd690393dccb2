import { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";
import type { AgentDefinition } from "../src/core/define-agent.js";
import type { Principal } from "../src/core/json.js";
import type { ChatMessage } from "../src/core/messages.js";
import { DefinitionChangedError } from "../src/core/errors/definition-changed.js";
import { StepStateError } from "../src/core/errors/step-state.js";
import type { Model } from "../src/core/model.js";
import type { ModelCallInput, ModelCallOutput } from "../src/core/contracts.js";
import { threadQuery } from "../src/core/wire/run.js";
import type { AgentRegistry } from "./agent-registry.js";
import { toActivityFailure } from "./failures.js";
import { withHeartbeat } from "./heartbeat.js";
import { ThreadCache } from "./thread-cache.js";

export interface ModelCallDeps {
  registry: AgentRegistry;
  model: Model;
  cache: ThreadCache;
  client: Client;
}

/** The system prompt, resolved for the run's principal when it is a function. */
export function systemPrompt(agent: AgentDefinition, input: { principal?: Principal; restored?: boolean }): string {
  return typeof agent.system === "function" ? agent.system({ principal: input.principal, restored: input.restored ?? false }) : agent.system;
}

export function createCallModel({ registry, model, cache, client }: ModelCallDeps) {
  /** One model call. Its input holds only the thread's delta; the rest comes from cache or a query. */
  return async function callModel(input: ModelCallInput): Promise<ModelCallOutput> {
    try {
      const { agent, toolSpecs } = definitionFor(input);
      const thread = await threadOf(input);
      const response = await withHeartbeat(() =>
        model.complete({
          model: agent.model,
          messages: [{ role: "system", content: systemPrompt(agent, input) }, ...thread],
          tools: toolSpecs,
          signal: Context.current().cancellationSignal,
        }),
      );
      return { message: response.message, usage: response.usage };
    } catch (err) {
      throw toActivityFailure(err);
    }
  };

  /** The agent as registered now; after a resume it must be the one the run deferred with. */
  function definitionFor(input: ModelCallInput) {
    const check = input.definitionCheck;
    if (!check) return registry.get(input.agentId);
    let definition;
    try {
      definition = registry.get(input.agentId);
    } catch {
      throw new StepStateError({ agentId: input.agentId, reason: `no agent "${input.agentId}" is registered on the worker any more` });
    }
    if (definition.definitionHash !== check.definitionHash) {
      throw new DefinitionChangedError({
        deferralId: check.deferralId,
        agentId: input.agentId,
        deferredHash: check.definitionHash,
        currentHash: definition.definitionHash,
      });
    }
    return definition;
  }

  async function threadOf(input: ModelCallInput): Promise<ChatMessage[]> {
    const key = ThreadCache.key(input.workflowId, input.runId, input.epoch);
    const base =
      cache.prefix(key, input.baseLength) ??
      (await client.workflow
        .getHandle(input.workflowId, input.runId)
        .query(threadQuery, { epoch: input.epoch, length: input.baseLength }));
    const thread = base.concat(input.delta);
    cache.set(key, thread);
    return thread;
  }
}
