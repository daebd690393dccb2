import type { CancellationScope } from "@temporalio/workflow";
import { ThreadNotFoundError } from "../../src/core/errors/threads.js";
import type { ChatMessage, Usage } from "../../src/core/messages.js";
import type { AsyncCallState, InboxItem, ThreadFailure, ThreadInput, ThreadMessage, ThreadPrepared, ThreadPrepareOutput, ThreadStatus } from "../../src/core/thread-contracts.js";
import { findToolCall, needsAnswer, openToolCalls } from "../../src/core/thread-transcript.js";
import type { ThreadRuntime } from "./runtime.js";
import { StatusAnnouncements } from "./status-hook.js";
import type { StreamLog } from "../shared/stream-log.js";
import { RolloverWatch } from "./rollover.js";
import { threadSeed } from "./seed.js";
import { statusText } from "./status-text.js";
import { formatStatusLine } from "../../src/core/status-line.js";
import type { ThreadApprovals } from "./approvals.js";
import type { SubAgentRequests } from "./sub-agent-requests.js";
import type { GateVerdict } from "../../src/core/approval.js";
import { ErrorCode } from "../../src/core/errors/codes.js";
import type { Principal } from "../../src/core/json.js";
import { THREAD_TRANSCRIPT_BYTES, TranscriptMeter } from "../../src/core/transcript-budget.js";
import { jsonBytes } from "../../src/core/payload-size.js";
import { TranscriptRoom } from "../shared/transcript-room.js";
import { withArchivedSpan, type ArchivedSpan } from "../../src/core/compaction.js";

/** Result the model sees for a call the thread gave up on when the user moved on. */
export const MOVED_ON = "Error: this call got no result: the thread moved on to a new message before it finished.";

/** A tool call of the current turn that has an activity in flight. */
export interface RunningCall {
  activityId: string;
  kind: "sync" | "async";
  maxAttempts: number;
}

/**
 * A thread's state inside its workflow: the transcript, the inbox, the calls in flight,
 * and every transition of its status. Handlers (inbox.ts, controls.ts, queries.ts) only
 * change it synchronously (none waits), so continue-as-new never has to wait for one; the
 * turn itself runs in `turn.ts`.
 */
export class ThreadState {
  readonly threadId: string;
  readonly firstRunId: string;
  readonly agentId: string;
  readonly principal: Principal | undefined;
  readonly streamEnabled: boolean;
  /** False while a turn runs whose message asked for no deltas (`sendMessage({ stream: false })`). */
  turnStreamed: boolean;
  readonly maxHistoryEvents: number | undefined;
  status: ThreadStatus;
  /** Stopped or failed: nothing runs, and the inbox waits, until resume or a new message. */
  halted: boolean;
  readonly messages: ThreadMessage[];
  readonly inbox: InboxItem[];
  readonly asyncCalls: Map<string, AsyncCallState>;
  /**
   * Results that came in before an earlier call of the same batch had its own: they join
   * the transcript in the model's call order, whatever order the tools finish in.
   */
  readonly held: Map<string, string>;
  readonly running = new Map<string, RunningCall>();
  modelCall: { activityId: string; messageId: string } | undefined = undefined;
  turnSteps: number;
  modelCalls: number;
  usage: Usage;
  lastError: ThreadFailure | undefined;
  readonly generation: number;
  readonly stream: StreamLog;
  readonly createdAt: string;
  updatedAt: string;
  /** Transcript length the worker already has (through a previous model call, its cache or a query). */
  sentLength: number;
  /** The agent as the worker described it at the start of the current turn. */
  prepared: ThreadPrepared | undefined = undefined;
  /** The last description this run got, kept so that later turns need not ask for it again. */
  lastPrepared: ThreadPrepared | undefined = undefined;
  /** The current turn reuses `lastPrepared` without having asked: its next model call sends the hash to check. */
  preparedUnverified = false;
  turnScope: CancellationScope | undefined = undefined;
  deleteRequested = false;
  /** When the thread continues as new; the workflow counts the events that wake it here. */
  readonly rollover: RolloverWatch;
  /** Result bytes promised to the sync calls running now (their shares), not yet in the transcript. */
  reservedBytes = 0;
  /** Approval requests of gated tools (set by the workflow; absent in unit tests of the state alone). */
  approvals: ThreadApprovals | undefined = undefined;
  /** Workflow ids of the sub-agents this thread's turn runs now (see sub-agents.ts): only their deferral signals are heard. */
  readonly subAgents = new Set<string>();
  /** Their approval requests, shown with the thread's own (set by the workflow; absent in unit tests of the state alone). */
  subAgentRequests: SubAgentRequests | undefined = undefined;
  /** Which calls of the latest answer wait for a decision, as the worker said (`ModelCallOutput.gate`). */
  lastGate: GateVerdict | undefined = undefined;
  /** Where the messages compaction replaced are kept, oldest first (see compaction.ts). */
  archive: ArchivedSpan[];
  /** The last compaction of this run that failed or was refused (AI1031); cleared by the next that succeeds. */
  compactionError: ThreadFailure | undefined = undefined;
  /** A compaction failed in the current turn: the next is tried next turn, not at every step. */
  compactionPaused = false;
  readonly #meter = new TranscriptMeter();
  /**
   * What the transcript, the queue and held results have room for: all of it is carried
   * into the next run as one payload.
   */
  readonly room: TranscriptRoom;
  /**
   * Local activities (preparation, status hooks) run one at a time, in order: replay
   * resolves local activities in the order they were scheduled, so two in flight at once
   * could resolve differently on replay than they did live. Continue-as-new and delete
   * wait for the last.
   */
  localChain: Promise<unknown> = Promise.resolve();
  readonly #runtime: ThreadRuntime;
  readonly #announcements: StatusAnnouncements;

