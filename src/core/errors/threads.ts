/** Errors of chat threads: an unknown, taken, terminated or refused thread, a malformed message, an async tool's result that has no call to answer. */
import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type ThreadNotFoundFields = { threadId: string };

/** AI1020: no thread with that id (never created, deleted, or past retention). */
export class ThreadNotFoundError extends DurableAgentsError<ThreadNotFoundFields> {
  static readonly code = ErrorCode.ThreadNotFound;
  readonly code = ErrorCode.ThreadNotFound;
  constructor(f: ThreadNotFoundFields) {
    super(
      `[AI1020] No thread "${f.threadId}" exists: it was never created or it was deleted. Check the id and the namespace, or create it with createThread().`,
      f,
    );
  }
}

export type ThreadUnauthorizedFields = { threadId: string; operation: string; returned: string };

/** AI1021: the threads client's authorize hook did not return exactly `true`; nothing was read or changed. */
export class ThreadUnauthorizedError extends DurableAgentsError<ThreadUnauthorizedFields> {
  static readonly code = ErrorCode.ThreadUnauthorized;
  readonly code = ErrorCode.ThreadUnauthorized;
  constructor(f: ThreadUnauthorizedFields) {
    super(
      `[AI1021] ${f.operation} on thread "${f.threadId}" refused: the authorize hook returned ${f.returned}, not true. Nothing was read or changed.`,
      f,
    );
  }
}

export type ToolCallNotFoundFields = { threadId: string; toolCallId: string; reason: string };

/** AI1022: a tool result or error names a call that no async tool of the thread is waiting on. */
export class ToolCallNotFoundError extends DurableAgentsError<ToolCallNotFoundFields> {
  static readonly code = ErrorCode.ToolCallNotFound;
  readonly code = ErrorCode.ToolCallNotFound;
  constructor(f: ToolCallNotFoundFields) {
    super(
      `[AI1022] Thread "${f.threadId}" has no async tool call "${f.toolCallId}" waiting for a result (${f.reason}). Nothing changed. Use the toolCallId the async tool's callback received.`,
      f,
    );
  }
}

export type ThreadNotResumableFields = { threadId: string; status: string };

/** AI1024: `resumeThread` without a prompt on a thread that has nothing to continue. */
export class ThreadNotResumableError extends DurableAgentsError<ThreadNotResumableFields> {
  static readonly code = ErrorCode.ThreadNotResumable;
  readonly code = ErrorCode.ThreadNotResumable;
  constructor(f: ThreadNotResumableFields) {
    super(
      `[AI1024] Thread "${f.threadId}" is ${f.status} and has nothing to resume: no interrupted turn and no queued message. Pass a prompt, or use sendMessage().`,
      f,
    );
  }
}

export type ThreadAlreadyExistsFields = { threadId: string };

/** AI1025: `createThread` with a thread id that is already taken. */
export class ThreadAlreadyExistsError extends DurableAgentsError<ThreadAlreadyExistsFields> {
  static readonly code = ErrorCode.ThreadAlreadyExists;
  readonly code = ErrorCode.ThreadAlreadyExists;
  constructor(f: ThreadAlreadyExistsFields) {
    super(
      `[AI1025] A thread with id "${f.threadId}" already exists. Send messages to it with sendMessage(), or pick another id.`,
      f,
    );
  }
}

export type ThreadMessageInvalidFields = { threadId?: string; problem: string };

/** AI1027: a message given to a thread is malformed or would break the call/result pairing. */
export class ThreadMessageInvalidError extends DurableAgentsError<ThreadMessageInvalidFields> {
  static readonly code = ErrorCode.ThreadMessageInvalid;
  readonly code = ErrorCode.ThreadMessageInvalid;
  constructor(f: ThreadMessageInvalidFields) {
    super(
      `[AI1027] Message refused${f.threadId ? ` by thread "${f.threadId}"` : ""}: ${f.problem}. Nothing changed.`,
      f,
    );
  }
}

export type ToolResultDuplicateFields = { threadId: string; toolCallId: string };

/** AI1028: the async tool call already has its result. The threads client answers `{ status: "duplicate" }` instead of throwing. */
export class ToolResultDuplicateError extends DurableAgentsError<ToolResultDuplicateFields> {
  static readonly code = ErrorCode.ToolResultDuplicate;
  readonly code = ErrorCode.ToolResultDuplicate;
  constructor(f: ToolResultDuplicateFields) {
    super(
      `[AI1028] Async tool call "${f.toolCallId}" of thread "${f.threadId}" already has its result; this one was ignored and nothing changed.`,
      f,
    );
  }
}

export interface ThreadTerminatedFields {
  threadId: string;
  /** How Temporal closed it: `terminated` (an operator, or the server for history or payload size) or `timed-out`. */
  closedAs: "terminated" | "timed-out";
  /** The reason recorded with the termination, when there is one. */
  reason?: string;
}

/**
 * AI1029: Temporal closed the thread's workflow without it being deleted: terminated (by an
 * operator, or by the server) or timed out. It takes no messages and never settles again;
 * its transcript stays readable while Temporal keeps the closed workflow.
 */
export class ThreadTerminatedError extends DurableAgentsError<ThreadTerminatedFields> {
  static readonly code = ErrorCode.ThreadTerminated;
  readonly code = ErrorCode.ThreadTerminated;
  constructor(f: ThreadTerminatedFields) {
    const how = f.closedAs === "timed-out" ? "timed out (its Temporal execution timeout passed)" : `was terminated${f.reason ? ` (reason: ${f.reason})` : ""}`;
    super(`[AI1029] The thread "${f.threadId}" ${how}. It will not answer again; start a new thread (its messages can seed it).`, f);
  }
}

export type CompactionFailedFields = { threadId: string; reason: "failed" | "empty" | "too-long"; detail: string };

/** AI1031: a thread's summarizer failed, answered nothing, or answered too much; nothing was compacted. */
export class CompactionFailedError extends DurableAgentsError<CompactionFailedFields> {
  static readonly code = ErrorCode.CompactionFailed;
  readonly code = ErrorCode.CompactionFailed;
  constructor(f: CompactionFailedFields) {
    super(
      `[AI1031] Thread "${f.threadId}" could not compact its older turns (${f.reason}: ${f.detail}). Nothing was compacted; the thread keeps its whole transcript and tries again next turn. Check the agent's compaction.summarizer (its model, its prompt), or lower keepTurns.`,
      f,
    );
  }
}

export type ArchivedMessagesGoneFields = { threadId: string; runId: string; offset: number };

/** AI1030: `listMessages` reached compacted originals whose run's history is past the namespace's retention. */
export class ArchivedMessagesGoneError extends DurableAgentsError<ArchivedMessagesGoneFields> {
  static readonly code = ErrorCode.ArchivedMessagesGone;
  readonly code = ErrorCode.ArchivedMessagesGone;
  constructor(f: ArchivedMessagesGoneFields) {
    super(
      `[AI1030] Thread "${f.threadId}" compacted the messages from ${f.offset} on in its run "${f.runId}", whose history the namespace no longer retains. Their summary is still in the thread; read the later pages, or raise the namespace's retention period to keep compacted messages longer.`,
      f,
    );
  }
}
