import { CancellationScope, workflowInfo } from "@temporalio/workflow";
import { addUsage, type ToolCall } from "../../src/core/messages.js";
import { ownEntry } from "../../src/core/own.js";
import { DEFAULT_TOOL_RESULT_BYTES } from "../../src/core/payload-size.js";
import { parseDeferralId } from "../../src/core/deferral-id.js";
import { subAgentDeferralProblem } from "../../src/core/request-shapes.js";
import type { PendingApproval, ThreadPrepared } from "../../src/core/thread-contracts.js";
import type { SubAgentDeferral } from "../../src/core/wire/run.js";
import { callOccurrence } from "../../src/core/thread-transcript.js";
import { limitToolResult } from "../../src/core/tool-result-limit.js";
import { isDescendant, runSubAgent } from "../shared/sub-agent.js";
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

/**
 * The approval requests of the sub-agents a turn runs (their gated tools, or their own
 * sub-agents'): each child tells the thread by signal when it parks on one and when it moves
 * on, as it tells a run. The thread shows them with its own (`state().approvals`, the
 * stream's `approval-request` / `approval-decided` entries, marked with `subAgent`); the
 * request itself stays the child's, decided through `threads.decide`, the inbox or its token.
 * Nothing is carried: the thread does not continue as new while a child runs.
 */
export class SubAgentRequests {
  /** The running children's workflow ids, with the thread's call each answers. */
  readonly #calls = new Map<string, string>();
  readonly #pending = new Map<string, PendingApproval & { child: string }>();

  started(childId: string, toolCallId: string): void {
    this.#calls.set(childId, toolCallId);
  }

  /** A signal from a child (or one of its own): heard only from the children running now, and only when well formed. */
  heard(thread: Pick<ThreadState, "stream">, message: SubAgentDeferral): void {
    if (subAgentDeferralProblem(message) !== undefined) return;
    const runId = parseDeferralId(message.deferralId)?.runId;
    const child = [...this.#calls.keys()].find((id) => isDescendant(new Set([id]), runId));
    if (child === undefined || runId === undefined) return;
    if (message.status === "deferred") {
      // A child's ctx.defer() is no approval: its token is its tool's to hand out.
      if (!message.calls || this.#pending.has(message.deferralId)) return;
      const view: PendingApproval = { approvalId: message.deferralId, calls: message.calls, expiresAt: message.expiresAt, subAgent: { agentId: message.agentId, runId, toolCallId: this.#calls.get(child)! } };
      this.#pending.set(message.deferralId, { ...view, child });
      thread.stream.push({ type: "approval-request", ...view });
      return;
    }
    if (this.#pending.delete(message.deferralId)) thread.stream.push({ type: "approval-decided", approvalId: message.deferralId, outcome: message.status });
  }

  /** The pending requests, as `state().approvals` lists them after the thread's own. */
  views(): PendingApproval[] {
    return [...this.#pending.values()].map(({ child: _child, ...view }) => view);
  }

  /** The request a call of the thread waits on through its sub-agent, if any. */
  requestOf(toolCallId: string): string | undefined {
    return [...this.#pending.values()].find((p) => p.subAgent?.toolCallId === toolCallId)?.approvalId;
  }

  /** The child's call ended: readers are told its requests are over, whatever signal is still on its way. */
  ended(thread: Pick<ThreadState, "stream">, childId: string, outcome: "resumed" | "denied"): void {
    this.#calls.delete(childId);
    for (const [id, request] of this.#pending) {
      if (request.child !== childId) continue;
      this.#pending.delete(id);
      thread.stream.push({ type: "approval-decided", approvalId: id, outcome });
    }
  }
}
