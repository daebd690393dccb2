import { Context } from "@temporalio/activity";
import type {
  AgentToolCallInput,
  AgentToolCallOutput,
  RunToolCall,
  RunToolCallOutput,
  ThreadToolCall,
  ThreadToolCallResult,
  ToolResult,
} from "../src/core/contracts.js";
import { DeferError, deferSignal, isDeferSignal } from "../src/core/defer.js";
import { isAsyncTool } from "../src/core/define-async-tool.js";
import type { ToolDefinition } from "../src/core/define-tool.js";
import { DurableAgentsError } from "../src/core/errors/base.js";
import { deniedResult } from "../src/core/denied-result.js";
import { DeferralExpiredError } from "../src/core/errors/deferrals.js";
import { resumeDigest } from "../src/core/proof.js";
import { AgentTelemetry } from "../src/otel/agent-telemetry.js";
import type { ActivitySettings } from "./settings.js";
import type { PreparedDefinition } from "./agent-registry.js";
import { toActivityFailure } from "./failures.js";
import { withHeartbeat } from "./heartbeat.js";
import { parseToolCall } from "./tool-arguments.js";
import { answerToken, asyncToolContext, isRefusedDeferral, toolHost, type ToolHost, type ToolHostDeps } from "./tool-hosts.js";
import { retryOrGiveUp } from "./tool-retry.js";
import { isRefusedProgress, progressReporter } from "./tool-progress.js";
import { limitToolResult } from "../src/core/tool-result-limit.js";
import { policyAnswer } from "./approval-gate.js";
import { policyDeniedResult } from "../src/core/approval.js";

export interface ToolCallDeps extends ToolHostDeps {
  /** `stream`: where `ctx.progress` goes (absent on a tool worker: dropped). */
  settings: Pick<ActivitySettings, "stopLatencyMs"> & Partial<Pick<ActivitySettings, "stream">>;
  telemetry?: AgentTelemetry;
}

/** `callAgentTool`: one tool call of a run or of a thread turn. */
export function createCallAgentTool(deps: ToolCallDeps) {
  const telemetry = deps.telemetry ?? new AgentTelemetry();
  /**
   * Mistakes the model can fix (an unknown tool, bad arguments, a handler that keeps
   * throwing) come back as tool errors it reads, never as failures of the run or turn. A
   * handler that throws is first retried per the tool's `retry` (Temporal waits the
   * backoff between attempts). What `ctx.defer()` means is the host's to say. A result or
   * error larger than the tool's `maxResultBytes` reaches the model truncated, with a note.
   */
  return function callAgentTool(input: AgentToolCallInput): Promise<AgentToolCallOutput> {
    // Each call is an `execute_tool {name}` span (a no-op without an OpenTelemetry SDK).
    const facts = {
      host: input.host,
      agentId: input.agentId,
      workflowId: input.workflowId,
      toolName: input.toolCall.function.name,
      toolCallId: input.toolCall.id,
      arguments: input.toolCall.function.arguments,
      attempt: Context.current().info.attempt,
      ...(input.host === "run" ? { deferralId: input.deferralId } : {}),
      ...(input.trace !== undefined ? { trace: input.trace } : {}),
    };
    return telemetry.tool(facts, async () => {
      const out = await call(input);
      const tool = deps.registry.get(input.agentId).tools.get(input.toolCall.function.name) as { maxResultBytes?: number } | undefined;
      return limitToolResult(out, tool?.maxResultBytes, input.maxResultBytes);
    });
  };

  async function call(input: AgentToolCallInput): Promise<AgentToolCallOutput> {
    const progress = progressReporter(input, deps.settings.stream);
    try {
      const definition = deps.registry.get(input.agentId);
      const host = toolHost(input, deps, progress);
      if (input.host === "run" && input.expired) return await onExpired(definition, input, host);
      if (input.host === "run" && input.denied) return await onDenied(definition, input, host);
      const parsed = await parseToolCall(definition, input.toolCall);
      if (!parsed.ok) return { content: input.approved?.edited ? editMisfit(input.toolCall.function.name, parsed.content) : parsed.content, isError: true };
      const { tool } = parsed;
      const gate = await approvedArgs(definition, input, tool, parsed.args);
      if (!gate.ok) return { content: gate.content, isError: true };
      const { args } = gate;
      if (input.host === "thread" && input.start) return await start(tool, args, input, host);
      const ctx = host.context(tool.name);
      const run = async (): Promise<RunToolCallOutput> => {
        let out: unknown;
        try {
          out = await tool.handler(args, ctx);
        } catch (err) {
          if (DeferError.isInstance(err)) return host.deferred(err.options, tool.name);
          throw err;
        }
        return isDeferSignal(out) ? host.deferred(out.options, tool.name) : toolResult(out);
      };
      return await attempt(host, tool, args, ctx.signal, run, (why, attempts) => `"${tool.name}" failed${attempts > 1 ? ` after ${attempts} attempts` : ""}: ${why}`);
    } catch (err) {
      throw toActivityFailure(err);
    } finally {
      progress.close();
    }
  }

  /** An async tool's callback (notify someone); its result arrives later through addToolResult. */
  async function start(tool: ToolDefinition, args: unknown, input: ThreadToolCall, host: ToolHost): Promise<ThreadToolCallResult> {
    if (!isAsyncTool(tool)) return { content: `Error: "${tool.name}" is not an async tool on this worker.`, isError: true };
    const token = answerToken(input, deps, tool.name);
    const ctx = { ...asyncToolContext(input), answerToken: token };
    const run = async () => {
      await tool.callback(args as never, ctx);
      // Only the digest goes to the thread: it checks an answer's proof, and cannot forge one.
      return { started: true as const, digest: resumeDigest(token) };
    };
    return attempt(host, tool, args, ctx.signal, run, (why) => `"${tool.name}" could not be started: ${why}`);
  }

  /** A run's deferral expired: the agent's `onExpired` answers for the call (or defers it again). */
  async function onExpired(definition: PreparedDefinition, input: RunToolCall, host: ToolHost): Promise<RunToolCallOutput> {
    const expired = input.expired!;
    const toolName = input.toolCall.function.name;
    const handler = definition.agent.onExpired;
    const expiredError = () => new DeferralExpiredError({ deferralId: expired.deferralId, expiresAt: expired.expiresAt });
    if (!handler) throw expiredError();
    const ctx = host.context(toolName);
    let out: unknown;
    try {
      out = await withHeartbeat(deps.settings.stopLatencyMs, async () => handler({ ...expired, toolName }, ctx), deps.client);
    } catch (err) {
      if (!DeferError.isInstance(err)) throw expiredError();
      out = deferSignal(err.options);
    }
    return isDeferSignal(out) ? host.deferred(out.options, toolName) : toolResult(out);
  }

  /** Someone denied a run's deferral: the agent's `onDenied` answers for the call (or defers it again); a throw gets the default message. */
  async function onDenied(definition: PreparedDefinition, input: RunToolCall, host: ToolHost): Promise<RunToolCallOutput> {
    const denied = input.denied!;
    const toolName = input.toolCall.function.name;
    const fallback = { content: deniedResult(denied.reason, denied.by?.id), isError: true };
    const handler = definition.agent.onDenied;
    if (!handler) return fallback;
    const ctx = host.context(toolName);
    let out: unknown;
    try {
      out = await withHeartbeat(deps.settings.stopLatencyMs, async () => handler({ ...denied, toolName }, ctx), deps.client);
    } catch (err) {
      if (!DeferError.isInstance(err)) return fallback;
      out = deferSignal(err.options);
    }
    return isDeferSignal(out) ? host.deferred(out.options, toolName) : toolResult(out);
  }

  /**
   * Runs a handler or callback with heartbeats. When it throws, the tool's retry decides:
   * another attempt (a failure Temporal retries after the backoff), or the error for the
   * model, worded by `failed`.
   */
  async function attempt<T>(
    host: ToolHost,
    tool: ToolDefinition,
    args: unknown,
    signal: AbortSignal,
    work: () => Promise<T>,
    failed: (why: string, attempts: number) => string,
  ): Promise<T | ToolResult> {
    try {
      return await withHeartbeat(deps.settings.stopLatencyMs, work, deps.client);
    } catch (err) {
      // ctx.defer() refused its options: no attempt can fix the handler, and the model may try another way.
      if (isRefusedDeferral(err)) return { content: `Error: ${failed(`ctx.defer() refused: ${err.message}`, 1)}`, isError: true };
      // ctx.progress() refused its data: the same data would be refused on every attempt.
      if (isRefusedProgress(err)) return { content: `Error: ${failed(`ctx.progress() refused: ${err.message}`, 1)}`, isError: true };
      // SDK errors are misuse (no deferral config, …), and a cancelled call is the host's business, not the model's.
      if (DurableAgentsError.isDurableAgentsError(err) || signal.aborted) throw err;
      await retryOrGiveUp(host.scope, tool, args, err);
      return { content: `Error: ${failed(err instanceof Error ? err.message : String(err), Context.current().info.attempt)}`, isError: true };
    }
  }
}

