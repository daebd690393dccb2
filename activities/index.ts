import type { Client } from "@temporalio/client";
import type { ResolvedDeferralConfig } from "../src/deferral/config.js";
import type { AgentDefinition } from "../src/core/define-agent.js";
import type { Model } from "../src/core/model.js";
import { estimateTextTokens } from "../src/model/token-estimate.js";
import { resolveThreadWorkerOptions, type ResolvedThreadWorkerOptions } from "../src/threads/worker-options.js";
import type { AgentActivities } from "../src/core/contracts.js";
import type { ThreadActivities } from "../src/core/thread-contracts.js";
import type { AgentRegistry } from "./agent-registry.js";
import { toActivityFailure } from "./failures.js";
import { createCallModel, systemPrompt } from "./model-call.js";
import { createThreadActivities } from "./thread-activities.js";
import { ThreadCache } from "./thread-cache.js";
import { createCallTool } from "./tool-call.js";

export interface ActivityDeps {
  registry: AgentRegistry;
  model: Model;
  client: Client;
  threadCacheSize?: number;
  deferral?: ResolvedDeferralConfig;
  /** Settings of the thread activities (status hook, streaming, stop latency). */
  threads?: ResolvedThreadWorkerOptions;
}

/** The activities an agent worker registers, bound to its agents, model and client. */
export function createActivities({ registry, model, client, threadCacheSize, deferral, threads }: ActivityDeps): AgentActivities & ThreadActivities {
  const cache = new ThreadCache(threadCacheSize);
  const overhead = new Map<string, Promise<number>>();
  // Only agents that declare a context window need their prompt overhead counted.
  const overheadTokens = (definition: ReturnType<AgentRegistry["get"]>): Promise<number> => {
    const { agent, toolSpecs } = definition;
    if (!agent.contextWindow) return Promise.resolve(0);
    let count = overhead.get(agent.id);
    if (!count) {
      count = estimateTextTokens(systemPrompt(agent, { restored: false }) + JSON.stringify(toolSpecs));
      overhead.set(agent.id, count);
    }
    return count;
  };
  return {
    async prepareAgent({ agentId }) {
      try {
        const definition = registry.get(agentId);
        const { agent, definitionHash } = definition;
        return {
          definitionHash,
          maxTurns: agent.maxTurns,
          hasOnExpired: agent.onExpired !== undefined,
          overheadTokens: await overheadTokens(definition),
          ...toolQueuesOf(agent),
          ...(agent.contextWindow ? { contextWindow: agent.contextWindow } : {}),
          timeouts: { startToCloseMs: agent.timeouts.callMs, heartbeatMs: agent.timeouts.heartbeatMs },
        };
      } catch (err) {
        throw toActivityFailure(err);
      }
    },
    callModel: createCallModel({ registry, model, cache, client }),
    callTool: createCallTool(registry, deferral, client),
    ...createThreadActivities({ registry, model, client, cache, threads: threads ?? resolveThreadWorkerOptions() }),
  };
}

function toolQueuesOf(agent: AgentDefinition): { toolQueues?: Record<string, string> } {
  const queues = Object.fromEntries(agent.tools.flatMap((t) => (t.queue ? [[t.name, t.queue] as const] : [])));
  return Object.keys(queues).length > 0 ? { toolQueues: queues } : {};
}