  constructor(input: ThreadInput, runtime: ThreadRuntime) {
    this.#runtime = runtime;
    this.#announcements = new StatusAnnouncements((change) => void this.local(() => runtime.statusChanged(change)).catch(() => undefined));
    this.threadId = runtime.threadId;
    this.firstRunId = runtime.firstRunId;
    this.agentId = input.agentId;
    this.principal = input.principal;
    this.streamEnabled = input.stream ?? true;
    this.maxHistoryEvents = input.maxHistoryEvents;
    const seed = threadSeed(input, runtime);
    this.status = seed.status;
    this.halted = seed.halted;
    this.messages = seed.messages;
    this.inbox = seed.inbox;
    this.asyncCalls = seed.asyncCalls;
    this.held = seed.held;
    this.turnSteps = seed.turnSteps;
    this.turnStreamed = seed.turnStreamed;
    this.modelCalls = seed.modelCalls;
    this.usage = seed.usage;
    this.lastError = seed.lastError;
    this.generation = seed.generation;
    this.stream = seed.stream;
    this.stream.onEntry = (batch) => {
      runtime.publish?.(batch);
      this.showStatus();
    };
    this.createdAt = seed.createdAt;
    this.updatedAt = seed.updatedAt;
    this.sentLength = seed.sentLength;
    this.archive = input.carried?.archive ?? [];
    this.rollover = new RolloverWatch(() => runtime.history(), this.maxHistoryEvents, () => Boolean(this.approvals?.pending()));
    this.room = new TranscriptRoom("thread", this.threadId, THREAD_TRANSCRIPT_BYTES, () => this.usedBytes());
    this.showStatus();
    if (!input.carried && (input.autoStart ?? true)) {
      // Before the handlers exist: a message sent right after createThread must find the first turn running.
      const work = this.pendingWork();
      if (work) {
        this.beginTurn();
        this.setStatus(work);
      }
    }
  }

  /** Runs a local activity after those already queued. */
  local<T>(run: () => Promise<T>): Promise<T> {
    const next = this.localChain.then(run);
    this.localChain = next.catch(() => undefined);
    return next;
  }

  now(): string {
    return this.#runtime.now();
  }

  // ----- reading ------------------------------------------------------------------------

  /** A turn is in progress (its model call or tools run, or async results are awaited). */
  turnActive(): boolean {
    return this.status === "streaming" || this.status === "awaiting_tool_results";
  }

  /** What the transcript still asks for: tools to run or a message to answer. */
  pendingWork(): "awaiting_tool_results" | "streaming" | undefined {
    if (openToolCalls(this.messages).length > 0) return "awaiting_tool_results";
    return needsAnswer(this.messages) ? "streaming" : undefined;
  }

  /** JSON bytes of what the next run would carry of the conversation: transcript, queue, held results, and results promised to running calls. */
  usedBytes(): number {
    let held = 0;
    for (const [id, content] of this.held) held += jsonBytes(content) + id.length + 32;
    return this.#meter.total(this.messages) + this.#meter.total(this.inbox) + held + this.reservedBytes;
  }

  /** The id of the model's latest answer: the message whose tool calls are the open ones. */
  lastAnswerId(): string | undefined {
    for (let i = this.messages.length - 1; i >= 0; i--) if (this.messages[i]!.role === "assistant") return this.messages[i]!.id;
    return undefined;
  }

  /** True once the call has its result, in the transcript or held for its turn. */
  answered(toolCallId: string): boolean {
    return this.held.has(toolCallId) || findToolCall(this.messages, toolCallId)?.answered === true;
  }

  // Validators refuse cheaply: a refused update leaves nothing in history.
  assertNotDeleted(): void {
    if (this.deleteRequested) throw new ThreadNotFoundError({ threadId: this.threadId }).toFailure();
  }

  // ----- changing -----------------------------------------------------------------------

