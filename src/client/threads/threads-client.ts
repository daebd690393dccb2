import type { Client } from "@temporalio/client";
import type { StreamSnapshot, ThreadResumeReply, ThreadSendReply, ThreadStopReply } from "../../core/thread-contracts.js";
import { InvalidDefinitionError } from "../../core/errors/setup.js";
import { resolveDeferralConfig, type DeferralConfig } from "../../deferral/config.js";
import type { AgentDefinition } from "../../core/define-agent.js";
import type { ResumeResult } from "../resume.js";
import type { AuthorizeHook } from "../authorize.js";
import { connect, type ClientConnectionOptions } from "../connection.js";
import { agentIdOf, ThreadAccess, type ThreadWorkflowHandle } from "./thread-access.js";
import type {
  AddMessageOptions,
  AddToolErrorOptions,
  AddToolResultOptions,
  CreateThreadOptions,
  ListThreadMessagesOptions,
  ListThreadsOptions,
  MessagePage,
  ResumeThreadOptions,
  SendMessageOptions,
  ThreadHandle,
  ThreadSettledOptions,
  ThreadSummary,
  ThreadTarget,
  ThreadView,
  ToolResultReply,
} from "./thread-types.js";
import type { Caller } from "../authorize.js";
import type { DecideOptions, FollowUpdatesOptions, StreamUpdatesOptions } from "../shared-options.js";
import { createThread } from "./create-thread.js";
import { addMessage, sendMessage } from "./send-message.js";
import { resumeThread, stopThread } from "./resume-thread.js";
import { threadState } from "./thread-state.js";
import { listMessages } from "./list-messages.js";
import { followUpdates, openStream, readStatusLine, readStream, streamUpdates } from "./stream-updates.js";
import { settleThread } from "./settle-thread.js";
import { listThreads } from "./list-threads.js";
import { deleteThread } from "./delete-thread.js";
import { decideThread } from "./thread-decide.js";
import { addToolError, addToolResult } from "./tool-results.js";
import { defaultStreamTransport } from "../../stream/default.js";
import { isStreamTransport, type StreamTransport } from "../../stream/transport.js";

export interface ThreadsClientOptions extends ClientConnectionOptions {
  /** The agent new threads run unless `createThread` names another. */
  agent?: AgentDefinition | string;
  /**
   * Asked before every call, with the operation (`thread.create`, `thread.send`,
   * `thread.toolResult`, …; see `ThreadOperation`), the thread and the caller's `principal`.
   * Only an exact `true` allows; anything else refuses with AI1021 and nothing is read or
   * changed. `listThreads` shows only the threads it allows (`thread.list`, per row).
   * Without it, everything is allowed.
   */
  authorize?: AuthorizeHook;
  /**
   * The deferral secrets the workers share: `decide` mints an approval request's token with
   * them (it never enters history). Without it `decide` refuses with RC5040.
   */
  deferral?: DeferralConfig;
  /** How readers in this process hear threads' live entries. */
  stream?: ClientStreamOptions;
}

/** How a client's readers (`followUpdates`, the events route) hear threads' live entries. */
export interface ClientStreamOptions {
  /**
   * The transport the workers publish on (`createAgentWorker({ threads: { stream: { transport } } })`).
   * Default: the transport `createAgentWorker` uses by default (a `directStreamTransport`
   * with this client's payload codecs): readers hear workers in this process in-process,
   * connect to workers elsewhere, and take the deltas by-signal workers put in history.
   * Workers they cannot reach are followed by their messages and statuses, without deltas.
   */
  transport?: StreamTransport;
}

/**
 * Long-lived chat threads. Each thread is one workflow with an inbox: messages run the
 * agent loop as turns, messages sent meanwhile queue, a stop interrupts the turn at once,
 * async tools wait for results added later, and readers stream the answer as it is written.
 * Each verb lives in a file of its own beside this one; the class holds the connection and
 * hands it to them.
 */
// The console (src/http/console) asks a client's hook per listed row and per page, as the client's own verbs do.
const accesses = new WeakMap<ThreadsClient, ThreadAccess>();

/** @internal The hook and connection a threads client reads with. Not part of the public API. */
export function threadAccessOf(threads: ThreadsClient): ThreadAccess {
  return accesses.get(threads)!;
}

export class ThreadsClient {
  readonly client: Client;
  readonly taskQueue: string;
  /** Where this client's readers hear live entries (see {@link ClientStreamOptions}). */
  readonly streamTransport: StreamTransport;
  readonly #access: ThreadAccess;

