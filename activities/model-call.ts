import { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";
import type { AgentDefinition } from "../src/define-agent.js";
import type { Principal } from "../src/json.js";
import type { ChatMessage } from "../src/model/messages.js";
import type { Model } from "../src/model/model.js";
import type { ModelCallInput, ModelCallOutput } from "../workflows/contracts.js";
import { threadQuery } from "../workflows/messages.js";
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
      const { agent, toolSpecs } = registry.get(input.agentId);
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