  /** Every transition goes through here: the stream, `updatedAt` and the status hook see it. */
  setStatus(next: ThreadStatus): void {
    if (next === this.status) return;
    const previousStatus = this.status;
    const at = this.now();
    this.status = next;
    this.updatedAt = at;
    this.stream.status(next, previousStatus, at);
    this.#announcements.announce({ threadId: this.threadId, agentId: this.agentId, status: next, previousStatus, at });
    this.showStatus();
  }

  /**
   * What the thread is doing, in the Temporal UI's current details, with the stream position
   * and queue length readers check before paying for a query. Called on every stream entry
   * and inbox change.
   */
  showStatus(): void {
    this.#runtime.details?.(formatStatusLine(statusText(this), { seq: this.stream.lastShownSeq, queued: this.inbox.length }));
  }

  /**
   * Records what the worker said about the agent (or, `unverified`, the description this run
   * already has, for the next model call to check); announces transitions held back until now.
   */
  prepare(answer: ThreadPrepareOutput, { unverified = false } = {}): void {
    const prepared = "unchanged" in answer ? this.lastPrepared! : answer;
    this.prepared = prepared;
    this.lastPrepared = prepared;
    this.preparedUnverified = unverified;
    this.#announcements.learned(prepared.statusHook);
  }

  append(message: ChatMessage, id: string = this.#runtime.uuid()): ThreadMessage {
    const stored = { ...message, id, createdAt: this.now() } as ThreadMessage;
    this.messages.push(stored);
    if (stored.role === "assistant" && this.stream.streamingMessageId === id) this.stream.end();
    this.stream.push({ type: "message", message: stored });
    this.updatedAt = stored.createdAt;
    return stored;
  }

  /** A turn starts (or restarts): a fresh step budget and a fresh look at the agent. */
  beginTurn(streamed = true): void {
    this.turnStreamed = streamed;
    this.compactionPaused = false;
    this.turnSteps = 0;
    this.prepared = undefined;
    this.lastError = undefined;
  }

  /** The turn's work runs in `scope`, which stop and delete cancel. */
  turnStarted(scope: CancellationScope): void {
    this.turnScope = scope;
  }

  turnEnded(): void {
    this.turnScope = undefined;
    this.running.clear();
    this.modelCall = undefined;
  }

  /** Gives every open call a result (its own if it came in) so the transcript stays valid for the model. */
  closeOpenCalls(content: string): void {
    // A request for calls that will never run must not stay decidable.
    if (openToolCalls(this.messages).length > 0) this.approvals?.withdraw(this, ErrorCode.DeferralCancelled);
    for (const call of openToolCalls(this.messages)) {
      this.append({ role: "tool", tool_call_id: call.id, content: this.held.get(call.id) ?? content });
      this.held.delete(call.id);
      this.asyncCalls.delete(call.id);
    }
  }

  /** Lands a call's result, in call order; false when it already had one (an async result can beat its callback). */
  answer(toolCallId: string, content: string): boolean {
    if (this.answered(toolCallId) || !openToolCalls(this.messages).some((c) => c.id === toolCallId)) return false;
    this.held.set(toolCallId, content);
    this.asyncCalls.delete(toolCallId);
    for (const call of openToolCalls(this.messages)) {
      const result = this.held.get(call.id);
      if (result === undefined) break;
      this.held.delete(call.id);
      this.append({ role: "tool", tool_call_id: call.id, content: result });
    }
    return true;
  }

  /** Messages compaction archived, which `listMessages` counts before the transcript's. */
  archivedCount(): number {
    let count = 0;
    for (const span of this.archive) count += span.count;
    return count;
  }

  /**
   * The first `cut` messages gave way to `summary`; `span` says where the originals are
   * kept. The worker's copy of the transcript no longer matches: the next call sends it whole.
   */
  compacted(cut: number, summary: ThreadMessage, span: ArchivedSpan, bytesBefore: number): void {
    this.messages.splice(0, cut, summary);
    this.sentLength = 0;
    this.archive = withArchivedSpan(this.archive, span);
    this.compactionError = undefined;
    const keptTurns = this.messages.filter((m) => m.role === "user").length;
    this.stream.push({ type: "compacted", summaryId: summary.id, compactedMessages: cut, keptTurns, bytesBefore, bytesAfter: this.usedBytes() });
    this.updatedAt = this.now();
  }

  compactionFailed(failure: Omit<ThreadFailure, "at">): void {
    this.compactionError = { ...failure, at: this.now() };
    this.compactionPaused = true;
  }

  /** The turn failed: the thread halts with the error until resume or a new message. */
  fail(failure: Omit<ThreadFailure, "at">): void {
    this.lastError = { ...failure, at: this.now() };
    this.halted = true;
    this.stream.reset("failed");
    this.setStatus("failed");
  }
}
