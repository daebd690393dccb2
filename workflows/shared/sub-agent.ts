import { ApplicationFailure, CancelledFailure, ChildWorkflowFailure, executeChild, workflowInfo } from "@temporalio/workflow";
import type { JoinedStream, ToolResult } from "../../src/core/contracts.js";
import type { Principal } from "../../src/core/json.js";
import type { ToolCall, Usage } from "../../src/core/messages.js";
import { AGENT_RUN_VERSION, type AgentResult, type AgentRunInput } from "../../src/core/run-state.js";
import { AgentIdKey } from "../../src/core/search-attributes.js";
import { childStreamMemo } from "../../src/core/stream-key.js";

/** Who calls a sub-agent, as the call needs it: a run, or a thread's turn. */
export interface SubAgentCaller {
  readonly principal: Principal | undefined;
  readonly restored?: boolean;
  /** Set when the caller may not defer (a fan-out branch): neither may its sub-agents. */
  readonly deferralRefused?: string | undefined;
  /** Workflow ids of the sub-agents running now: only their deferral signals are heard. */
  readonly children: Set<string>;
  /** Counts the child's turns and tokens in the caller's. */
  spend(turns: number, usage: Usage): void;
  /** Whether the caller was cancelled (stopped, deleted): then the call ends in a cancellation, not a result. */
  cancelled(): boolean;
  /** The child's workflow id when not `<caller>/agent/<toolCallId>` (a thread may see a call id again). */
  readonly childId?: string;
  /** Where the child's answers are shown while written (a thread's streamed turn). */
  readonly joinStream?: JoinedStream;
}

/** The sub-agent call itself, for any caller: one child workflow, its answer or its failure as the call's result. */
export async function runSubAgent(caller: SubAgentCaller, call: ToolCall, agentId: string, turnsLeft: number): Promise<ToolResult> {
  const prompt = promptOf(call.function.arguments);
  if (prompt === undefined) return { content: `Error: call the agent "${agentId}" with {"prompt": "<the task>"}.`, isError: true };
  if (turnsLeft < 1) return { content: `Error: no turns are left to give the agent "${agentId}".`, isError: true };
  const { workflowId, taskQueue } = workflowInfo();
  const input: AgentRunInput = {
    version: AGENT_RUN_VERSION,
    agentId,
    prompt,
    ...(caller.principal ? { principal: caller.principal } : {}),
    ...(caller.restored ? { restored: true } : {}),
    turnCap: turnsLeft,
    parent: { workflowId },
    ...(caller.joinStream ? { joinStream: caller.joinStream } : {}),
    // A run that may not defer (a fan-out branch's) has sub-agents that may not either.
    ...(caller.deferralRefused ? { deferralRefused: caller.deferralRefused } : {}),
  };
  const childId = caller.childId ?? `${workflowId}/agent/${call.id}`;
  // While it runs, what it says of its deferrals is heard (see the run's subAgentDeferral handler).
  caller.children.add(childId);
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
    caller.spend(result.turnsUsed, result.usage);
    return { content: answerOf(result), isError: false };
  } catch (err) {
    const failure = err instanceof ChildWorkflowFailure ? err.cause : err;
    const fields = failure instanceof ApplicationFailure ? (failure.details?.[0] as { turnsUsed?: number; usage?: Usage } | undefined) : undefined;
    if (fields?.usage) caller.spend(fields.turnsUsed ?? 0, fields.usage);
    if (caller.cancelled()) throw new CancelledFailure("cancelled");
    const code = failure instanceof ApplicationFailure && failure.type ? `[${failure.type}] ` : "";
    const message = failure instanceof Error ? failure.message : String(failure);
    return { content: `Error: the agent "${agentId}" did not answer: ${message.startsWith("[") ? message : `${code}${message}`}`, isError: true };
  } finally {
    caller.children.delete(childId);
  }
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

/** Whether `runId` is one of `children`, or a sub-agent of theirs (named under it: `<child>/agent/<call>`). */
export function isDescendant(children: ReadonlySet<string>, runId: string | undefined): boolean {
  if (runId === undefined) return false;
  for (const child of children) if (runId === child || runId.startsWith(`${child}/agent/`)) return true;
  return false;
}
