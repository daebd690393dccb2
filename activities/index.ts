import type { Client } from "@temporalio/client";
import type { ResolvedDeferralConfig } from "../src/deferral/config.js";
import type { Model } from "../src/model/model.js";
import type { AgentActivities } from "../workflows/contracts.js";
import type { AgentRegistry } from "./agent-registry.js";
import { toActivityFailure } from "./failures.js";
import { createCallModel } from "./model-call.js";
import { ThreadCache } from "./thread-cache.js";
import { createCallTool } from "./tool-call.js";

export interface ActivityDeps {
  registry: AgentRegistry;
  model: Model;
  client: Client;
  threadCacheSize?: number;
  deferral?: ResolvedDeferralConfig;
}

/** The activities an agent worker registers, bound to its agents, model and client. */
export function createActivities({ registry, model, client, threadCacheSize, deferral }: ActivityDeps): AgentActivities {
  const cache = new ThreadCache(threadCacheSize);
  return {
    async prepareAgent({ agentId }) {
      try {
        const { agent, definitionHash } = registry.get(agentId);
        return {
          definitionHash,
          maxTurns: agent.maxTurns,
          hasOnExpired: agent.onExpired !== undefined,
          timeouts: { startToCloseMs: agent.timeouts.callMs, heartbeatMs: agent.timeouts.heartbeatMs },
        };
      } catch (err) {
        throw toActivityFailure(err);
      }
    },
    callModel: createCallModel({ registry, model, cache, client }),
    callTool: createCallTool(registry, deferral),
  };
}
