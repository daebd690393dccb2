import { CancellationScope, condition, uuid4, workflowInfo } from "@temporalio/workflow";
import { isDigest } from "../../src/core/proof.js";
import type { ToolCall } from "../../src/core/messages.js";
import { ownEntry } from "../../src/core/own.js";
import type { ThreadPrepared } from "../../src/core/thread-contracts.js";
import { callOccurrence, openToolCalls } from "../../src/core/thread-transcript.js";
import type { AgentSteps } from "../shared/agent-steps.js";
import { deniedByPolicy, permittedCalls, type Approved } from "../approvals/requests.js";
import type { ThreadState } from "./state.js";
import { callThreadSubAgent, subAgentOf, subAgentRunId, subAgentTurns } from "./sub-agents.js";

/**
 * Runs the open calls of the turn: sync tools to their result, async tools' callbacks to
 * their end. Returns once every call has a result, or early to roll over while only
 * async results are awaited (nothing runs then, and the calls are carried).
 */
export async function runTools(thread: ThreadState, prepared: ThreadPrepared, open: ToolCall[], steps: AgentSteps): Promise<"done" | "rollover"> {
  const failures: unknown[] = [];
  const batch = new CancellationScope();
  const started: Array<Promise<void>> = [];
  // Calls of gated tools wait for a person's decision before anything of theirs runs.
  const gated = thread.approvals ? thread.approvals.gated(thread, prepared, open, thread.lastGate) : [];
  // Calls a policy denied run nothing and wait for nobody: the model reads why.
  const denied = deniedByPolicy(prepared, open, thread.lastGate).filter(({ call }) => !thread.answered(call.id) && !thread.running.has(call.id));
  // Calls a standing permission lets run go with it as their approval; one revoked or lapsed meanwhile runs nothing.
  const permits = thread.approvals ? permittedCalls(prepared, thread.approvals.book.records.list, open, thread.lastGate, thread.principal).filter(({ call }) => !thread.answered(call.id) && !thread.running.has(call.id)) : [];
  for (const permit of permits) if ("content" in permit) denied.push(permit);
  const byPermit = new Map(permits.flatMap((p) => ("approved" in p ? [[p.call.id, p.approved] as const] : [])));
  for (const { call, content } of denied) thread.answer(call.id, content);
  open = open.filter((call) => !denied.some((d) => d.call === call));
  // The sync calls starting now share the room left for results; each share stays reserved until its result lands.
  const starting = open.filter(
    (call) => !gated.includes(call) && !thread.running.has(call.id) && !thread.held.has(call.id) && !ownEntry(prepared.tools, call.function.name)?.async && !thread.asyncCalls.has(call.id),
  );
  const share = thread.room.share(starting.length);
  // Sub-agents share the turn's turns left, as a run's do.
  const childTurns = subAgentTurns(thread, prepared, starting.filter((call) => subAgentOf(prepared, call) !== undefined).length);
  if (gated.length > 0) {
    const approved = (call: ToolCall, decision: Approved) => runCall(thread, call, ownEntry(prepared.tools, call.function.name), steps, thread.room.share(gated.length), decision);
    started.push(batch.run(() => thread.approvals!.decide(thread, prepared, gated, thread.lastGate, approved)).catch((err: unknown) => void failures.push(err)));
  }
  for (const call of open) {
    if (gated.includes(call) || thread.running.has(call.id) || thread.held.has(call.id)) continue;
    const spec = ownEntry(prepared.tools, call.function.name);
    const asyncState = thread.asyncCalls.get(call.id);
    if (spec?.async || asyncState) {
      if (asyncState?.callbackDone) continue;
      // Registered before anything awaits, so a result arriving early is recognised (and
      // refused until the callback hands over its answer token's digest).
      thread.asyncCalls.set(call.id, { toolCallId: call.id, name: call.function.name, callbackDone: false });
    }
    const agentId = spec ? undefined : subAgentOf(prepared, call);
    const child = agentId !== undefined ? { agentId, turns: childTurns } : undefined;
    started.push(batch.run(() => runCall(thread, call, spec, steps, share, byPermit.get(call.id), child)).catch((err: unknown) => void failures.push(err)));
  }
  const allAnswered = () => openToolCalls(thread.messages).length === 0;
  // Once only async answers are awaited (they may take days), roll over when due: judged
  // first in the activation that ended the last running call, then at each wake-up.
  for (let wake = () => true; ; wake = thread.rollover.wake()) {
    await condition(() => failures.length > 0 || allAnswered() || (thread.running.size === 0 && wake()));
    if (failures.length > 0 || allAnswered() || thread.rollover.due()) break;
  }
  if (failures.length > 0) {
    batch.cancel();
    await Promise.all(started);
    throw failures[0];
  }
  return allAnswered() ? "done" : "rollover";
}

async function runCall(
  thread: ThreadState,
  call: ToolCall,
  spec: ThreadPrepared["tools"][string] | undefined,
  steps: AgentSteps,
  share: number,
  approved?: Approved,
  child?: { agentId: string; turns: number },
) {
  const kind = thread.asyncCalls.has(call.id) ? "async" : "sync";
  // A sub-agent's call shows its child's workflow id where a tool's shows its activity's.
  const activityId = child ? subAgentRunId(thread, call) : `tool-${call.id}-${uuid4().slice(0, 8)}`;
  const maxAttempts = spec?.maxAttempts ?? 1;
  const occurrence = callOccurrence(thread.messages, call.id);
  const stepCall = {
    host: "thread" as const,
    agentId: thread.agentId,
    workflowId: thread.threadId,
    taskQueue: workflowInfo().taskQueue,
    toolCall: call,
    ...(thread.principal ? { principal: thread.principal } : {}),
    ...(occurrence > 1 ? { occurrence } : {}),
    // Only where readers get no deltas: the worker then drops the call's progress instead of publishing it.
    ...(thread.streamEnabled && thread.turnStreamed ? {} : { streamed: false as const }),
  };
  thread.running.set(call.id, { activityId, kind, maxAttempts });
  try {
    if (child) return await callThreadSubAgent(thread, call, child.agentId, child.turns, share);
    if (kind === "sync") {
      thread.reservedBytes += share;
      let out;
      try {
        out = await steps.callTool({ ...stepCall, maxResultBytes: share, ...(approved ? { approved } : {}) }, activityId);
      } finally {
        thread.reservedBytes -= share;
      }
      if ("content" in out) thread.answer(call.id, out.content);
      return;
    }
    const out = await steps.callTool({ ...stepCall, start: true, firstRunId: thread.firstRunId }, activityId);
    const state = thread.asyncCalls.get(call.id);
    if ("started" in out && out.started) {
      if (state) {
        state.callbackDone = true;
        if (isDigest(out.digest)) state.digest = out.digest;
      }
      // A callback that handed out no usable token: nobody could answer this call, so the
      // model hears it failed rather than the thread waiting forever.
      if (state && state.digest === undefined) {
        thread.answer(call.id, `Error: "${call.function.name}" could not be started: its worker handed out no answer token (upgrade the worker that runs its callback).`);
      }
    } else if ("content" in out) {
      thread.answer(call.id, out.content);
    }
  } finally {
    // A stopped call may end after the next turn started it again: leave that one's entry alone.
    if (thread.running.get(call.id)?.activityId === activityId) thread.running.delete(call.id);
  }
}
