/**
 * Compaction of a thread's transcript: which older turns a summary replaces, and when.
 * Pure functions of workflow state (sandbox-safe): the thread's workflow decides with
 * them, the worker's summarizer and the client's `listMessages` read the same shapes.
 */
import type { ChatMessage } from "./messages.js";

/** A thread's stored message (`ThreadMessage`, spelled out here: thread-contracts.ts imports this module). */
type StoredMessage = ChatMessage & { id: string; createdAt: string };

/** Share of the thread's room (`THREAD_TRANSCRIPT_BYTES`) at which it compacts by default. */
export const DEFAULT_COMPACTION_AT_ROOM = 0.75;

/** What the agent's description tells its thread about compaction (absent: the thread never compacts). */
export interface CompactionPlan {
  /** Turns kept verbatim: the newest ones, the turn being answered among them. */
  keepTurns: number;
  /** Transcript bytes at which the thread compacts. */
  atBytes: number;
  /** Estimated input tokens at which it compacts too. */
  maxInputTokens?: number;
}

/** The summarizer activity's input: exactly the messages a summary replaces (history keeps them: `listMessages` reads them back). */
export interface SummarizeInput {
  agentId: string;
  threadId: string;
  /** The compacted messages, oldest first; `messages[0]` is the previous summary when `previousSummary` is set. */
  messages: StoredMessage[];
  /** True when `messages[0]` is the summary of an earlier compaction, not an original. */
  previousSummary?: true;
  /** JSON bytes of `messages`: a summary must weigh less than what it replaces. */
  replacesBytes: number;
}

export interface SummarizeOutput {
  summary: string;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number };
}

/**
 * Where the originals a summary replaced are kept: the summarizer activity's input in the
 * history of the thread's run `runId` (scheduled as `activityId`), from index `from` of its
 * `messages`. `count` originals; they come before everything the thread holds now.
 */
export interface ArchivedSpan {
  runId: string;
  activityId: string;
  from: number;
  count: number;
}

/**
 * The most spans a thread keeps in its archive index (about 120 bytes each, carried into
 * every next run): past it, the oldest two merge into one whose originals read as gone
 * (`runId` ""), so offsets stay where they were and the carry stays bounded.
 */
export const MAX_ARCHIVED_SPANS = 1000;

/** `archive` with `span` added, within `MAX_ARCHIVED_SPANS`. */
export function withArchivedSpan(archive: readonly ArchivedSpan[], span: ArchivedSpan, max = MAX_ARCHIVED_SPANS): ArchivedSpan[] {
  const next = [...archive, span];
  while (next.length > max) {
    const [first, second] = next.splice(0, 2) as [ArchivedSpan, ArchivedSpan];
    next.unshift({ runId: "", activityId: "", from: 0, count: first.count + second.count });
  }
  return next;
}

/** The opening of a summary message: the model reads it as context, `isSummary` recognises it. */
export const SUMMARY_HEADING = "Summary of the earlier conversation:\n";

/**
 * A summary message of compaction, opening the transcript. An assistant message, not a
 * system one: a model wrote it from what users and tools said, and a system message speaks
 * as the operator (src/core/transcript-trust.ts), which no user text may come to do.
 */
export function summaryMessage(summary: string): ChatMessage {
  return { role: "assistant", content: SUMMARY_HEADING + summary };
}

export function isSummary(message: ChatMessage | undefined): boolean {
  return message?.role === "assistant" && typeof message.content === "string" && message.content.startsWith(SUMMARY_HEADING) && !message.tool_calls;
}

/**
 * The model's input tokens estimated from the transcript's JSON bytes (about four bytes a
 * token for English text and JSON): the workflow cannot run a tokenizer.
 */
export function estimatedTokens(bytes: number): number {
  return Math.ceil(bytes / 4);
}

/** True when the transcript (of `bytes`) has passed the plan's room share or token budget. */
export function compactionDue(plan: CompactionPlan, bytes: number): boolean {
  return bytes >= plan.atBytes || (plan.maxInputTokens !== undefined && estimatedTokens(bytes) >= plan.maxInputTokens);
}

/**
 * Where the kept part of `messages` starts: the newest `keepTurns` turns (a turn starts at
 * a user message) stay; everything before is compacted. 0 when nothing may be: too few
 * turns, or only a previous summary before the cut. The cut moves earlier (to an older turn
 * boundary) while the compacted part holds a call that is not settled (no result, or one
 * in `busy`: an async call awaited, a request waiting for a decision), so a call is never
 * separated from its result and nothing that still waits is summarised.
 */
export function compactionCut(messages: readonly ChatMessage[], keepTurns: number, busy: ReadonlySet<string> = new Set()): number {
  const starts: number[] = [];
  for (let i = 0; i < messages.length; i++) if (messages[i]!.role === "user") starts.push(i);
  for (let k = starts.length - Math.max(1, keepTurns) - 1; k >= 0; k--) {
    const cut = starts[k + 1]!;
    if (cut <= (isSummary(messages[0]) ? 1 : 0)) return 0;
    if (settled(messages.slice(0, cut), busy)) return cut;
  }
  return 0;
}

/** Every call in `part` has its result in `part`, and none of them is busy. */
function settled(part: readonly ChatMessage[], busy: ReadonlySet<string>): boolean {
  const open = new Set<string>();
  for (const m of part) {
    if (m.role === "assistant") for (const call of m.tool_calls ?? []) open.add(call.id);
    else if (m.role === "tool") {
      if (busy.has(m.tool_call_id)) return false;
      open.delete(m.tool_call_id);
    }
  }
  return open.size === 0;
}
