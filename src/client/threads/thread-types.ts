import type { AgentDefinition } from "../../core/define-agent.js";
import type { Decisions } from "../../core/approval.js";
import type { JsonValue, Principal } from "../../core/json.js";
import type { ChatMessage } from "../../core/messages.js";
import type {
  StreamSnapshot,
  ThreadMessage,
  ThreadResumeReply,
  ThreadSendReply,
  ThreadSnapshot,
  ThreadStopReply,
} from "../../core/thread-contracts.js";
import type { RetryState } from "./retry-state.js";

/** Who is calling; what `authorize` is asked about. */
export interface ThreadCaller {
  /** Who the call is made for: what `authorize` is asked about. */
  principal?: Principal;
}

export interface CreateThreadOptions {
  /** The agent the thread runs; defaults to the client's `agent`. */
  agent?: AgentDefinition | string;
  /** The thread's id (its workflow id). Random when absent; an id in use is refused with AI1025. */
  threadId?: string;
  /** First user message. */
  prompt?: string;
  /**
   * A transcript to start from (before `prompt`). Tool results, system messages, and an
   * assistant message ending it with tool calls (which the first turn would run) are
   * refused with AI1027 unless `trustTranscript` is set.
   */
  messages?: ChatMessage[];
  /**
   * Vouches for `messages`: they were built by your server code (a migrated conversation, a
   * template), not taken from an end user, so their tool results, system messages and open
   * tool calls are accepted as the model's and the tools' own. Never set it from request
   * input: it would let a caller forge tool output, instructions, or tool calls the thread
   * then runs. The HTTP front door never sets it.
   */
  trustTranscript?: boolean;
  /** Run a turn at once when there is something to answer. Default true; false leaves the thread idle until sendMessage or resumeThread. */
  autoStart?: boolean;
  /** Who the thread acts for: tools read it as `ctx.principal`. Plain JSON. */
  principal?: Principal;
  /** Stream answers to `streamUpdates` readers. Default true. */
  stream?: boolean;
  /**
   * Continue as new once the current run's history reaches this many events. Temporal
   * suggests it by itself (at a few thousand events or a few MB); set this to roll sooner.
   */
  maxHistoryEvents?: number;
}

/** `state`: the thread's state, with retry state of what is running. */
export interface ThreadView extends Omit<ThreadSnapshot, "toolCalls" | "modelCall" | "deleted"> {
  toolCalls: Array<ThreadSnapshot["toolCalls"][number] & { retry?: RetryState }>;
  /** The model call in flight; `retry` is set while it waits to be retried (429, 5xx, network). */
  modelCall?: { messageId: string; attempt: number; retry?: RetryState };
}

export interface ThreadSummary {
  threadId: string;
  agentId?: string;
  createdAt: string;
}

/** The options of a `ThreadHandle` method: the `ThreadsClient` method's, less what the handle binds. */
type Bound<Options> = Omit<Options, "threadId" | "principal">;

/**
 * One thread's operations, bound to its id and to the principal they are made for
 * (`threads.handle(threadId, { principal })`). Each is the `ThreadsClient` method of the
 * same name, authorized the same way on every call.
 */
export interface ThreadHandle {
  readonly threadId: string;
  /** See `ThreadsClient.sendMessage`. */
  sendMessage(options: Bound<SendMessageOptions>): Promise<ThreadSendReply>;
  /** See `ThreadsClient.addMessage`. */
  addMessage(options: Bound<AddMessageOptions>): Promise<ThreadSendReply>;
  /** See `ThreadsClient.resumeThread`. */
  resumeThread(options?: Bound<ResumeThreadOptions>): Promise<ThreadResumeReply>;
  /** See `ThreadsClient.stopThread`. */
  stopThread(): Promise<ThreadStopReply>;
  /** See `ThreadsClient.state`. */
  state(): Promise<ThreadView>;
  /**
   * See `ThreadsClient.state`.
   * @deprecated Use `state`, as on a run's handle. `getThread` goes in the next minor version.
   */
  getThread(): Promise<ThreadView>;
  /** See `ThreadsClient.listMessages`. */
  listMessages(options?: Bound<ListMessagesOptions>): Promise<MessagePage>;
  /** See `ThreadsClient.streamUpdates`. */
  streamUpdates(options?: Bound<StreamUpdatesOptions>): Promise<StreamSnapshot>;
  /** See `ThreadsClient.followUpdates`. */
  followUpdates(options?: Bound<FollowUpdatesOptions>): AsyncGenerator<StreamSnapshot>;
  /** See `ThreadsClient.settled`. */
  settled(options?: Bound<WaitUntilSettledOptions>): Promise<ThreadView>;
  /**
   * See `ThreadsClient.settled`.
   * @deprecated Use `settled`, as on a run's handle. `waitUntilSettled` goes in the next minor version.
   */
  waitUntilSettled(options?: Bound<WaitUntilSettledOptions>): Promise<ThreadView>;
  /** See `ThreadsClient.deleteThread`. */
  deleteThread(): Promise<{ deleted: true }>;
  /** See `ThreadsClient.addToolResult`. */
  addToolResult(options: Bound<AddToolResultOptions>): Promise<ToolResultReply>;
  /** See `ThreadsClient.addToolError`. */
  addToolError(options: Bound<AddToolErrorOptions>): Promise<ToolResultReply>;
}

