import type { AgentDefinition } from "../../core/define-agent.js";
import type { ResumeResult } from "../resume.js";
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
import type { Caller } from "../authorize.js";
import type { DecideOptions, FollowUpdatesOptions, ListMessagesOptions, StreamUpdatesOptions } from "../shared-options.js";

/** Which thread a `ThreadsClient` method acts on, and for whom (`authorize` is asked about `principal`). */
export interface ThreadTarget extends Caller {
  /** The thread's id (its workflow id). */
  threadId: string;
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

/** `listThreads`: which page. */
export interface ListThreadsOptions extends Caller {
  /** From the previous page. */
  cursor?: string;
  /** Rows to look at for this page (default 50): a page may hold fewer once `authorize` filtered them, and still have a next. */
  limit?: number;
}

/**
 * One thread's operations, bound to its id and to the principal they are made for
 * (`threads.handle(threadId, { principal })`). Each is the `ThreadsClient` method of the
 * same name with the same options less the `ThreadTarget`, authorized the same way on every call.
 */
export interface ThreadHandle {
  readonly threadId: string;
  /** See `ThreadsClient.sendMessage`. */
  sendMessage(options: SendMessageOptions): Promise<ThreadSendReply>;
  /** See `ThreadsClient.addMessage`. */
  addMessage(options: AddMessageOptions): Promise<ThreadSendReply>;
  /** See `ThreadsClient.resumeThread`. */
  resumeThread(options?: ResumeThreadOptions): Promise<ThreadResumeReply>;
  /** See `ThreadsClient.stopThread`. */
  stopThread(): Promise<ThreadStopReply>;
  /** See `ThreadsClient.state`. */
  state(): Promise<ThreadView>;
  /** See `ThreadsClient.listMessages`. */
  listMessages(options?: ListThreadMessagesOptions): Promise<MessagePage>;
  /** See `ThreadsClient.streamUpdates`. */
  streamUpdates(options?: StreamUpdatesOptions): Promise<StreamSnapshot>;
  /** See `ThreadsClient.followUpdates`. */
  followUpdates(options?: FollowUpdatesOptions): AsyncGenerator<StreamSnapshot>;
  /** See `ThreadsClient.settled`. */
  settled(options?: ThreadSettledOptions): Promise<ThreadView>;
  /** See `ThreadsClient.decide`. */
  decide(options: DecideOptions): Promise<ResumeResult>;
  /** See `ThreadsClient.deleteThread`. */
  deleteThread(): Promise<{ deleted: true }>;
  /** See `ThreadsClient.addToolResult`. */
  addToolResult(options: AddToolResultOptions): Promise<ToolResultReply>;
  /** See `ThreadsClient.addToolError`. */
  addToolError(options: AddToolErrorOptions): Promise<ToolResultReply>;
}

/** `sendMessage`: the message and, to send it at most once, its id. */
export interface SendMessageOptions {
  /** The user's message. */
  prompt: string;
  /** The message's id: the same id twice sends once. Random when absent. */
  messageId?: string;
  /**
   * `false`: this turn's answer arrives whole, as its message, with no deltas on the way, as
   * on a thread created with `stream: false`. By signal (the worker's default stream) that
   * saves an action per delta batch and the queries of the processes that follow it: a turn
   * nobody watches being written (a service's own message, a scheduled one) is then 4
   * actions whatever the answer's length. Default: the thread's own setting.
   */
  stream?: boolean;
}
/**
 * `addMessage`: a message that does not start a turn. A `system` message needs
 * `trustTranscript: true`: set it only from server code that wrote the message itself,
 * never from end-user input (the HTTP front door never sets it).
 */
export interface AddMessageOptions {
  message: ChatMessage;
  /** The message's id: the same id twice adds once. Random when absent. */
  messageId?: string;
  trustTranscript?: boolean;
}
/** `resumeThread`: an optional prompt to continue with. */
export interface ResumeThreadOptions {
  prompt?: string;
}
/** A thread's `listMessages`: the page, and whether to show system messages. */
export interface ListThreadMessagesOptions extends ListMessagesOptions {
  /**
   * Leave system messages out of the page (default true: chat UIs show the conversation,
   * not its instructions). Pages count stored messages, so a page may then hold fewer
   * than `limit`; `total` counts every stored message.
   */
  excludeSystemMessages?: boolean;
}
/** A thread's `settled`: a signal to give up waiting. */
export interface ThreadSettledOptions {
  /** Gives up waiting: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}
/**
 * `addToolResult`: the async call answered and its result. Who answers proves it was asked:
 * `answerToken` is the token the callback got (`ctx.answerToken`, sent in its link).
 * Required (the key, so no caller forgets it); it may be `undefined` only for calls
 * registered before answer tokens existed, which take answers without one.
 */
export interface AddToolResultOptions {
  toolCallId: string;
  result: JsonValue;
  answerToken: string | undefined;
}
/** `addToolError`: the async call answered and its failure (`answerToken` as for `addToolResult`). */
export interface AddToolErrorOptions {
  toolCallId: string;
  error: string;
  answerToken: string | undefined;
}
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
