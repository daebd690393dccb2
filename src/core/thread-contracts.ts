/**
 * The shapes a thread workflow shares with its activities and its client: types, and the
 * version of the thread's input. Nothing here may pull activity code (or Node) into the
 * workflow sandbox.
 */
import type { JsonValue, Principal } from "./json.js";
import type { ChatMessage, Usage } from "./messages.js";
import type { ModelDelta } from "./model.js";
import type { AgentDescription } from "./contracts.js";
import type { DeferralRecord } from "./deferral-record.js";
import type { ArchivedSpan, SummarizeInput, SummarizeOutput } from "./compaction.js";

/** The version of the thread's input this release writes and reads (see `ThreadInput.version`). */
export const AGENT_THREAD_VERSION = 1;

/**
 * Where a thread is. `idle`: created, no turn yet. `streaming`: a model call is being
 * written. `awaiting_tool_results`: tools run, or async tools wait for their results.
 * `completed`: the last turn answered. `failed`: the last turn failed (see `lastError`).
 * `stopped`: `stopThread` interrupted the turn. The last three take new messages.
 */
export type ThreadStatus = "idle" | "streaming" | "awaiting_tool_results" | "completed" | "failed" | "stopped";

/** A message as the thread keeps it: the chat message plus an id and when it joined the thread. */
export type ThreadMessage = ChatMessage & { id: string; createdAt: string };

/** Something waiting in the inbox for the current turn to end. */
export interface InboxItem {
  id: string;
  /** `message` starts a turn; `add` only joins the thread (addMessage). */
  kind: "message" | "add";
  message: ChatMessage;
  at: string;
  /** False when the message's turn answers whole, without deltas (`sendMessage({ stream: false })`). */
  stream?: false;
}

export interface ThreadFailure {
  /** The typed error's code when there is one (AI1003, AI1004, AI1023, …). */
  code?: string;
  message: string;
  at: string;
}

/** An async tool call the thread is waiting on. */
export interface AsyncCallState {
  toolCallId: string;
  name: string;
  /** The callback ran to the end; from then on only the result is awaited. */
  callbackDone: boolean;
  /**
   * Digest of the proof of the call's answer token (from the callback's result): an answer
   * must prove it holds the token. Absent until the callback finished: no answer is taken before.
   */
  digest?: string;
}

/**
 * One entry of the thread's update stream. `seq` grows by one per entry written, across
 * continue-as-new, but a reader meets gaps: once an answer is stored (or reset) its deltas
 * are folded away, and its `message` (or `reset`) entry stands for them. A gap is not lost
 * data; only `StreamSnapshot.truncated` (SSE `event: truncated`) is.
 */
export type StreamUpdate =
  /**
   * A preview of the answer `messageId` being written, in throttled batches: the answer's
   * tail (what came after the last batch, or past the batch cap) may arrive only in its
   * `message` entry, which replaces the deltas rather than extending them.
   */
  | { seq: number; type: "text-delta"; messageId: string; text: string }
  | { seq: number; type: "tool-input-delta"; messageId: string; toolCallId: string; toolName?: string; argumentsDelta: string }
  /** Forget what was streamed for `messageId`: the call is retried, or it was stopped or failed. */
  | { seq: number; type: "reset"; messageId: string; reason: "retry" | "stopped" | "failed" }
  /** A message joined the thread; for a streamed answer it replaces the deltas of the same id. */
  | { seq: number; type: "message"; message: ThreadMessage }
  | { seq: number; type: "status"; status: ThreadStatus; previousStatus: ThreadStatus; at: string }
  /** Calls of gated tools wait for a person: decide with `threads.decide()` (or the request's link). */
  | { seq: number; type: "approval-request"; approvalId: string; calls: PendingApproval["calls"]; expiresAt: string; subAgent?: SubAgentRequester }
  /** The request was decided (`resumed`), denied, or expired; the calls' results follow as messages. */
  | { seq: number; type: "approval-decided"; approvalId: string; outcome: "resumed" | "denied" | "expired" }
  | CompactedUpdate
  | ToolProgressUpdate;

/**
 * The thread compacted its older turns: `compactedMessages` messages (before `summaryId`,
 * the summary that replaces them) left the transcript the model reads; they stay readable
 * through `listMessages`. Readers that show the conversation may keep what they show.
 */
