import type { Client } from "@temporalio/client";
import { ApplicationFailure, Context, type Info as ActivityInfo } from "@temporalio/activity";
import type { AgentDescription, AgentModelCallInput, AgentStepActivities, ModelCallOutput } from "../src/core/contracts.js";
import { emptyUsage } from "../src/core/messages.js";
import type { ThreadActivities } from "../src/core/thread-contracts.js";
import type { ResolvedDeferralConfig } from "../src/deferral/config.js";
import type { Model } from "../src/core/model.js";
import { AgentTelemetry } from "../src/otel/agent-telemetry.js";
import type { ActivitySettings } from "./settings.js";
import type { AgentRegistry } from "./agent-registry.js";
import { createCallAgentModel } from "./call-model.js";
import { createCallAgentTool } from "./call-tool.js";
import { createDescribeAgent } from "./describe-agent.js";
import { createNotifyApproval } from "./notify-approval.js";
import { createSummarizeTranscript } from "./summarize.js";
import { TranscriptSync } from "./transcript-sync.js";
import { currentStepTask } from "./step-task.js";
import { fillModelCall, fillToolCall, slimModelAnswer, slimToolAnswer, type WireStepActivities } from "../src/core/step-wire.js";

export interface ActivityDeps {
  registry: AgentRegistry;
  model: Model;
  client: Client;
  threadCacheSize?: number;
  deferral?: ResolvedDeferralConfig;
  /**
   * The worker's settings for every step, of runs and threads alike: how soon a cancel or
   * stop reaches a call, model call attempts, streaming batches, the status hook.
   */
  threads: ActivitySettings;
  /** Spans and metrics; the sink that closes step spans must share it (the plugin makes one). */
  telemetry?: AgentTelemetry;
}

/**
 * The activities an agent worker registers, bound to its agents, model and client: the
 * agent-step layer and a thread's status hook.
 */
export function createActivities({
  registry,
  model,
  client,
  threadCacheSize,
  deferral,
  threads: settings,
  telemetry = new AgentTelemetry(),
}: ActivityDeps): WireStepActivities & ThreadActivities {
  const transcripts = new TranscriptSync(client, threadCacheSize);
  const callTool = createCallAgentTool({ registry, client, deferral, settings, telemetry });
  const steps: AgentStepActivities = {
    describeAgent: createDescribeAgent(registry, settings, telemetry),
    callAgentModel: createCallAgentModel({ registry, model, client, settings, transcripts, telemetry, deferral }),
    notifyApproval: createNotifyApproval({ registry, deferral }),
    async callAgentTool(input) {
      const out = await callTool(input);
      // A run's next model call names this result rather than carrying it (one copy in history).
      if (input.host === "run" && "content" in out) transcripts.rememberToolResult(input.workflowId, input.toolCall.id, out.content);
      return out;
    },
  };
  /**
   * A run's first model call, scheduled before the agent was described: it describes the
   * agent (opening the run's first step span, or finding the one an earlier attempt opened),
   * and asks the model only when it was scheduled as the agent's model calls are.
   */
  async function describingCall(call: AgentModelCallInput, describe: NonNullable<AgentModelCallInput["describe"]>): Promise<ModelCallOutput> {
    const request = describe.trace;
    const open = request && telemetry.openStep(request.step);
    const { trace: opened, ...description } = (await steps.describeAgent({ agentId: call.agentId, ...(request && !open ? { trace: request } : {}) })) as AgentDescription & { trace?: string };
    const trace = open ?? opened;
    const traced = trace !== undefined ? { trace } : {};
    if (!scheduledAs(description, Context.current().info)) {
      return { message: { role: "assistant", content: null }, usage: emptyUsage(), described: description, ...traced, unasked: true };
    }
    try {
      const answer = await steps.callAgentModel({ ...call, ...(trace !== undefined && request ? { trace: { parent: trace, step: request.step } } : {}) });
      return { ...answer, described: description, ...traced };
    } catch (err) {
      // A call that fails for good ends the run before it learns of the step span this call
      // opened: closed here, as the run's end would have closed it.
      const info = Context.current().info;
      const last = err instanceof ApplicationFailure && (err.nonRetryable || info.attempt >= (info.retryPolicy?.maximumAttempts ?? Number.POSITIVE_INFINITY));
      if (request && trace !== undefined && (last || Context.current().cancellationSignal.aborted)) {
        telemetry.endStep({ step: request.step, ...(last ? { outcome: "failed" as const, ...(err.type ? { errorType: err.type } : {}) } : { outcome: "cancelled" as const }) });
      }
      throw err;
    }
  }
  return {
    ...steps,
    // Inputs and answers leave out what the other side fills in (step-wire.ts).
    callAgentModel: async (input) => {
      const call = fillModelCall(input, currentStepTask());
      if (call.describe) return slimModelAnswer(await describingCall(call, call.describe));
      const answer = await steps.callAgentModel(call);
      if (call.knownHash === undefined) return slimModelAnswer(answer);
      // A thread's turn that skipped its preparation learns here whether the agent changed since.
      const now = await steps.describeAgent({ agentId: call.agentId, knownHash: call.knownHash });
      return slimModelAnswer("unchanged" in now ? answer : { ...answer, described: now });
    },
    callAgentTool: async (input) => slimToolAnswer(await steps.callAgentTool(fillToolCall(input, currentStepTask()))),
    async threadStatusChanged(change) {
      await settings.onStatusChange?.(change);
    },
    summarizeTranscript: createSummarizeTranscript({ registry, model, client, settings }),
  };
}

/** Whether this call was scheduled as `described` schedules its model calls: local or not, their timeouts and attempts. */
function scheduledAs(described: AgentDescription, info: ActivityInfo): boolean {
  if (info.isLocal !== (described.localModelCalls === true)) return false;
  if (info.startToCloseTimeoutMs !== described.timeouts.startToCloseMs) return false;
  if (info.retryPolicy?.maximumAttempts !== described.modelMaxAttempts) return false;
  return info.isLocal || info.heartbeatTimeoutMs === described.timeouts.heartbeatMs;
}

/** The activity a tool worker (a work pool) registers: tool calls of runs and threads. */
export function createToolActivities(deps: {
  registry: AgentRegistry;
  client: Client;
  deferral: ResolvedDeferralConfig | undefined;
  settings: Pick<ActivitySettings, "stopLatencyMs">;
}): Pick<WireStepActivities, "callAgentTool"> {
  const callAgentTool = createCallAgentTool(deps);
  return {
    callAgentTool: async (input) => slimToolAnswer(await callAgentTool(fillToolCall(input, currentStepTask()))),
  };
}
