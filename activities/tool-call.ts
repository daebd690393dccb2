import { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";
import type { ResolvedDeferralConfig } from "../src/deferral/config.js";
import { DeferError, deferSignal, isDeferSignal } from "../src/core/defer.js";
import { mintResumeToken } from "../src/deferral/token.js";
import type { ToolContext, ToolDefinition } from "../src/core/define-tool.js";
import { DurableAgentsError } from "../src/core/errors/base.js";
import { DeferralCancelledError } from "../src/core/errors/deferral-cancelled.js";
import { DeferralExpiredError } from "../src/core/errors/deferral-expired.js";
import { DeferInFanOutError } from "../src/core/errors/defer-in-fan-out.js";
import { DeferralNotConfiguredError } from "../src/core/errors/deferral-not-configured.js";
import type { ToolCallInput, ToolCallOutput } from "../src/core/contracts.js";
import type { AgentRegistry, PreparedDefinition } from "./agent-registry.js";
import { deferralRequest } from "./deferral-request.js";
import { toActivityFailure } from "./failures.js";
import { withHeartbeat } from "./heartbeat.js";
import { retryOrGiveUp } from "./tool-retry.js";
import { parseToolCall } from "./tool-arguments.js";
import { dispatchSubRun } from "./dispatch.js";

export function createCallTool(registry: AgentRegistry, deferral: ResolvedDeferralConfig | undefined, client: Client) {
  /**
   * One tool call. Mistakes the model can fix (unknown tool, bad arguments, a handler
   * that throws) come back as tool errors for it to read, never as run failures. A
   * handler that defers returns the deferral request; its token never leaves the worker.
   */
  return async function callTool(input: ToolCallInput): Promise<ToolCallOutput> {
    try {
      const definition = registry.get(input.agentId);
      const out = input.expired ? await runOnExpired(definition, input) : await runHandler(definition, input);
      if (isDeferSignal(out)) {
        if (input.deferralRefused) throw new DeferInFanOutError({ where: input.deferralRefused });
        return { deferred: deferralRequest(out.options, deferral, `tool "${input.toolCall.function.name}"`) };
      }
      return out;
    } catch (err) {
      throw toActivityFailure(err);
    }
  };

  async function runHandler(definition: PreparedDefinition, input: ToolCallInput) {
    const parsed = parseToolCall(definition, input.toolCall);
    if (!parsed.ok) return { content: parsed.content, isError: true };
    const { tool, args } = parsed;
    const name = tool.name;
    const ctx = toolContext(input, tool);
    try {
      return toolResult(await withHeartbeat(async () => tool.handler(args, ctx)));
    } catch (err) {
      if (DeferError.isInstance(err)) return deferSignal(err.options);
      // SDK errors are misuse (no deferral config, …) and cancellation is not the model's business.
      if (DurableAgentsError.isDurableAgentsError(err) || ctx.signal.aborted) throw err;
      await retryOrGiveUp({ runId: input.workflowId, toolCallId: input.toolCall.id }, tool, args, err);
      const attempt = Context.current().info.attempt;
      return toolError(`"${name}" failed${attempt > 1 ? ` after ${attempt} attempts` : ""}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async function runOnExpired(definition: PreparedDefinition, input: ToolCallInput) {
    const expired = input.expired!;
    const onExpired = definition.agent.onExpired;
    if (!onExpired) throw new DeferralExpiredError({ deferralId: expired.deferralId, expiresAt: expired.expiresAt });
    const ctx = toolContext(input, definition.tools.get(input.toolCall.function.name));
    try {
      const out = await withHeartbeat(async () =>
        onExpired({ ...expired, toolName: input.toolCall.function.name }, ctx),
      );
      return isDeferSignal(out) ? out : toolResult(out);
    } catch (err) {
      if (DeferError.isInstance(err)) return deferSignal(err.options);
      throw new DeferralExpiredError({ deferralId: expired.deferralId, expiresAt: expired.expiresAt });
    }
  }

  function toolContext(input: ToolCallInput, tool: ToolDefinition | undefined): ToolContext {
    const activity = Context.current();
    const where = `tool "${tool?.name ?? input.toolCall.function.name}"`;
    return {
      runId: input.workflowId,
      agentId: input.agentId,
      toolCallId: input.toolCall.id,
      idempotencyKey: `${input.workflowId}/${input.toolCall.id}`,
      principal: input.principal,
      signal: activity.cancellationSignal,
      attempt: activity.info.attempt,
      deferralId: input.deferralId,
      deferral: {
        get token() {
          if (!deferral) throw new DeferralNotConfiguredError({ where });
          // The token says whether resume must estimate the thread first, so it can skip reading the record otherwise.
          const window = registry.get(input.agentId).agent.contextWindow !== undefined;
          return mintResumeToken(deferral.secret, input.deferralId, input.toolCall.id, { window });
        },
      },
      defer: (options) => {
        if (input.deferralRefused) throw new DeferInFanOutError({ where: input.deferralRefused });
        // Cancellation already reached this call: refuse, so no link to a dead run goes out.
        if (activity.cancellationSignal.aborted && activity.cancellationDetails?.cancelRequested) {
          throw new DeferralCancelledError({ deferralId: input.deferralId });
        }
        return deferSignal(options);
      },
      restored: input.restored ?? false,
      ...(input.resumedBy ? { resumedBy: input.resumedBy } : {}),
      dispatch: (agent, { prompt }) =>
        dispatchSubRun(
          { registry, client },
          {
            parentId: input.workflowId,
            toolCallId: input.toolCall.id,
            taskQueue: input.taskQueue ?? Context.current().info.taskQueue,
            principal: input.principal,
            restored: input.restored ?? false,
            ...(input.deferralRefused ? { deferralRefused: input.deferralRefused } : {}),
          },
          typeof agent === "string" ? agent : agent.id,
          prompt,
        ),
    };
  }
}

function toolResult(out: unknown) {
  if (isDeferSignal(out)) return out;
  return { content: typeof out === "string" ? out : JSON.stringify(out ?? null), isError: false };
}

function toolError(message: string) {
  return { content: `Error: ${message}`, isError: true };
}