export interface CompactedUpdate {
  seq: number;
  type: "compacted";
  /** The id of the summary message (an assistant message starting `Summary of the earlier conversation:`) now opening the transcript. */
  summaryId: string;
  /** Messages the summary replaced (an earlier summary among them, when there was one). */
  compactedMessages: number;
  /** Turns kept verbatim after it. */
  keptTurns: number;
  /** The transcript's JSON bytes before and after. */
  bytesBefore: number;
  bytesAfter: number;
}

/**
 * What a running tool reported with `ctx.progress(data)`: a preview, never stored. It travels
 * only on a stream transport, has no place in the thread's log, and so has `seq` 0: it never
 * moves a reader's position (readers resume from the last other entry). Readers keep the
 * latest per call; the call's result (its `tool` message) supersedes it.
 */
export interface ToolProgressUpdate {
  seq: 0;
  type: "tool-progress";
  toolCallId: string;
  toolName: string;
  /** What the handler passed, as plain JSON (at most `MAX_PROGRESS_BYTES`). */
  data: JsonValue;
  /** When the handler reported it (ISO 8601, the worker's clock). */
  at: string;
}

/**
 * The `data` of a `tool-progress` entry of a thread's sub-agent call (its `toolName` is the
 * sub-agent's): the answer the sub-agent is writing now, from its start (at most
 * `MAX_PROGRESS_BYTES` of it; `truncated` past that). A preview, as all progress is: the
 * call's result is the record.
 */
export interface SubAgentProgress {
  /** The sub-agent's id. */
  agent: string;
  /** The sub-agent's run (`<threadId>/agent/<toolCallId>`): `agents.state()` and `listMessages()` read it. */
  runId: string;
  /** Which answer of the sub-agent's run this is: its position in the run's transcript. */
  answer: number;
  text: string;
  truncated?: true;
}

/**
 * The `data` of a `tool-progress` entry of a thread's sub-agent call when a tool of the
 * sub-agent (or of a sub-agent of its own) reports progress: which sub-agent, its run, its
 * call, and what the tool reported (`data`). Throttled as any call's progress, the latest
 * replacing the one before; `truncated: true` with `data: null` when the report, wrapped,
 * would weigh more than `MAX_PROGRESS_BYTES`. A preview: the call's result is the record.
 */
export interface SubAgentToolProgress {
  /** The sub-agent whose tool reports. */
  agent: string;
  /** That sub-agent's run (`agents.state()` and `listMessages()` read it). */
  runId: string;
  /** The sub-agent's own tool call. */
  tool: { toolCallId: string; toolName: string };
  data: JsonValue;
  truncated?: true;
}

/** An entry before the log numbers it. */
export type StreamUpdateBody = StreamUpdate extends infer U ? (U extends StreamUpdate ? Omit<U, "seq"> : never) : never;

/** What `streamUpdates` returns. */
export interface StreamSnapshot {
  threadId: string;
  status: ThreadStatus;
  /**
   * Entries with `seq > fromSeq`, oldest first; their seqs can skip, where the deltas of a
   * finished or reset answer were folded into its `message` or `reset` entry.
   */
  updates: StreamUpdate[];
  /** Highest seq so far; pass it as the next `fromSeq`. */
  lastSeq: number;
  /** True when entries after `fromSeq` were dropped (the reader fell too far behind): re-read `listMessages`. */
  truncated: boolean;
  /** The id the answer being written will have, while one is. */
  streamingMessageId?: string;
}

/**
 * A run of one thread's stream entries, in seq order, as the worker publishes them on a
 * `StreamTransport`: the answer's deltas from the model activity, the durable entries
 * (messages, statuses, approvals) from the thread's workflow task.
 */
export interface StreamBatch {
  /**
   * The seq of the last durable entry (anything but a delta) before these entries. A reader
   * that has not seen that entry missed a batch: it reads the thread's stream once by query.
   */
  after: number;
  entries: StreamUpdate[];
}

