import type { AgentDescription, AgentModelCallInput, ModelCallOutput } from "../../src/core/contracts.js";
import type { DeferralRecord } from "../../src/core/deferral-record.js";
import type { ChatMessage } from "../../src/core/messages.js";
import { emptyUsage } from "../../src/core/messages.js";
import { MAX_PAGE_MESSAGES, pageOf } from "../../src/core/payload-size.js";
import type { AgentRunInput, RunMessagePage, RunProgress } from "../../src/core/run-state.js";
import type { RunMessagesRequest } from "../../src/core/wire/run.js";
import type { AgentSteps } from "../shared/agent-steps.js";
import type { DeferralBook } from "../deferrals/book.js";
import type { RunStream } from "./stream.js";
import type { RunTracing } from "./trace.js";
import type { TranscriptRoom } from "../shared/transcript-room.js";

/** Everything one agent run's loop reads and changes, passed as one object. */
export interface RunContext {
  readonly state: RunProgress;
  readonly book: DeferralBook;
  readonly transcript: SentTranscript;
  readonly cancellation: RunCancellation;
  /** The agent as the worker described it when this execution began (a new run: with its first answer). */
  readonly prepared: () => AgentDescription;
  /** What the next model call carries to describe the agent: `describe` until an answer described it, then nothing. */
  readonly describing: () => Pick<AgentModelCallInput, "describe">;
  /** Takes the description (and the first step's span) a describing model call answered with. */
  readonly learned: (reply: ModelCallOutput) => void;
  /** Set when deferring is refused in this run (RC5051): names the fan-out it runs in. */
  readonly deferralRefused: string | undefined;
  /** The claimed deferral whose definition the next model call must still match. */
  readonly definitionCheck: { record?: DeferralRecord };
  /** Describing the agent, model calls and tool calls: the agent-step layer. */
  readonly steps: AgentSteps;
  /** Between turns: continues as new when the history grew long and nothing waits. */
  readonly continueIfDue: () => Promise<void> | undefined;
  /** The run's trace context. */
  readonly tracing: RunTracing;
  /** What the transcript has room for: a step's results share it, an answer must fit it. */
  readonly room: TranscriptRoom;
  /** What the run's readers follow: messages, statuses, deferrals, and deltas when it streams. */
  readonly stream: RunStream;
  /** The most turns the run may take: the agent's `maxTurns`, or less for a sub-agent. */
  readonly maxTurns: () => number;
  /** Workflow ids of the sub-agents running now: only their deferral signals are heard. */
  readonly children: Set<string>;
  /** A sub-agent's: tells its caller which calls of `record` are decided one at a time so far (absent for a run nobody called). */
  readonly tellDecided?: (record: DeferralRecord) => void;
}

/** A run's state as it starts, before its first model call, or as its previous execution handed it on. */
export function initialRunState(input: AgentRunInput): RunProgress {
  const carried = input.carried;
  if (carried) {
    return {
      agentId: input.agentId,
      status: "running",
      messages: carried.messages,
      turnsUsed: carried.turnsUsed,
      maxTurns: undefined,
      usage: carried.usage,
      restored: carried.restored,
      ...(carried.principal ? { principal: carried.principal } : {}),
      ...(carried.resumedBy ? { resumedBy: carried.resumedBy } : {}),
    };
  }
  return {
    agentId: input.agentId,
    status: "running",
    messages: [{ role: "user", content: input.prompt }],
    turnsUsed: 0,
    maxTurns: undefined,
    usage: emptyUsage(),
    restored: input.restored ?? false,
    ...(input.principal ? { principal: input.principal } : {}),
  };
}

/**
 * What the worker's transcript cache knows of the run's transcript, so a model call sends
 * only what is new: `epoch` changes when a rewrite replaces the transcript.
 */
export class SentTranscript {
  epoch = 0;
  sentLength = 0;

  /** A rewrite replaced the transcript: the cache's copy is stale, and the new one counts as sent. */
  replaced(messages: readonly ChatMessage[]): void {
    this.epoch += 1;
    this.sentLength = messages.length;
  }

  /** The `transcript` query: the first `length` messages, as of `epoch`. */
  prefix(messages: readonly ChatMessage[], epoch: number, length: number): ChatMessage[] {
    // A model call prepared before a rewrite must not read the rewritten transcript as its prefix.
    if (epoch !== this.epoch) throw new Error(`transcript epoch ${epoch} is stale (now ${this.epoch})`);
    return messages.slice(0, length);
  }

  /** The messages query: a page cut by count and bytes; with an epoch, only as of that epoch. */
  page(messages: readonly ChatMessage[], { offset, limit, epoch }: RunMessagesRequest): Omit<RunMessagePage, "cursor"> {
    if (epoch !== undefined && epoch !== this.epoch) throw new Error(`transcript epoch ${epoch} is stale (now ${this.epoch})`);
    return { messages: pageOf(messages, offset, Math.max(1, Math.min(limit, MAX_PAGE_MESSAGES))), total: messages.length };
  }
}

/**
 * Cancellation of a run: everything the run does happens in `scope`, so `cancel()`, a
 * timeout and a cancel from Temporal itself all reach the model call or tool in flight,
 * or the deferral. The first reason given is the one reported.
 */
export class RunCancellation {
  reason: string | undefined;

  constructor(readonly scope: { cancel(): void; readonly consideredCancelled: boolean }) {}

  cancel(reason: string): void {
    this.reason ??= reason;
    this.scope.cancel();
  }

  requested(): boolean {
    return this.reason !== undefined || this.scope.consideredCancelled;
  }
}
