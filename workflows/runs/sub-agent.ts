import { ApplicationFailure, CancelledFailure, ChildWorkflowFailure, executeChild, workflowInfo } from "@temporalio/workflow";
import type { ToolResult } from "../../src/core/contracts.js";
import { addUsage, type ToolCall, type Usage } from "../../src/core/messages.js";
import { AGENT_RUN_VERSION, type AgentResult, type AgentRunInput } from "../../src/core/run-state.js";
import { AgentIdKey } from "../../src/core/search-attributes.js";
import { childStreamMemo } from "../../src/core/stream-key.js";
import type { RunContext } from "./context.js";

/**
 * A call of a sub-agent: the agent runs as a child workflow of this run (its own run id,
 * transcript and history), with at most `turnsLeft` turns, and its final answer is the
 * call's result. Its turns and tokens are added to this run's whether it answers, fails or
 * is cancelled with the run. What goes wrong in it is the model's to hear, as a tool error
 * is; a cancel of this run reaches it (the child is in the run's scope) and stops the run.
 * When it parks on a deferral, it tells this run, which parks with it (see `DeferralBook.subAgentParked`).
 */
export async function callSubAgent(run: RunContext, call: ToolCall, agentId: string, turnsLeft: number): Promise<ToolResult> {
  const { state, cancellation } = run;
  const prompt = promptOf(call.function.arguments);
  if (prompt === undefined) return { content: `Error: call the agent "${agentId}" with {"prompt": "<the task>"}.`, isError: true };
  if (turnsLeft < 1) return { content: `Error: no turns are left to give the agent "${agentId}".`, isError: true };
  const { workflowId, taskQueue } = workflowInfo();
  const input: AgentRunInput = {
    version: AGENT_RUN_VERSION,
    agentId,
    prompt,
    ...(state.principal ? { principal: state.principal } : {}),
    ...(state.restored ? { restored: true } : {}),
    turnCap: turnsLeft,
    parent: { workflowId },
    // A run that may not defer (a fan-out branch's) has sub-agents that may not either.
    ...(run.deferralRefused ? { deferralRefused: run.deferralRefused } : {}),
  };
  const childId = `${workflowId}/agent/${call.id}`;
  // While it runs, what it says of its deferrals is heard (see the run's subAgentDeferral handler).
  run.children.add(childId);
  try {
    // Typed by the run's contract rather than by agentRun itself, which runs this file.
    const result = await executeChild<(input: AgentRunInput) => Promise<AgentResult>>("agentRun", {
      workflowId: childId,
      taskQueue,
      args: [input],
      typedSearchAttributes: [{ key: AgentIdKey, value: agentId }],
      staticSummary: `sub-agent ${agentId} of ${workflowId}`,
      // A reader of the child proves a key derived from the parent's (its own id in it).
      ...childStreamMemo(workflowInfo().memo, childId),
    });
    spend(state, result.turnsUsed, result.usage);
    return { content: answerOf(result), isError: false };
  } catch (err) {
    const failure = err instanceof ChildWorkflowFailure ? err.cause : err;
    const fields = failure instanceof ApplicationFailure ? (failure.details?.[0] as { turnsUsed?: number; usage?: Usage } | undefined) : undefined;
    if (fields?.usage) spend(state, fields.turnsUsed ?? 0, fields.usage);
    if (cancellation.requested()) throw new CancelledFailure("cancelled");
    const code = failure instanceof ApplicationFailure && failure.type ? `[${failure.type}] ` : "";
    const message = failure instanceof Error ? failure.message : String(failure);
    return { content: `Error: the agent "${agentId}" did not answer: ${message.startsWith("[") ? message : `${code}${message}`}`, isError: true };
  } finally {
    run.children.delete(childId);
  }
}

function spend(state: RunContext["state"], turns: number, usage: Usage): void {
  state.turnsUsed += turns;
  state.usage = addUsage(state.usage, usage);
}

/** The task the model wrote, or undefined when its arguments are not `{ prompt: string }`. */
function promptOf(args: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(args);
    const prompt = typeof parsed === "object" && parsed !== null ? (parsed as { prompt?: unknown }).prompt : undefined;
    return typeof prompt === "string" && prompt.trim() !== "" ? prompt : undefined;
  } catch {
    return undefined;
  }
}

/** A child's answer as its parent's model reads it: its typed output as JSON, else its text. */
function answerOf(result: AgentResult): string {
  return result.output !== undefined ? JSON.stringify(result.output) : result.text;
}