/** A batch of deltas the model activity sends while it streams (throttled). */
export interface StreamFlush {
  /** The id the answer will have once complete. */
  streamId: string;
  /** Activity attempt: a higher one means the call was retried and the earlier deltas are void. */
  attempt: number;
  parts: ModelDelta[];
  /**
   * The seq of the batch's first entry, numbered by the model activity inside the block the
   * thread reserved for the call (`numberedFlushEntries`), so that a reader of the history's
   * signals sees the entries the thread's log holds. Absent: the thread numbers them.
   */
  first?: number;
  /** With `first`: the seq of the durable entry the call's deltas follow. */
  after?: number;
  /** With `first`: the first batch of a retried attempt, whose first entry tells readers to drop the failed attempt's deltas. */
  reset?: true;
}

/** One open tool call of the current turn, as `threads.state` shows it. */
export interface OpenToolCall {
  toolCallId: string;
  name: string;
  kind: "sync" | "async";
  /**
   * `running`: the handler (or async callback) runs. `waiting`: an async result is awaited.
   * `answered`: its result is in, held until the calls before it have theirs. `pending`:
   * not started (a stopped or failed turn). `awaiting_approval`: a gated tool's call waits
   * for a person's decision (`approvalId`).
   */
  state: "pending" | "running" | "waiting" | "answered" | "awaiting_approval";
  /** The request the call waits on, while it is `awaiting_approval`. */
  approvalId?: string;
  /** Temporal activity id while it runs, to find its retry state. */
  activityId?: string;
  /** Attempts allowed for the handler (1 without retry). */
  maxAttempts?: number;
}

/** The thread as its workflow knows it (the client adds retry state from Temporal). */
export interface ThreadSnapshot {
  threadId: string;
  agentId: string;
  status: ThreadStatus;
  createdAt: string;
  updatedAt: string;
  principal?: Principal;
  messageCount: number;
  /** Messages waiting for the current turn to end, in order. */
  queued: Array<{ id: string; kind: InboxItem["kind"]; at: string }>;
  toolCalls: OpenToolCall[];
  /** The model call in flight, if any. */
  modelCall?: { activityId: string; messageId: string };
  lastError?: ThreadFailure;
  /** The last compaction of this run of the thread that failed or was refused (AI1031): nothing was compacted. Cleared by one that succeeds. */
  compactionError?: ThreadFailure;
  usage: Usage;
  /** Model calls over the thread's life. */
  modelCalls: number;
  /** How many times the thread continued as new. */
  generation: number;
  lastSeq: number;
  stream: boolean;
  deleted: boolean;
  /** Requests waiting for a person's decision (at most one: a turn waits on one at a time). */
  approvals: PendingApproval[];
}

/** An approval request a thread waits on, as `threads.state` and the stream show it. */
export interface PendingApproval {
  /** Decide it with `threads.decide({ threadId, approvalId, decisions })`, or in the inbox. */
  approvalId: string;
  /** The calls waiting, with their arguments as the model wrote them. */
  calls: Array<{ toolCallId: string; toolName: string; arguments: string }>;
  expiresAt: string;
  /** The ids of its calls decided one at a time already: the request waits for the others. Absent when none is. */
  decided?: string[];
  /** Set when a sub-agent of the turn asks (its gated tool): which one, its run, and the thread's call it answers. */
  subAgent?: SubAgentRequester;
}

/** The sub-agent whose gated call waits for a decision in a thread: decided as the thread's own requests are. */
export interface SubAgentRequester {
  agentId: string;
  /** The sub-agent's run (`<threadId>/agent/<toolCallId>`, or one of its own sub-agents'), which holds the request. */
  runId: string;
  /** The thread's call of the sub-agent that waits on it. */
  toolCallId: string;
}

/** A page of `listMessages`. */
export interface ThreadMessagePage {
  messages: ThreadMessage[];
  total: number;
  /**
   * When the page asked for starts among the messages compaction archived: where they are
   * (the client reads them from those runs' histories); `messages` is then empty.
   */
  archive?: ArchivedSpan[];
}

/** A stream entry as continue-as-new carries it. */
export type CarriedStreamEntry = Exclude<StreamUpdate, { type: "message" }> | { seq: number; type: "message-ref"; messageId: string };

