/**
 * Folds a thread's stream entries into what a reader shows: the stored messages plus the
 * answer being written. Pure, so the React hooks, the `useChat` transport and server code
 * share one definition of "apply this entry", and tests can drive it without a browser.
 */
import type { PendingApproval, StreamUpdate, ThreadMessage, ThreadStatus, ToolProgressUpdate } from "./thread-contracts.js";
import { MAX_PROGRESS_BYTES } from "./tool-progress.js";
import { jsonBytes } from "./payload-size.js";
import type { StreamingDraft } from "./ui-messages.js";

/** What a reader knows of a thread. Treat it as immutable: `foldStreamUpdates` returns a new one when anything changed. */
export interface ThreadFold {
  /** Stored messages, oldest first, each once. */
  messages: ThreadMessage[];
  /** The answer being written, if deltas for one arrived and it is neither stored nor reset. */
  draft?: StreamingDraft;
  /** The last seq applied: where a reconnect continues from. */
  lastSeq: number;
  /** The status the last status entry reported (or the one the reader started from). */
  status: ThreadStatus;
  /** Approval requests announced and not yet decided: what an approval card shows. */
  approvals?: PendingApproval[];
  /** The latest `ctx.progress` of each tool call still running, oldest call first: gone once the call's result is stored. */
  progress?: ToolProgressUpdate[];
}

export function emptyFold(status: ThreadStatus = "idle"): ThreadFold {
  return { messages: [], lastSeq: 0, status };
}

/**
 * Merges a page of stored messages in (a first load, or a re-read after `truncated`):
 * messages already known keep their place, new ones are appended in the page's order.
 */
export function withStoredMessages(fold: ThreadFold, page: readonly ThreadMessage[]): ThreadFold {
  const known = new Set(fold.messages.map((m) => m.id));
  const fresh = page.filter((m) => !known.has(m.id));
  if (fresh.length === 0) return fold;
  const messages = [...fold.messages, ...fresh];
  const stored = new Set(fresh.map((m) => m.id));
  return { ...fold, messages, ...(fold.draft && stored.has(fold.draft.messageId) ? { draft: undefined } : {}) };
}

/**
 * The whole stored transcript read again, in its order (a compaction put its summary among
 * the messages, where no entry put it), followed by what the fold holds that the read did not
 * have yet (a message stored while it was read).
 */
export function withStoredTranscript(fold: ThreadFold, stored: readonly ThreadMessage[]): ThreadFold {
  const ids = new Set(stored.map((m) => m.id));
  const messages = [...stored, ...fold.messages.filter((m) => !ids.has(m.id))];
  return { ...fold, messages, ...(fold.draft && ids.has(fold.draft.messageId) ? { draft: undefined } : {}) };
}

/**
 * Applies entries in order. Entries at or below `lastSeq` were applied already (a
 * reconnect that overlaps, a replayed window) and are skipped, so nothing is applied twice:
 * a text chunk never repeats. A stored message replaces the deltas of the same id; a
 * `reset` drops the draft it names (a stop, a failure, or a retry that streams again).
 */
export function foldStreamUpdates(fold: ThreadFold, updates: readonly StreamUpdate[]): ThreadFold {
  let next = fold;
  for (const update of updates) {
    // Progress has no place in the log (seq 0): the latest of each call is shown, and it never moves the reader.
    if (update.type === "tool-progress") {
      // Late progress of a call whose result is stored already is over.
      if (next.messages.some((m) => m.role === "tool" && m.tool_call_id === update.toolCallId)) continue;
      next = { ...next, progress: [...(next.progress ?? []).filter((p) => p.toolCallId !== update.toolCallId), update] };
      continue;
    }
    if (update.seq <= next.lastSeq) continue;
    next = { ...next, ...applyOne(next, update), lastSeq: update.seq };
  }
  return next;
}

function applyOne(fold: ThreadFold, update: StreamUpdate): Partial<ThreadFold> {
  switch (update.type) {
    case "text-delta": {
      const draft = draftFor(fold, update.messageId);
      return { draft: { ...draft, text: draft.text + update.text } };
    }
    case "tool-input-delta": {
      const draft = draftFor(fold, update.messageId);
      const toolCalls = [...draft.toolCalls];
      const index = toolCalls.findIndex((c) => c.toolCallId === update.toolCallId);
      if (index < 0) toolCalls.push({ toolCallId: update.toolCallId, ...(update.toolName ? { toolName: update.toolName } : {}), arguments: update.argumentsDelta });
      else {
        const call = toolCalls[index]!;
        toolCalls[index] = { ...call, ...(update.toolName && !call.toolName ? { toolName: update.toolName } : {}), arguments: call.arguments + update.argumentsDelta };
      }
      return { draft: { ...draft, toolCalls } };
    }
    case "reset":
      return fold.draft?.messageId === update.messageId ? { draft: undefined } : {};
    case "message": {
      const known = fold.messages.some((m) => m.id === update.message.id);
      const { message } = update;
      const done = message.role === "tool" && fold.progress?.some((p) => p.toolCallId === message.tool_call_id);
      return {
        ...(done ? { progress: fold.progress!.filter((p) => p.toolCallId !== message.tool_call_id) } : {}),
        ...(known ? {} : { messages: [...fold.messages, update.message] }),
        ...(fold.draft?.messageId === update.message.id ? { draft: undefined } : {}),
      };
    }
    case "status":
      return { status: update.status };
    case "approval-request":
      return { approvals: [...(fold.approvals ?? []).filter((a) => a.approvalId !== update.approvalId), { approvalId: update.approvalId, calls: update.calls, expiresAt: update.expiresAt }] };
    case "approval-decided":
      return { approvals: (fold.approvals ?? []).filter((a) => a.approvalId !== update.approvalId) };
    // The model reads a summary from now on; the messages shown stay (listMessages still reads them).
    case "compacted":
    case "tool-progress":
      return {};
  }
}

