import { approvalContextOf, type ApprovalRecord } from "../../src/core/approval-context.js";
import type { ChatMessage } from "../../src/core/messages.js";
import type { DeferralRecords } from "../deferrals/records.js";

/**
 * A record as a record read shows it, with what led to it from the transcript that holds it
 * (`approvalRecordQuery`): the bounded context is cut here, so the answer stays a record's
 * size however long the transcript grew.
 */
export function approvalRecordOf(records: DeferralRecords, messages: readonly ChatMessage[] | undefined, id: string): ApprovalRecord | null {
  const record = records.read(id);
  if (!record) return null;
  const context = messages ? approvalContextOf(messages, record.toolCallId, record.approval?.answerId) : undefined;
  return context ? { ...record, context } : record;
}
