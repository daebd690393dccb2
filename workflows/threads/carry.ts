import { AGENT_THREAD_VERSION, type ThreadCarry, type ThreadInput } from "../../src/core/thread-contracts.js";
import type { ThreadState } from "./state.js";

/**
 * The input of the thread's next run: everything it holds (transcript, inbox, pending
 * async calls, stream position), for continue-as-new. `new ThreadState` reads it back.
 */
export function nextRunInput(thread: ThreadState): ThreadInput {
  return {
    version: AGENT_THREAD_VERSION,
    agentId: thread.agentId,
    stream: thread.streamEnabled,
    carried: carryOf(thread),
    ...(thread.principal ? { principal: thread.principal } : {}),
    ...(thread.maxHistoryEvents !== undefined ? { maxHistoryEvents: thread.maxHistoryEvents } : {}),
  };
}

function carryOf(thread: ThreadState): ThreadCarry {
  return {
    status: thread.status,
    halted: thread.halted,
    messages: thread.messages,
    inbox: thread.inbox,
    asyncCalls: [...thread.asyncCalls.values()],
    held: [...thread.held].map(([toolCallId, content]) => ({ toolCallId, content })),
    turnSteps: thread.turnSteps,
    ...(thread.turnStreamed ? {} : { turnStreamed: false as const }),
    modelCalls: thread.modelCalls,
    usage: thread.usage,
    ...(thread.lastError ? { lastError: thread.lastError } : {}),
    generation: thread.generation,
    stream: thread.stream.carry(),
    createdAt: thread.createdAt,
    updatedAt: thread.updatedAt,
    ...(thread.approvals && thread.approvals.book.records.list.length > 0 ? { records: thread.approvals.book.records.list } : {}),
    ...(thread.archive.length > 0 ? { archive: thread.archive } : {}),
  };
}