/**
 * The arguments a gated tool's handler may run with: the approved input (the approver's
 * edit, checked by the tool's own schema again) when the host brings a decision, none
 * without one unless the tool's `needsApproval` clears this call. The workflow never sends
 * an undecided gated call; this is the worker's own check that no handler runs without.
 */
async function approvedArgs(definition: PreparedDefinition, input: AgentToolCallInput, tool: ToolDefinition, args: unknown): Promise<{ ok: true; args: unknown } | { ok: false; content: string }> {
  if (!tool.needsApproval) return { ok: true, args };
  if (input.approved) {
    // An edit is the call's arguments, parsed already; calls scheduled before edits travelled once carry it beside them.
    if (input.approved.input === undefined) return { ok: true, args };
    const edited = await parseToolCall(definition, { ...input.toolCall, function: { name: tool.name, arguments: JSON.stringify(input.approved.input) } });
    return edited.ok ? { ok: true, args: edited.args } : { ok: false, content: editMisfit(tool.name, edited.content) };
  }
  const ctx = { agentId: input.agentId, toolName: tool.name, toolCallId: input.toolCall.id, principal: input.principal, host: input.host, runId: input.workflowId, ...(input.host === "thread" ? { threadId: input.workflowId } : {}) };
  // The policy allowed the call when the model answered; whatever it says now short of that (a throw included), nothing runs.
  const answer = await policyAnswer(tool, args, ctx).catch(() => undefined);
  if (answer?.kind === "deny") return { ok: false, content: policyDeniedResult(tool.name, answer.reason) };
  if (answer?.kind !== "allow") return { ok: false, content: `Error: "${tool.name}" needs a person's approval, and this call has none: it was not run.` };
  return { ok: true, args };
}

function editMisfit(toolName: string, problem: string): string {
  return `Error: the approved input of "${toolName}" does not fit its schema, so it was not run: ${problem}`;
}

function toolResult(out: unknown): ToolResult {
  return { content: typeof out === "string" ? out : JSON.stringify(out ?? null), isError: false };
}
