import { createHash } from "node:crypto";
import type { AgentDescription, DescribeAgentInput, DescribeAgentOutput, ToolDescription } from "../src/core/contracts.js";
import { isAsyncTool } from "../src/core/define-async-tool.js";
import { resolveToolRetry } from "../src/core/tool-retry.js";
import { estimateTextTokens } from "../src/model/token-estimate.js";
import type { ActivitySettings } from "./settings.js";
import type { AgentRegistry, PreparedDefinition } from "./agent-registry.js";
import type { AgentTelemetry } from "../src/otel/agent-telemetry.js";
import { toActivityFailure } from "./failures.js";
import { DEFAULT_MAX_TOOL_CALLS } from "../src/core/transcript-budget.js";
import { systemPrompt } from "./system-prompt.js";
import { THREAD_TRANSCRIPT_BYTES } from "../src/core/transcript-budget.js";
import type { CompactionPlan } from "../src/core/compaction.js";
import type { ResolvedCompaction } from "../src/core/define-agent.js";

/** What a thread needs to know to decide when to compact: the summarizer's own settings stay on the worker. */
function compactionPlan({ keepTurns, atRoom, maxInputTokens }: ResolvedCompaction): CompactionPlan {
  return { keepTurns, atBytes: Math.floor(atRoom * THREAD_TRANSCRIPT_BYTES), ...(maxInputTokens !== undefined ? { maxInputTokens } : {}) };
}

/** `describeAgent`: what a run or a thread needs to know about its agent to schedule its steps. */
export function createDescribeAgent(
  registry: AgentRegistry,
  settings: Pick<ActivitySettings, "modelMaxAttempts" | "onStatusChange">,
  telemetry?: AgentTelemetry,
) {
  const overhead = new Map<string, Promise<number>>();
  // Only agents that declare a context window need their prompt overhead counted.
  const overheadTokens = ({ agent, toolSpecs }: PreparedDefinition): Promise<number> => {
    if (!agent.contextWindow) return Promise.resolve(0);
    let count = overhead.get(agent.id);
    if (!count) {
      count = estimateTextTokens(systemPrompt(agent, { restored: false }) + JSON.stringify(toolSpecs));
      overhead.set(agent.id, count);
    }
    return count;
  };

  return async function describeAgent({ agentId, knownHash, trace }: DescribeAgentInput): Promise<DescribeAgentOutput> {
    const description = await describe(agentId, knownHash);
    // The step's span opens here: this local activity runs where the workflow does, which later closes it.
    const step = trace && telemetry?.beginStep(agentId, trace);
    return step ? { ...description, trace: step } : description;
  };

  async function describe(agentId: string, knownHash: string | undefined): Promise<DescribeAgentOutput> {
    try {
      const definition = registry.get(agentId);
      const { agent, definitionHash, definitionParts } = definition;
      // Own properties whatever the name: an assignment to `tools["__proto__"]` would set the prototype instead.
      const tools: Record<string, ToolDescription> = Object.fromEntries(
        agent.tools.map((tool) => [
          tool.name,
          {
            async: isAsyncTool(tool),
            ...(tool.queue ? { queue: tool.queue } : {}),
            maxAttempts: resolveToolRetry(tool.retry, `tool "${tool.name}"`)?.maxAttempts ?? 1,
            ...approvalOf(tool),
          },
        ]),
      );
      const facts: Omit<AgentDescription, "hash"> = {
        definitionHash,
        definitionParts,
        maxTurns: agent.maxTurns,
        model: agent.model,
        timeouts: { startToCloseMs: agent.timeouts.callMs, heartbeatMs: agent.timeouts.heartbeatMs },
        tools,
        modelMaxAttempts: settings.modelMaxAttempts,
        ...(agent.contextWindow ? { contextWindow: agent.contextWindow } : {}),
        overheadTokens: await overheadTokens(definition),
        hasOnExpired: agent.onExpired !== undefined,
        ...(agent.onDenied ? { hasOnDenied: true } : {}),
        statusHook: settings.onStatusChange !== undefined,
        ...(agent.modelCalls === "local" ? { localModelCalls: true as const } : {}),
        maxToolCalls: agent.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS,
        ...(definition.subAgents.size > 0 ? { agents: Object.fromEntries(definition.subAgents) } : {}),
        ...(agent.compaction ? { compaction: compactionPlan(agent.compaction) } : {}),
      };
      // A thread records its description every turn: when nothing changed, say only that.
      const hash = createHash("sha256").update(JSON.stringify(facts)).digest("base64url").slice(0, 16);
      return hash === knownHash ? { unchanged: true } : { hash, ...facts };
    } catch (err) {
      throw toActivityFailure(err);
    }
  }
}

/** How the host gates the tool's calls: `always`, `maybe` (its function decides per call), or not at all. */
function approvalOf(tool: { needsApproval?: unknown; approval?: { notify?: unknown; escalate?: { notify?: unknown } } }): { approval?: "always" | "maybe"; notifies?: true; notifiesEscalation?: true } {
  const approval = tool.needsApproval === true ? "always" : typeof tool.needsApproval === "function" ? "maybe" : undefined;
  if (!approval) return {};
  return {
    approval,
    ...(typeof tool.approval?.notify === "function" ? { notifies: true as const } : {}),
    ...(typeof tool.approval?.escalate?.notify === "function" ? { notifiesEscalation: true as const } : {}),
  };
}
