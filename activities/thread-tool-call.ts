import { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";
import { DeferError, isDeferSignal } from "../src/core/defer.js";
import type { ToolContext } from "../src/core/define-tool.js";
import { DurableAgentsError } from "../src/core/errors/base.js";
import { DeferInThreadError } from "../src/core/errors/defer-in-thread.js";
import { isAsyncTool, type AsyncToolContext } from "../src/core/define-async-tool.js";
import type { ResolvedThreadWorkerOptions } from "../src/threads/worker-options.js";
import type { AsyncToolStartOutput, ThreadToolCallInput, ThreadToolCallOutput } from "../src/core/thread-contracts.js";
import type { AgentRegistry } from "./agent-registry.js";
import { toActivityFailure } from "./failures.js";
import { withFrequentHeartbeat } from "./thread-heartbeat.js";
import { retryOrGiveUp } from "./tool-retry.js";
import { parseToolCall, type ParsedToolCall } from "./tool-arguments.js";
import { dispatchSubRun } from "./dispatch.js";

export function createThreadToolActivities(registry: AgentRegistry, client: Client, threads: Pick<ResolvedThreadWorkerOptions, "stopLatencyMs">) {
  const heartbeatEvery = threads.stopLatencyMs / 2;

  /**
   * One sync tool call of a thread. Mistakes the model can fix come back as tool errors.
   * A handler that throws is retried per the tool's `retry` (Temporal waits the backoff
   * between attempts); the last failure goes to the model. `ctx.defer()` fails the turn.
   */
  async function threadCallTool(input: ThreadToolCallInput): Promise<ThreadToolCallOutput> {
    try {
      const parsed = parse(input);
      if (!parsed.ok) return { content: parsed.content, isError: true };
      const { tool, args } = parsed;
      const ctx = toolContext(input, tool.name);
      try {
        const out = await withFrequentHeartbeat(heartbeatEvery, async () => tool.handler(args, ctx));
        if (isDeferSignal(out)) throw new DeferInThreadError({ threadId: input.threadId, toolName: tool.name });
        return { content: typeof out === "string" ? out : JSON.stringify(out ?? null), isError: false };
      } catch (err) {
        if (DeferError.isInstance(err)) throw new DeferInThreadError({ threadId: input.threadId, toolName: tool.name });
        // SDK errors are misuse, and a cancelled call is the thread's business, not the model's.
        if (DurableAgentsError.isDurableAgentsError(err) || ctx.signal.aborted) throw err;
        await retryOrGiveUp({ threadId: input.threadId, toolCallId: input.toolCall.id }, tool, args, err);
        const attempt = Context.current().info.attempt;
        return { content: `Error: "${tool.name}" failed${attempt > 1 ? ` after ${attempt} attempts` : ""}: ${messageOf(err)}`, isError: true };
      }
    } catch (err) {
      throw toActivityFailure(err);
    }
  }

  /**
   * Runs an async tool's callback (notify someone); its result arrives later through
   * addToolResult. A callback that keeps failing gives the model a tool error instead.
   */
  async function threadStartAsyncTool(input: ThreadToolCallInput): Promise<AsyncToolStartOutput> {
    try {
      const parsed = parse(input);
      if (!parsed.ok) return { started: false, content: parsed.content };
      const { tool, args } = parsed;
      if (!isAsyncTool(tool)) return { started: false, content: `Error: "${tool.name}" is not an async tool on this worker.` };
      const ctx: AsyncToolContext = callBasics(input);
      try {
        await withFrequentHeartbeat(heartbeatEvery, async () => tool.callback(args as never, ctx));
        return { started: true };
      } catch (err) {
        if (DurableAgentsError.isDurableAgentsError(err) || ctx.signal.aborted) throw err;
        await retryOrGiveUp({ threadId: input.threadId, toolCallId: input.toolCall.id }, tool, args, err);
        return { started: false, content: `Error: "${tool.name}" could not be started: ${messageOf(err)}` };
      }
    } catch (err) {
      throw toActivityFailure(err);
    }
  }

  function parse(input: ThreadToolCallInput): ParsedToolCall {
    return parseToolCall(registry.get(input.agentId), input.toolCall);
  }

  function toolContext(input: ThreadToolCallInput, toolName: string): ToolContext {
    const refuse = () => {
      throw new DeferInThreadError({ threadId: input.threadId, toolName });
    };
    return {
      ...callBasics(input),
      runId: input.threadId,
      deferralId: "",
      deferral: {
        get token(): string {
          return refuse();
        },
      },
      defer: refuse,
      restored: false,
      dispatch: (agent, { prompt }) =>
        dispatchSubRun(
          { registry, client },
          { parentId: input.threadId, toolCallId: input.toolCall.id, taskQueue: input.taskQueue, principal: input.principal, restored: false },
          typeof agent === "string" ? agent : agent.id,
          prompt,
        ),
    };
  }

  return { threadCallTool, threadStartAsyncTool };
}

/** What every thread tool call's context knows: the thread, the call and this attempt. */
function callBasics(input: ThreadToolCallInput): AsyncToolContext {
  const activity = Context.current();
  return {
    threadId: input.threadId,
    agentId: input.agentId,
    toolCallId: input.toolCall.id,
    idempotencyKey: `${input.threadId}/${input.toolCall.id}`,
    principal: input.principal,
    signal: activity.cancellationSignal,
    attempt: activity.info.attempt,
  };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