  constructor(options: ThreadsClientOptions) {
    const connected = connect(options, "ThreadsClient");
    ({ client: this.client, taskQueue: this.taskQueue } = connected);
    this.streamTransport = clientStreamTransport(options.stream, this.client);
    this.#access = new ThreadAccess(
      this.client,
      this.taskQueue,
      { timeoutMs: connected.queryTimeoutMs, taskQueue: connected.taskQueue },
      agentIdOf(options.agent),
      options.authorize,
      options.deferral ? resolveDeferralConfig(options.deferral).secrets : undefined,
    );
    accesses.set(this, this.#access);
  }

  /**
   * Starts a thread. With a prompt (and autoStart) its first turn starts right away.
   * Authorized as `thread.create` (AI1021), after the options are checked and before
   * anything is started.
   */
  createThread(options: CreateThreadOptions = {}): Promise<{ threadId: string; messageId?: string }> {
    return createThread(this.#access, options);
  }

  /**
   * Sends a user message. While a turn runs it waits in the inbox (`queued: true`) and
   * gets its own turn after; on a stopped or failed thread it moves on from the
   * interrupted turn. The same `messageId` twice sends once.
   */
  sendMessage(options: ThreadTarget & SendMessageOptions): Promise<ThreadSendReply> {
    return sendMessage(this.#access, options);
  }

  /**
   * Adds a message without running the agent (user, assistant without tool calls, or, with
   * `trustTranscript: true`, system). Queued while a turn runs. Tool results come only
   * through addToolResult.
   */
  addMessage(options: ThreadTarget & AddMessageOptions): Promise<ThreadSendReply> {
    return addMessage(this.#access, options);
  }

  /**
   * Continues a stopped or failed thread where it was: tools that were cut off run
   * again, an unanswered message is answered, then the inbox. A prompt joins first (or
   * after the interrupted tools). AI1024 when there is nothing to continue and no prompt.
   */
  resumeThread(options: ThreadTarget & ResumeThreadOptions): Promise<ThreadResumeReply> {
    return resumeThread(this.#access, options);
  }

  /** Stops the running turn: its model request and tools are cancelled at once. A thread with nothing running is left as it is. */
  stopThread(options: ThreadTarget): Promise<ThreadStopReply> {
    return stopThread(this.#access, options);
  }

  /**
   * The thread's state: status, queue, open tool calls with their retry state, last error,
   * usage. Named as a run's read is (`agents.state({ runId })`, `RunHandle.state()`).
   */
  state(options: ThreadTarget): Promise<ThreadView> {
    return threadState(this.#access, options);
  }

  /** A page of the transcript, oldest first. Pass the returned `cursor` for the next page; none means the end. */
  listMessages(options: ThreadTarget & ListThreadMessagesOptions): Promise<MessagePage> {
    return listMessages(this.#access, options);
  }

  /**
   * Stream entries after `fromSeq` (text and tool-input deltas of the answer being
   * written, messages, status changes). Costs no history: poll it, passing the returned
   * `lastSeq` as the next `fromSeq`, from any process.
   */
  streamUpdates(options: ThreadTarget & StreamUpdatesOptions): Promise<StreamSnapshot> {
    return streamUpdates(this.#access, options);
  }

  /**
   * Follows the stream: yields every batch of new entries until `signal` aborts or
   * `until` returns true for a batch. Authorizes once, then reads through the process's
   * shared poller of the thread (one read per interval and thread, however many follow it,
   * and only after the thread's history moved).
   */
  followUpdates(options: ThreadTarget & FollowUpdatesOptions): AsyncGenerator<StreamSnapshot> {
    return followUpdates(this.#access, this, options);
  }

  /** @internal Authorizes a reader of the thread's stream and checks the thread exists, without a billed query. */
  openStream(options: ThreadTarget): Promise<void> {
    return openStream(this.#access, options);
  }

  /** @internal */
  readStatusLine(threadId: string, via: Client): Promise<string | undefined> {
    return readStatusLine(this.#access, threadId, via);
  }

  /**
   * @internal One read of the stream for the shared poller, on `via` (its fail-fast
   * client), bounded and translated as every read of this client is.
   */
  readStream(threadId: string, fromSeq: number, via: Client): Promise<StreamSnapshot> {
    return readStream(this.#access, threadId, fromSeq, via);
  }

  /**
   * Waits until nothing runs: the turn (and every queued message) is done, or the thread
   * stopped or failed, and answers its state. Only reads (no history). Named as a run's
   * wait is (`RunHandle.settled()`).
   */
  settled(options: ThreadTarget & ThreadSettledOptions): Promise<ThreadView> {
    return settleThread(this.#access, options);
  }

  /**
   * Threads on this task queue, newest first, that `authorize` allows (`thread.list`, asked
   * per row: a page may hold fewer than `limit`, even none, and still have a next one).
   * Pass `cursor` for the next page.
   */
  listThreads(options: ListThreadsOptions = {}): Promise<{ threads: ThreadSummary[]; cursor?: string }> {
    return listThreads(this.#access, options);
  }

  /**
   * Deletes the thread: running work is cancelled, the workflow ends, and its history is
   * deleted. AI1020 when there is no such thread. When the server refuses to delete the
   * history (a permission, say), its error is thrown; the thread has ended by then, and
   * calling again deletes its history.
   */
  deleteThread(options: ThreadTarget): Promise<{ deleted: true }> {
    return deleteThread(this.#access, options);
  }

  /**
   * Decides a thread's approval request (its id is `approvals[].approvalId` of `state`,
   * or the stream's `approval-request` entry), one decision per call it lists: approved
   * (with `input` to run it edited) or rejected (with a `reason` the model reads). Needs the
   * client's `deferral: { secret }` (RC5040 before anything else; `agents.threads` shares its
   * AgentClient's). Authorized as `thread.get` before the request is read (a caller refused
   * it gets AI1021 whether or not the id exists, and nothing is read), then as
   * `thread.decide` (the hook sees the calls, their meta and the decisions: "only a
   * manager decides a payout" is one line), then checked by the thread like any resume:
   * RC5049 for decisions that do not fit (nothing spent), a second decision reads the
   * first's outcome as `duplicate`. The thread goes on at once (`outcome: accepted`): follow
   * it with `settled` or its stream.
   */
  decide(options: ThreadTarget & DecideOptions): Promise<ResumeResult> {
    return decideThread(this.#access, options);
  }

  /**
   * The result of an async tool call, by its tool call id, with the call's `answerToken`
   * (`ctx.answerToken` in the callback). Only the token's proof is sent; the thread refuses
   * (RC5041, changing nothing) an answer without the token or with another one, whoever
   * `authorize` lets in, and one that comes before the callback finished (`retryLater`:
   * send it again shortly). A second result for the same call answers `duplicate` and
   * changes nothing; an id no async call waits on is AI1022.
   */
  addToolResult(options: ThreadTarget & AddToolResultOptions): Promise<ToolResultReply> {
    return addToolResult(this.#access, options);
  }

  /** The failure of an async tool call; the model reads it as a tool error. Duplicates and unknown ids as for addToolResult. */
  addToolError(options: ThreadTarget & AddToolErrorOptions): Promise<ToolResultReply> {
    return addToolError(this.#access, options);
  }

  /**
   * A handle on an existing thread: its operations bound to `threadId` and, when given, to
   * `principal`, e.g. the signed-in user of a request. Every call is authorized as it is
   * made, as the client's own methods are; the handle itself reads and checks nothing.
   */
  handle(threadId: string, caller: Caller = {}): ThreadHandle {
    if (typeof threadId !== "string" || threadId === "") {
      throw new InvalidDefinitionError({ subject: "threads.handle", problem: "threadId must be a non-empty string" });
    }
    const bound = { threadId, ...(caller.principal !== undefined ? { principal: caller.principal } : {}) };
    return {
      threadId,
      sendMessage: (options) => this.sendMessage({ ...options, ...bound }),
      addMessage: (options) => this.addMessage({ ...options, ...bound }),
      resumeThread: (options = {}) => this.resumeThread({ ...options, ...bound }),
      stopThread: () => this.stopThread(bound),
      state: () => this.state(bound),
      listMessages: (options = {}) => this.listMessages({ ...options, ...bound }),
      streamUpdates: (options = {}) => this.streamUpdates({ ...options, ...bound }),
      followUpdates: (options = {}) => this.followUpdates({ ...options, ...bound }),
      settled: (options = {}) => this.settled({ ...options, ...bound }),
      decide: (options) => this.decide({ ...options, ...bound }),
      deleteThread: () => this.deleteThread(bound),
      addToolResult: (options) => this.addToolResult({ ...options, ...bound }),
      addToolError: (options) => this.addToolError({ ...options, ...bound }),
    };
  }

  /** The raw Temporal handle of a thread, for advanced use. */
  workflowHandle(threadId: string): ThreadWorkflowHandle {
    return this.#access.handle(threadId);
  }
}

/** @internal The transport a client's `stream` option names; AI1001 when it names none. */
export function clientStreamTransport(stream: ClientStreamOptions | undefined, client: Client): StreamTransport {
  const bad = (problem: string) => new InvalidDefinitionError({ subject: "client stream option", problem });
  if (stream !== undefined && (typeof stream !== "object" || stream === null)) throw bad("stream must be an object ({ transport })");
  const transport = stream?.transport;
  if (transport === undefined) return defaultStreamTransport(client.options.loadedDataConverter.payloadCodecs);
  if (!isStreamTransport(transport)) throw bad("stream.transport must be a StreamTransport (inProcessStreamTransport(), directStreamTransport(), redisStreamTransport())");
  return transport;
}
