import { CancellationScope, workflowInfo } from "@temporalio/workflow";
import { addUsage, type ToolCall } from "../../src/core/messages.js";
import { ownEntry } from "../../src/core/own.js";
import { DEFAULT_TOOL_RESULT_BYTES } from "../../src/core/payload-size.js";
import type { ThreadPrepared } from "../../src/core/thread-contracts.js";
import { callOccurrence } from "../../src/core/thread-transcript.js";
import { limitToolResult } from "../../src/core/tool-result-limit.js";
import { runSubAgent } from "../shared/sub-agent.js";
import type { ThreadState } from "./state.js";

/** The agent a call of the thread's model hands a task to, when it names one of the agent's sub-agents. */
export function subAgentOf(prepared: ThreadPrepared, call: ToolCall): string | undefined {
  return ownEntry(prepared.agents, call.function.name);
}

/**
 * The turns each of `calls` sub-agent calls starting now may take: the turn's budget left,
 * less one for the thread's agent to answer with what they said, shared among them (as in a run).
 */
export function subAgentTurns(thread: ThreadState, prepared: ThreadPrepared, calls: number): number {
  return calls > 0 ? Math.floor((prepared.maxTurns - thread.turnSteps - 1) / calls) : 0;
}

/**
 * The workflow id of the child a call starts: `<threadId>/agent/<toolCallId>`, as a run's,
 * with `~<n>` after the first use of a call id (a thread lives long and a model may reuse one).
 * A stopped call started again starts a new child under the same id (the first one ended cancelled).
 */
export function subAgentRunId(thread: Pick<ThreadState, "threadId" | "messages">, call: ToolCall): string {
  const occurrence = callOccurrence(thread.messages, call.id);
  return `${thread.threadId}/agent/${call.id}${occurrence > 1 ? `~${occurrence}` : ""}`;
}

/**
 * A sub-agent call of a thread's turn: the agent runs as a child workflow of the thread, as
 * a run's sub-agent does (`runSubAgent`), and its answer lands as the call's result, cut to
 * the call's share of the thread's room like a tool's. Its turns and tokens count in the
 * turn's. It runs in the turn's scope: a stop or a delete cancels the child (which denies
 * what it waits on) and the call ends with the turn.
 */
export async function callThreadSubAgent(thread: ThreadState, call: ToolCall, agentId: string, turnsLeft: number, share: number): Promise<void> {
  // The turn's own scope, caught now: a stopped turn ends before its child has, and by then the thread may run another.
  const scope = CancellationScope.current();
  const childId = subAgentRunId(thread, call);
  thread.subAgentRequests?.started(childId, call.id);
  thread.reservedBytes += share;
  let result;
  try {
    result = await runSubAgent(
      {
        principal: thread.principal,
        children: thread.subAgents,
        childId,
        // Its answers reach the thread's readers while written, when the turn streams (out of band: no action).
        ...(thread.streamEnabled && thread.turnStreamed
          ? { joinStream: { threadId: thread.threadId, runId: workflowInfo().runId, toolCallId: call.id, toolName: call.function.name } }
          : {}),
        spend: (turns, usage) => {
          thread.turnSteps += turns;
          thread.usage = addUsage(thread.usage, usage);
        },
        cancelled: () => scope.consideredCancelled || thread.deleteRequested,
      },
      call,
      agentId,
      turnsLeft,
    );
  } finally {
    thread.reservedBytes -= share;
    // What it still waited on is over: decided if it answered, denied by its cancellation if not.
    thread.subAgentRequests?.ended(thread, childId, result ? "resumed" : "denied");
  }
  thread.answer(call.id, limitToolResult(result, DEFAULT_TOOL_RESULT_BYTES, share).content);
}