/** The draft for `messageId`: the current one, or a new one (an earlier draft never got a message or a reset, so it was abandoned). */
function draftFor(fold: ThreadFold, messageId: string): StreamingDraft {
  return fold.draft?.messageId === messageId ? fold.draft : { messageId, text: "", toolCalls: [] };
}

const STATUSES = new Set<ThreadStatus>(["idle", "streaming", "awaiting_tool_results", "completed", "failed", "stopped"]);

/** True for the statuses a thread can have: anything else from the wire is refused. */
export function isThreadStatus(value: unknown): value is ThreadStatus {
  return STATUSES.has(value as ThreadStatus);
}

/** Reads an untrusted value as a stream entry; undefined when it is not one (the caller reports it). */
export function asStreamUpdate(value: unknown): StreamUpdate | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const str = (x: unknown) => typeof x === "string";
  if (v.type === "tool-progress") {
    return v.seq === 0 && str(v.toolCallId) && str(v.toolName) && str(v.at) && v.data !== undefined && jsonBytes(v.data, MAX_PROGRESS_BYTES) <= MAX_PROGRESS_BYTES
      ? (v as unknown as StreamUpdate)
      : undefined;
  }
  if (typeof v.seq !== "number" || !Number.isSafeInteger(v.seq) || v.seq < 1) return undefined;
  switch (v.type) {
    case "text-delta":
      return str(v.messageId) && str(v.text) ? (v as unknown as StreamUpdate) : undefined;
    case "tool-input-delta":
      return str(v.messageId) && str(v.toolCallId) && str(v.argumentsDelta) && (v.toolName === undefined || str(v.toolName)) ? (v as unknown as StreamUpdate) : undefined;
    case "reset":
      return str(v.messageId) && str(v.reason) ? (v as unknown as StreamUpdate) : undefined;
    case "status":
      return STATUSES.has(v.status as ThreadStatus) && STATUSES.has(v.previousStatus as ThreadStatus) ? (v as unknown as StreamUpdate) : undefined;
    case "message":
      return isThreadMessage(v.message) ? (v as unknown as StreamUpdate) : undefined;
    case "approval-request":
      return str(v.approvalId) && str(v.expiresAt) && Array.isArray(v.calls) && v.calls.every((c: any) => str(c?.toolCallId) && str(c?.toolName) && str(c?.arguments))
        ? (v as unknown as StreamUpdate)
        : undefined;
    case "approval-decided":
      return str(v.approvalId) && (v.outcome === "resumed" || v.outcome === "denied" || v.outcome === "expired") ? (v as unknown as StreamUpdate) : undefined;
    case "compacted": {
      const count = (x: unknown) => typeof x === "number" && Number.isSafeInteger(x) && x >= 0;
      return str(v.summaryId) && count(v.compactedMessages) && count(v.keptTurns) && count(v.bytesBefore) && count(v.bytesAfter) ? (v as unknown as StreamUpdate) : undefined;
    }
    default:
      return undefined;
  }
}

/** Reads an untrusted value as a stored message (the outline the mapping relies on). */
export function isThreadMessage(value: unknown): value is ThreadMessage {
  if (typeof value !== "object" || value === null) return false;
  const m = value as Record<string, unknown>;
  if (typeof m.id !== "string" || typeof m.createdAt !== "string") return false;
  switch (m.role) {
    case "system":
    case "user":
      return typeof m.content === "string";
    case "tool":
      return typeof m.content === "string" && typeof m.tool_call_id === "string";
    case "assistant":
      return (
        (m.content === null || typeof m.content === "string") &&
        (m.tool_calls === undefined ||
          (Array.isArray(m.tool_calls) &&
            m.tool_calls.every(
              (c: any) => typeof c === "object" && c !== null && typeof c.id === "string" && typeof c.function?.name === "string" && typeof c.function?.arguments === "string",
            )))
      );
    default:
      return false;
  }
}
