import { defineQuery, defineSignal, defineUpdate } from "@temporalio/workflow";
import type { ChatMessage } from "../messages.js";
import type {
  StreamFlush,
  StreamSnapshot,
  ThreadMessagePage,
  ThreadResumeReply,
  ThreadResumeRequest,
  ThreadSendReply,
  ThreadSendRequest,
  ThreadSnapshot,
  ThreadStopReply,
  ThreadToolResultRequest,
} from "../thread-contracts.js";

/** The thread's state: status, queue, open tool calls, last error, usage. */
export const threadSnapshotQuery = defineQuery<ThreadSnapshot>("durable-agents.thread.snapshot");

/** A page of the transcript: `limit` messages from `offset`. */
export const threadMessagesQuery = defineQuery<ThreadMessagePage, [{ offset: number; limit: number }]>("durable-agents.thread.messages");

/** Stream entries after `fromSeq`. Costs no history: readers poll it. */
export const threadStreamQuery = defineQuery<StreamSnapshot, [{ fromSeq: number }]>("durable-agents.thread.stream");

/**
 * The first `length` messages in chat form, for a model activity whose worker has no cached
 * copy: with `offset` and `limit`, one page of them (at most `MAX_PAGE_MESSAGES` and
 * `MAX_PAGE_BYTES`, at least one message), so no answer outgrows a payload. Without them,
 * as workers before pages ask, all at once.
 */
export const threadTranscriptQuery = defineQuery<ChatMessage[], [{ length: number; offset?: number; limit?: number }]>("durable-agents.thread.transcript");

/** sendMessage / addMessage: into the thread now, or into the inbox while a turn runs. */
export const threadSendUpdate = defineUpdate<ThreadSendReply, [ThreadSendRequest]>("durable-agents.thread.send");

/** Continues a stopped or failed turn (and the inbox), optionally with a new prompt. */
export const threadResumeUpdate = defineUpdate<ThreadResumeReply, [ThreadResumeRequest]>("durable-agents.thread.resume");

/** Interrupts the running turn: its model request and tools are cancelled at once. */
export const threadStopUpdate = defineUpdate<ThreadStopReply, []>("durable-agents.thread.stop");

/** The result (or error) of an async tool call. Unknown ids and duplicates are refused by the validator, leaving no history. */
export const threadToolResultUpdate = defineUpdate<{ status: "accepted" }, [ThreadToolResultRequest]>("durable-agents.thread.toolResult");

/** Ends the thread: running work is cancelled and the workflow completes (the client then deletes its history). */
export const threadDeleteUpdate = defineUpdate<{ deleted: true }, []>("durable-agents.thread.delete");

/** Deltas of the answer being written, throttled by the model activity. */
export const threadStreamSignal = defineSignal<[StreamFlush]>("durable-agents.thread.stream");
