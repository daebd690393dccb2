import type { ResumeResult } from "../client/resume.js";
import type { DecideOptions } from "../client/shared-options.js";
import type { ThreadResumeReply, ThreadSendReply, ThreadStopReply } from "../core/thread-contracts.js";
import type { AddToolErrorOptions, AddToolResultOptions, ResumeThreadOptions, SendMessageOptions, ToolResultReply } from "../client/threads/thread-types.js";
import { useThreadMessages, type ThreadMessagesResult, type UseThreadMessagesOptions } from "./use-thread-messages.js";
import type { RespondOptions } from "../core/approval.js";

/** `useAgentChat` options: those of `useThreadMessages`. */
export type UseAgentChatOptions = UseThreadMessagesOptions;

/** What `useAgentChat` returns: the thread as `useThreadMessages` shows it, and its actions, named as a `ThreadHandle`'s. */
export interface AgentChatResult extends Omit<ThreadMessagesResult, "store"> {
  /** Sends a message (a turn, or queued behind the running one). Sent once even if retried. */
  sendMessage(options: SendMessageOptions): Promise<ThreadSendReply>;
  /** Stops the turn: the model request and tools are aborted, the partial answer dropped. */
  stopThread(): Promise<ThreadStopReply>;
  /** Continues a stopped or failed turn, or moves on with `prompt`. */
  resumeThread(options?: ResumeThreadOptions): Promise<ThreadResumeReply>;
  /** Answers an async tool call; `answerToken` is the one its callback handed out (see docs/threads.md). */
  addToolResult(options: AddToolResultOptions): Promise<ToolResultReply>;
  /** Fails an async tool call; the model sees the error. */
  addToolError(options: AddToolErrorOptions): Promise<ToolResultReply>;
  /**
   * Approves every call of an approval request (`approvals[i].approvalId`): they run, and the
   * turn goes on. Authorized as `thread.decide`; the thread answers at once (`resumed`, or
   * `duplicate` when it was decided already) and the stream shows the calls' results.
   */
  approve(options: { approvalId: string; note?: string }): Promise<ResumeResult>;
  /** Rejects every call of an approval request: none runs, and the model reads `reason`. */
  reject(options: { approvalId: string; reason?: string }): Promise<ResumeResult>;
  /** Answers in the tools' place: each call `results` names gets that result and its tool never runs; the request's other calls are rejected with `reason`. */
  respond(options: RespondOptions): Promise<ResumeResult>;
  /** Decides a request call by call: `{ [toolCallId]: { approved: true, input? } | { approved: false, reason? } | { respond: result } }` (or a list). An edited `input` must fit the tool's schema, a result its `resultSchema` (RC5049). */
  decide(options: DecideOptions): Promise<ResumeResult>;
}

/**
 * A thread's chat: what `useThreadMessages` shows, plus the actions. Each action is one
 * request to the front door; its effect arrives over the event stream, so every tab on
 * the thread shows it the same way. A refused action rejects and sets `error`.
 */
export function useAgentChat(options: UseAgentChatOptions): AgentChatResult {
  const { store, ...view } = useThreadMessages(options);
  return {
    ...view,
    sendMessage: store.sendMessage,
    stopThread: store.stopThread,
    resumeThread: store.resumeThread,
    addToolResult: store.addToolResult,
    addToolError: store.addToolError,
    approve: store.approve,
    reject: store.reject,
    respond: store.respond,
    decide: store.decide,
  };
}
