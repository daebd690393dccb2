import type { JoinedStream } from "../../src/core/contracts.js";
import type { DeferralEvent } from "../../src/core/deferral-record.js";
import type { ChatMessage } from "../../src/core/messages.js";
import type { RunCarry } from "../../src/core/run-state.js";
import { formatStatusLine } from "../../src/core/status-line.js";
import type { StreamBatch, StreamFlush, StreamSnapshot, ThreadStatus } from "../../src/core/thread-contracts.js";
import { findToolCall } from "../../src/core/thread-transcript.js";
import { StreamLog } from "../shared/stream-log.js";

/** Where a run's stream goes besides its own log (both free of commands, so replay is unaffected). */
export interface RunStreamOutlets {
  /** The worker's stream transport, by sink (never called on replay). */
  publish(batch: StreamBatch): void;
  /** The workflow's current details: the status line readers check before paying for a query. */
  details(line: string): void;
  now(): string;
}

/**
 * A run's stream, the same entries a thread's readers get: each message as it joins the
 * transcript (id: its position, `"0"` for the prompt), the answer's deltas while it is
 * written when the run was started with `stream: true`, status changes (`streaming` while
 * the model answers, `awaiting_tool_results` while tools run or the run is parked,
 * `completed`, `failed`, `stopped` for a cancel), and an `approval-request` / `approval-decided`
 * pair around each deferral. It lives in workflow state and produces no command: readers
 * follow it by transport or by query, never through history.
 */
export class RunStream {
  readonly log: StreamLog;
  /** Messages of the transcript that have their entry. */
  #emitted: number;
  #status: ThreadStatus = "idle";
  #text = "running";

  constructor(
    /** Whether model calls stream their deltas (`stream: true` at start). */
    readonly deltas: boolean,
    private readonly outlets: RunStreamOutlets,
    carried: RunCarry["stream"] | undefined,
    messageCount: number,
    /** A thread's sub-agent: where its answers are shown too while written (by the model call, out of band). */
    private readonly join?: JoinedStream,
  ) {
    // Entries do not cross continue-as-new (the transcript does): a reader behind the boundary is told to re-read it.
    this.log = new StreamLog(carried ? { seq: carried.seq, ...(carried.floor !== undefined ? { floor: carried.floor } : {}), droppedThrough: carried.seq, entries: [] } : undefined);
    this.#emitted = carried ? messageCount : 0;
    if (carried) this.#status = "streaming";
    this.log.onEntry = (batch) => {
      outlets.publish(batch);
      this.#show();
    };
  }

  /** The book's status text, shown with the stream's position. */
  show(text: string): void {
    this.#text = text;
    this.#show();
  }

  /** Entries for messages that joined the transcript since the last call. */
  sync(messages: readonly ChatMessage[]): void {
    // A rewrite made the transcript shorter: what follows is numbered from its new end.
    if (this.#emitted > messages.length) this.#emitted = messages.length;
    for (; this.#emitted < messages.length; this.#emitted++) {
      this.log.push({ type: "message", message: { ...messages[this.#emitted]!, id: String(this.#emitted), createdAt: this.outlets.now() } });
    }
  }

  /** A model call starts: what its input needs to stream the answer (nothing when the run does not stream deltas). */
  answer(messages: readonly ChatMessage[]): { streamId?: string; streamSeq?: { base: number; after: number }; joinStream?: JoinedStream } {
    this.sync(messages);
    this.#set("streaming");
    const joined = this.join ? { joinStream: this.join } : {};
    if (!this.deltas) return joined;
    const streamId = String(messages.length);
    return { streamId, streamSeq: this.log.begin(streamId), ...joined };
  }

  /** A thread's sub-agent: where its tools' progress is shown too (their calls carry it; nothing is scheduled for it). */
  joined(): { joinStream?: JoinedStream } {
    return this.join ? { joinStream: this.join } : {};
  }

  /** Deltas by signal (a worker whose stream transport is `"workflow"`). */
  accept(flush: StreamFlush): void {
    this.log.accept(flush);
  }

  /** The answer joined the transcript: its message stands for its deltas. */
  answered(messages: readonly ChatMessage[], toolsFollow: boolean): void {
    this.log.end();
    this.sync(messages);
    if (toolsFollow) this.#set("awaiting_tool_results");
  }

  /** The model call failed, or the run was cancelled while it answered: readers drop the draft. */
  abandoned(cancelled: boolean): void {
    this.log.reset(cancelled ? "stopped" : "failed");
  }

  /** A deferral's life, from the book's events. */
  deferral(event: DeferralEvent, messages: readonly ChatMessage[]): void {
    if (event.type === "deferred") {
      this.sync(messages);
      this.#set("awaiting_tool_results");
      const ids = event.approval?.calls.map((c) => c.toolCallId) ?? [event.toolCallId];
      const calls = ids.map((id) => {
        const call = findToolCall(messages, id)?.call;
        return { toolCallId: id, toolName: call?.function.name ?? "", arguments: call?.function.arguments ?? "" };
      });
      this.log.push({ type: "approval-request", approvalId: event.deferralId, calls, expiresAt: event.expiresAt });
      return;
    }
    this.log.push({ type: "approval-decided", approvalId: event.deferralId, outcome: event.type });
  }

  /** The run ended this way; its last messages come first. */
  end(status: "completed" | "failed" | "stopped", messages: readonly ChatMessage[]): void {
    // A draft still open (a failure or a cancel while the model answered) is dropped.
    if (status !== "completed") this.log.reset(status);
    this.sync(messages);
    this.#set(status);
  }

  /** The `runStream` query. */
  since(runId: string, fromSeq: number): StreamSnapshot {
    return this.log.since(runId, this.#status, fromSeq);
  }

  /** What the next execution needs to number on from here. */
  carry(): RunCarry["stream"] {
    const { seq, floor } = this.log.carry();
    return { seq, ...(floor !== undefined ? { floor } : {}) };
  }

  #set(status: ThreadStatus): void {
    if (status === this.#status) return;
    const previous = this.#status;
    this.#status = status;
    this.log.status(status, previous, this.outlets.now());
  }

  #show(): void {
    this.outlets.details(formatStatusLine(this.#text, { seq: this.log.lastShownSeq, queued: 0 }));
  }
}
