/**
 * Options that runs and threads share: the same name, the same meaning, on `AgentClient`,
 * `ThreadsClient` and their handles. Each method takes them beside its target (`RunTarget`,
 * `ThreadTarget`); a handle, already bound to its run or thread, takes them alone.
 */
import type { Duration } from "@temporalio/common";
import type { Decisions } from "../core/approval.js";
import type { StreamSnapshot } from "../core/thread-contracts.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import { MAX_PAGE_MESSAGES } from "../core/payload-size.js";

/** `listMessages` of a run or a thread: which page. */
export interface ListMessagesOptions {
  /** The `cursor` of the previous page; absent for the first. */
  cursor?: string;
  /**
   * The most messages on the page: 1 to 1,000, default 100. A page also stops before it
   * would weigh more than `MAX_PAGE_BYTES` (1 MiB of JSON), so it may hold fewer.
   */
  limit?: number;
}
/** `streamUpdates` of a run or a thread: the last seq already seen. */
export interface StreamUpdatesOptions {
  /** The seq of the last entry already seen (default 0: from the start). */
  fromSeq?: number;
}
/** `followUpdates` of a run or a thread: where to start, how often to look, and when to stop. */
export interface FollowUpdatesOptions extends StreamUpdatesOptions {
  /**
   * The shortest time between two looks of the process's shared follower of the run or
   * thread for what the stream transport did not bring (default `"100ms"`). It looks when the
   * history moves (a long-poll tells it), and every 2 s whatever happens; a look is a
   * describe, and a query (a billed action) only when a reader lacks an entry.
   */
  pollInterval?: Duration;
  /** Stops following (the generator returns). */
  signal?: AbortSignal;
  /** Stops following after the batch it returns true for. */
  until?: (batch: StreamSnapshot) => boolean;
}
/**
 * `decide`, of a thread's request or of the inbox's: the request and one decision per call
 * it lists (by call id, or a list).
 */
export interface DecideOptions {
  /** The request's id: `approvals[].approvalId` of a thread's `state`, the stream's `approval-request`, or the inbox's row. */
  approvalId: string;
  decisions: Decisions;
  /** The request's `callFingerprint` as shown to the approver: refused with RC5058 if its calls changed since. */
  shown?: string;
}

/**
 * The page `options` asks for, as the run's or thread's messages query takes it: AI1001
 * naming `subject` for a cursor `listMessages` did not return or a limit outside 1 to
 * 1,000, before anything is read.
 */
export function messagePage(options: ListMessagesOptions | undefined, subject: string): { offset: number; limit: number } {
  const cursor = options?.cursor;
  const offset = cursor === undefined ? 0 : /^\d{1,9}$/.test(String(cursor)) ? Number(cursor) : NaN;
  if (!Number.isSafeInteger(offset)) throw new InvalidDefinitionError({ subject, problem: `cursor ${JSON.stringify(cursor)} is not one listMessages() returned` });
  const limit = options?.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_MESSAGES) {
    throw new InvalidDefinitionError({ subject, problem: `limit must be a whole number from 1 to ${MAX_PAGE_MESSAGES}` });
  }
  return { offset, limit };
}

/** The request's id of a `decide` (or `approvals.get`); AI1001 naming `subject` when it is not a non-empty string. */
export function approvalIdOf(options: { approvalId?: unknown } | undefined, subject: string): string {
  const approvalId = options?.approvalId;
  if (typeof approvalId !== "string" || approvalId === "") throw new InvalidDefinitionError({ subject, problem: "approvalId must be a non-empty string" });
  return approvalId;
}