/** Everything a thread carries into its next run when it continues as new. */
export interface ThreadCarry {
  status: ThreadStatus;
  halted: boolean;
  messages: ThreadMessage[];
  inbox: InboxItem[];
  asyncCalls: AsyncCallState[];
  /** Results held until earlier calls of their batch have theirs. */
  held: Array<{ toolCallId: string; content: string }>;
  /** False when the current turn's message asked for no deltas (absent: it streams). */
  turnStreamed?: false;
  /** Model calls of the current turn (checked against the agent's maxTurns). */
  turnSteps: number;
  modelCalls: number;
  usage: Usage;
  lastError?: ThreadFailure;
  generation: number;
  /**
   * The stream's recent entries and counters, so readers resume across the boundary.
   * `message` entries carry only the message id: the message itself is in `messages`.
   */
  stream: {
    seq: number;
    droppedThrough: number;
    entries: CarriedStreamEntry[];
    /** Seqs up to this are reserved for an answer's deltas; the next entry comes after them. */
    floor?: number;
  };
  createdAt: string;
  updatedAt: string;
  /** Approval requests (deferral records): their ids go on counting, and a decided one still reads its outcome. */
  records?: DeferralRecord[];
  /** Where the messages compaction replaced are kept, oldest first. Absent until the thread compacts. */
  archive?: ArchivedSpan[];
}

/** Start input of the thread workflow: one object, so continue-as-new can carry it. */
export interface ThreadInput {
  agentId: string;
  /** Who the thread acts for: tools read it as `ctx.principal`. */
  principal?: Principal;
  /** First run only: the transcript to start from. */
  messages?: ChatMessage[];
  /** First run only: the first user message (after `messages`). */
  prompt?: { id: string; content: string };
  /** First run only: run a turn right away when the transcript asks for one. Default true. */
  autoStart?: boolean;
  /** Stream the model's answers to readers. Default true. */
  stream?: boolean;
  /** Continue as new once history reaches this many events (Temporal's own suggestion applies too). */
  maxHistoryEvents?: number;
  /** @internal Set on continue-as-new: the workflow's own. */
  carried?: ThreadCarry;
  /**
   * The shape of this input, set by the client that creates the thread and carried through
   * continue-as-new: `AGENT_THREAD_VERSION`. A worker refuses a version it does not know
   * (AI1012) rather than guess at its fields; a later release that changes the input reads
   * this to migrate what 1.0 wrote.
   */
  version: number;
}

/** What a thread reads from the agent's description, once per turn. */
export type ThreadPrepared = Pick<AgentDescription, "hash" | "maxTurns" | "timeouts" | "tools" | "modelMaxAttempts" | "statusHook" | "maxToolCalls" | "agents" | "compaction">;

/** What `onStatusChange` receives. */
export interface ThreadStatusChange {
  threadId: string;
  agentId: string;
  status: ThreadStatus;
  previousStatus: ThreadStatus;
  at: string;
}

/** Preparation asks with the hash it holds; the answer is tiny when nothing changed (it is recorded every turn). */
export type ThreadPrepareOutput = ThreadPrepared | { unchanged: true };

/** The thread's own activity besides the agent-step layer: its status hook. */
export interface ThreadActivities {
  threadStatusChanged(change: ThreadStatusChange): Promise<void>;
  /** A thread's compaction: the summary of the older turns it replaces (see src/core/compaction.ts). */
  summarizeTranscript(input: SummarizeInput): Promise<SummarizeOutput>;
}

/** sendMessage / addMessage. */
export interface ThreadSendRequest {
  /** Client-chosen, so a retried call is recognised instead of sent twice. */
  id: string;
  kind: InboxItem["kind"];
  message: ChatMessage;
  /** False: this message's turn answers whole, without deltas (a `message` only). */
  stream?: false;
}

export interface ThreadSendReply {
  messageId: string;
  /** True when it waits behind a running turn (or earlier queued messages). */
  queued: boolean;
  /** True when this id had already been sent: nothing changed. */
  duplicate: boolean;
}

export interface ThreadResumeRequest {
  prompt?: { id: string; content: string };
}

export interface ThreadResumeReply {
  status: ThreadStatus;
  previousStatus: ThreadStatus;
}

export interface ThreadStopReply {
  status: ThreadStatus;
  previousStatus: ThreadStatus;
}

export interface ThreadToolResultRequest {
  toolCallId: string;
  /** Exactly one of the two. */
  result?: unknown;
  error?: string;
  /** `proofOf(answerToken)`: proves the caller holds the call's answer token, which itself never enters history. */
  proof?: string;
}