/** `sendMessage`: the message and, to send it at most once, its id. */
export type SendMessageOptions = {
  threadId: string;
  prompt: string;
  messageId?: string;
  /**
   * `false`: this turn's answer arrives whole, as its message, with no deltas on the way, as
   * on a thread created with `stream: false`. By signal (the worker's default stream) that
   * saves an action per delta batch and the queries of the processes that follow it: a turn
   * nobody watches being written (a service's own message, a scheduled one) is then 4
   * actions whatever the answer's length. Default: the thread's own setting.
   */
  stream?: boolean;
} & ThreadCaller;
/**
 * `addMessage`: a message that does not start a turn. A `system` message needs
 * `trustTranscript: true`: set it only from server code that wrote the message itself,
 * never from end-user input (the HTTP front door never sets it).
 */
export type AddMessageOptions = { threadId: string; message: ChatMessage; messageId?: string; trustTranscript?: boolean } & ThreadCaller;
/** `resumeThread`: an optional prompt to continue with. */
export type ResumeThreadOptions = { threadId: string; prompt?: string } & ThreadCaller;
/** `listMessages`: the page to read. */
export type ListMessagesOptions = {
  threadId: string;
  cursor?: string;
  limit?: number;
  /**
   * Leave system messages out of the page (default true: chat UIs show the conversation,
   * not its instructions). Pages count stored messages, so a page may then hold fewer
   * than `limit`; `total` counts every stored message.
   */
  excludeSystemMessages?: boolean;
} & ThreadCaller;
/** `streamUpdates`: the last seq already seen. */
export type StreamUpdatesOptions = { threadId: string; fromSeq?: number } & ThreadCaller;
/** `followUpdates`: where to start, how often to poll, and when to stop. */
export type FollowUpdatesOptions = {
  threadId: string;
  fromSeq?: number;
  pollIntervalMs?: number;
  signal?: AbortSignal;
  until?: (batch: StreamSnapshot) => boolean;
} & ThreadCaller;
/** `settled`: a signal to give up waiting. */
export type WaitUntilSettledOptions = { threadId: string; signal?: AbortSignal } & ThreadCaller;
/** `decide`: the request and one decision per call it lists (by call id, or a list); `shown` is its `callFingerprint` as the approver saw it. */
export type DecideThreadOptions = { threadId: string; approvalId: string; decisions: Decisions; shown?: string } & ThreadCaller;
/**
 * Who answers an async call proves it was asked: `answerToken` is the token the callback got
 * (`ctx.answerToken`, sent in its link). Required (the key, so no caller forgets it); it may
 * be `undefined` only for calls registered before answer tokens existed, which take answers
 * without one.
 */
export type AnswerTokenOption = { answerToken: string | undefined };
/** `addToolResult`: the async call answered and its result. */
export type AddToolResultOptions = { threadId: string; toolCallId: string; result: JsonValue } & AnswerTokenOption & ThreadCaller;
/** `addToolError`: the async call answered and its failure. */
export type AddToolErrorOptions = { threadId: string; toolCallId: string; error: string } & AnswerTokenOption & ThreadCaller;
/** A page of the transcript (`listMessages`). */
export interface MessagePage {
  messages: ThreadMessage[];
  total: number;
  /** Pass it for the next page; absent on the last one. */
  cursor?: string;
}
/** What `addToolResult` and `addToolError` answer. */
export interface ToolResultReply {
  status: "accepted" | "duplicate";
  toolCallId: string;
}
