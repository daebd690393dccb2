import type { ChatMessage } from "../../src/core/messages.js";
import type { StreamSnapshot, ThreadMessagePage, ThreadSnapshot } from "../../src/core/thread-contracts.js";
import { openToolCalls, toChat } from "../../src/core/thread-transcript.js";
import type { ThreadState } from "./state.js";
import { ownEntry } from "../../src/core/own.js";
import { MAX_PAGE_MESSAGES, pageOf } from "../../src/core/payload-size.js";

/** What readers of a thread see, by query: nothing here changes the thread or its history. */
export class ThreadQueries {
  constructor(private readonly thread: ThreadState) {}

  snapshot(): ThreadSnapshot {
    const thread = this.thread;
    const pending = thread.approvals?.pending();
    return {
      threadId: thread.threadId,
      agentId: thread.agentId,
      status: thread.status,
      createdAt: thread.createdAt,
      updatedAt: thread.updatedAt,
      ...(thread.principal ? { principal: thread.principal } : {}),
      messageCount: thread.messages.length,
      queued: thread.inbox.map((i) => ({ id: i.id, kind: i.kind, at: i.at })),
      toolCalls: openToolCalls(thread.messages).map((call) => {
        const running = thread.running.get(call.id);
        const waiting = thread.asyncCalls.get(call.id);
        const spec = ownEntry(thread.prepared?.tools, call.function.name);
        const async = running?.kind === "async" || waiting !== undefined || spec?.async === true;
        const maxAttempts = running?.maxAttempts ?? spec?.maxAttempts;
        // A sub-agent's call waits on its child's request as a gated call waits on the thread's.
        const approvalId = pending?.approval?.calls.some((c) => c.toolCallId === call.id) ? pending.id : thread.subAgentRequests?.requestOf(call.id);
        return {
          toolCallId: call.id,
          name: call.function.name,
          kind: async ? "async" : "sync",
          state: thread.held.has(call.id) ? "answered" : running ? "running" : approvalId ? "awaiting_approval" : waiting?.callbackDone ? "waiting" : "pending",
          ...(approvalId ? { approvalId } : {}),
          ...(running ? { activityId: running.activityId } : {}),
          ...(maxAttempts !== undefined ? { maxAttempts } : {}),
        };
      }),
      ...(thread.modelCall ? { modelCall: thread.modelCall } : {}),
      ...(thread.lastError ? { lastError: thread.lastError } : {}),
      ...(thread.compactionError ? { compactionError: thread.compactionError } : {}),
      usage: thread.usage,
      modelCalls: thread.modelCalls,
      generation: thread.generation,
      lastSeq: thread.stream.lastSeq,
      stream: thread.streamEnabled,
      deleted: thread.deleteRequested,
      approvals: [...(thread.approvals?.views() ?? []), ...(thread.subAgentRequests?.views() ?? [])],
    };
  }

  /** One page of the transcript, cut by count and bytes; offset and limit are clamped, never refused. */
  messages({ offset, limit }: { offset: number; limit: number }): ThreadMessagePage {
    const from = Math.max(0, Math.floor(Number(offset) || 0));
    const size = Math.min(MAX_PAGE_MESSAGES, Math.max(1, Math.floor(Number(limit) || 100)));
    // Offsets count the messages compaction archived first: a page among them says where they are.
    const archived = this.thread.archivedCount();
    const total = archived + this.thread.messages.length;
    if (from < archived) return { messages: [], total, archive: this.thread.archive };
    return { messages: pageOf(this.thread.messages, from - archived, size), total };
  }

  /** Stream updates after `fromSeq`. */
  stream(fromSeq: number): StreamSnapshot {
    return this.thread.stream.since(this.thread.threadId, this.thread.status, Number(fromSeq));
  }

  /** The first `length` messages as the model sees them, or a page of them: what a worker whose cache missed reads. */
  transcript(length: number, page?: { offset: number; limit: number }): ChatMessage[] {
    if (!page) return this.thread.messages.slice(0, length).map(toChat);
    const size = Math.max(1, Math.min(page.limit, MAX_PAGE_MESSAGES));
    return pageOf(this.thread.messages.slice(page.offset, Math.min(length, page.offset + size)).map(toChat), 0, size);
  }
}
