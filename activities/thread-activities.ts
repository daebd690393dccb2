import { createHash } from "node:crypto";
import type { Client } from "@temporalio/client";
import type { Model } from "../src/core/model.js";
import { isAsyncTool } from "../src/core/define-async-tool.js";
import { resolveToolRetry } from "../src/core/tool-retry.js";
import type { ResolvedThreadWorkerOptions } from "../src/threads/worker-options.js";
import type { ThreadActivities, ThreadPrepared, ThreadPrepareOutput } from "../src/core/thread-contracts.js";
import type { AgentRegistry } from "./agent-registry.js";
import { toActivityFailure } from "./failures.js";
import { ThreadCache } from "./thread-cache.js";
import { createThreadCallModel } from "./thread-model-call.js";
import { createThreadToolActivities } from "./thread-tool-call.js";

export interface ThreadActivityDeps {
  registry: AgentRegistry;
  model: Model;
  client: Client;
  cache: ThreadCache;
  threads: ResolvedThreadWorkerOptions;
}

/** The activities thread workflows use, bound to the worker's agents, model and settings. */
export function createThreadActivities({ registry, model, client, cache, threads }: ThreadActivityDeps): ThreadActivities {
  return {
    async prepareThread({ agentId, knownHash }): Promise<ThreadPrepareOutput> {
      try {
        const { agent } = registry.get(agentId);
        const tools: ThreadPrepared["tools"] = {};
        for (const tool of agent.tools) {
          tools[tool.name] = {
            async: isAsyncTool(tool),
            ...(tool.queue ? { queue: tool.queue } : {}),
            maxAttempts: resolveToolRetry(tool.retry, `tool "${tool.name}"`)?.maxAttempts ?? 1,
          };
        }
        const settings: Omit<ThreadPrepared, "hash"> = {
          maxTurns: agent.maxTurns,
          timeouts: { startToCloseMs: agent.timeouts.callMs, heartbeatMs: agent.timeouts.heartbeatMs },
          tools,
          modelMaxAttempts: threads.modelMaxAttempts,
          statusHook: threads.onStatusChange !== undefined,
        };
        // Recorded in history every turn: when nothing changed, say only that.
        const hash = createHash("sha256").update(JSON.stringify(settings)).digest("base64url").slice(0, 16);
        return hash === knownHash ? { unchanged: true } : { ...settings, hash };
      } catch (err) {
        throw toActivityFailure(err);
      }
    },
    threadCallModel: createThreadCallModel({ registry, model, cache, client, threads }),
    ...createThreadToolActivities(registry, client, threads),
    async threadStatusChanged(change) {
      await threads.onStatusChange?.(change);
    },
  };
}
