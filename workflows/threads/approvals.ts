import type { GateVerdict } from "../../src/core/approval.js";
import type { DeferralRecord, ResumeReply, ResumeRequest } from "../../src/core/deferral-record.js";
import type { ChatMessage, ToolCall } from "../../src/core/messages.js";
import type { Principal } from "../../src/core/json.js";
import type { PendingApproval, StreamUpdateBody, ThreadPrepared } from "../../src/core/thread-contracts.js";
import { approvalStages, isGated, landDecision, PartialDecisions, requestApproval, type ApprovalHost, type Approved } from "../approvals/requests.js";
import { DeferralBook, type ParkResult, type Parking } from "../deferrals/book.js";
import { workflowDeferralRuntime } from "../deferrals/runtime.js";

/**
 * What approvals read and change of the thread they run in (its ThreadState, which holds
 * them: named here so the two files do not import each other).
 */
export interface ApprovalThread {
  readonly agentId: string;
  readonly threadId: string;
  readonly firstRunId: string;
  readonly principal: Principal | undefined;
  readonly messages: ChatMessage[];
  sentLength: number;
  readonly running: ReadonlyMap<string, unknown>;
  readonly stream: { push(body: StreamUpdateBody): void; approvalDecided(approvalId: string): boolean };
  lastAnswerId(): string | undefined;
  answered(toolCallId: string): boolean;
  answer(toolCallId: string, content: string): boolean;
}

/**
 * A thread's approval requests: the calls of gated tools in a turn wait, before any handler
 * runs, on one request per step, decided through the same resume protocol as a run's (a
 * token, a proof checked where the state lives, one decision per call). A request outlives
 * a stopped turn, and a decision that comes meanwhile waits for the turn to go on; a message
 * that moves the thread on denies it. Its records go along when the thread continues as new.
 */
export class ThreadApprovals {
  readonly book: DeferralBook;

  constructor(carried: readonly DeferralRecord[] | undefined) {
    // The thread shows its own status in the Temporal UI; the book's waiting notes would replace it.
    // Its callers follow the thread: a decision on some calls of a request is answered `accepted` at once.
    this.book = new DeferralBook({ ...workflowDeferralRuntime(), details: undefined }, { acceptsAtOnce: true });
    if (carried) this.book.records.list.push(...carried);
  }

  /** The request waiting for a decision, if any. */
  pending(): DeferralRecord | undefined {
    return this.book.current();
  }

  /** Pending requests as `getThread` shows them. */
  views(): PendingApproval[] {
    const record = this.pending();
    if (!record?.approval) return [];
    const decided = record.approval.decided?.map((d) => d.decision.toolCallId);
    return [
      {
        approvalId: record.id,
        calls: record.approval.calls.map(({ toolCallId, toolName, arguments: args }) => ({ toolCallId, toolName, arguments: args })),
        expiresAt: record.expiresAt,
        ...(decided?.length ? { decided } : {}),
      },
    ];
  }

  /**
   * The request made for the calls of the model's latest answer, whatever became of it: a
   * decision taken while the turn was stopped is still to be applied while its calls are open.
   */
  #requestFor(thread: ApprovalThread): DeferralRecord | undefined {
    const answerId = thread.lastAnswerId();
    return [...this.book.records.list].reverse().find((r) => r.approval !== undefined && r.approval.answerId === answerId);
  }

  /** The calls of `open` that wait for a decision: gated calls (or those a request made earlier waits on), still without a result. */
  gated(thread: ApprovalThread, prepared: ThreadPrepared, open: readonly ToolCall[], verdict: GateVerdict | undefined): ToolCall[] {
    const waiting = this.#requestFor(thread)?.approval?.calls.map((c) => c.toolCallId) ?? [];
    return open.filter((call) => !thread.answered(call.id) && !thread.running.has(call.id) && (waiting.includes(call.id) || isGated(prepared, call, verdict)));
  }

  /**
   * Waits for the decision on `gated` (a new request, or the one a stopped turn left), then
   * lands it: rejected, denied or expired calls are answered for the model without running;
   * approved ones are handed to `run`.
   */
  async decide(
    thread: ApprovalThread,
    prepared: ThreadPrepared,
    gated: readonly ToolCall[],
    verdict: GateVerdict | undefined,
    run: (call: ToolCall, approved: Approved) => Promise<void>,
  ): Promise<void> {
    const earlier = this.#requestFor(thread);
    const again = earlier && gated.every((call) => earlier.approval!.calls.some((c) => c.toolCallId === call.id));
    const host = this.#host(thread);
    const told = { threadId: thread.threadId, firstRunId: thread.firstRunId, ...(thread.principal ? { principal: thread.principal } : {}) };
    const parking = again ? { record: earlier, outcome: this.book.waitAgain(earlier, approvalStages(thread.agentId, prepared, earlier, told, (r) => this.book.relisted(r))) } : this.#ask(host, thread, prepared, gated, verdict);
    // Calls decided one at a time run as they are decided (their resumes were answered `accepted` already).
    const decidedAlone = new PartialDecisions(host, parking.record, gated, (call, approved, by) => run(call, decidedBy(approved, by)), () => this.#stillWaiting(thread, parking.record));
    let parked: ParkResult;
    try {
      parked = await Promise.race([parking.outcome, decidedAlone.failed]);
    } finally {
      decidedAlone.stop();
    }
    this.#announceDecided(thread, parked.record, parked.kind);
    const alone = decidedAlone.decidedIds();
    const last = landDecision(host, parked, alone.size > 0 ? gated.filter((c) => !alone.has(c.id)) : gated).map(({ call, approved }) => run(call, decidedBy(approved, parked.kind === "resumed" ? parked.resumedBy : undefined)));
    await Promise.all(alone.size > 0 ? [decidedAlone.finished(), ...last] : last);
  }

  /**
   * The resume update of a thread's request: checked and claimed as a run's is, then
   * answered at once with `accepted` (a thread has no settled state to wait for: the caller
   * follows the thread). The turn, when it waits, takes the decision from the record.
   */
  resume(request: ResumeRequest): Promise<ResumeReply> {
    const reply = this.book.resumes.resume(request);
    // The claim happens before resume() first waits: the record reads resumed by now when it was accepted.
    const record = this.book.records.find(request.deferralId);
    if (record && record.status === "resumed" && !record.outcome) record.outcome = { status: "accepted" };
    return reply;
  }

  /**
   * Denies the waiting request when its calls will never run (a new message moved the
   * thread on, or it is deleted). Readers are told the request of those calls is over,
   * whatever became of it while no turn waited on it (denied now, or denied, expired or
   * decided while the turn was stopped): no approval card stays that nobody can decide.
   */
  withdraw(thread: ApprovalThread, reason: string): void {
    this.book.denyWaiting(reason);
    const request = this.#requestFor(thread);
    if (request && request.status !== "deferred" && request.status !== "needs-compaction") this.#announceDecided(thread, request, request.status);
  }

  /** The `approval-decided` entry of a request, once: a turn that lands the decision and a withdrawal may both come to it. */
  #announceDecided(thread: ApprovalThread, record: DeferralRecord, outcome: "resumed" | "denied" | "expired"): void {
    if (!thread.stream.approvalDecided(record.id)) thread.stream.push({ type: "approval-decided", approvalId: record.id, outcome });
  }

  /**
   * A call of a request decided on its own has its result (or its handler finished): stream
   * readers are told again which calls still wait, so one following the decision (useChat)
   * ends its response there, as at the request, rather than wait for the other decisions.
   */
  #stillWaiting(thread: ApprovalThread, record: DeferralRecord): void {
    if (record.status !== "deferred" || !record.approval) return;
    const decided = new Set((record.approval.decided ?? []).map((d) => d.decision.toolCallId));
    const waiting = record.approval.calls.filter((c) => !decided.has(c.toolCallId));
    if (waiting.length === 0) return;
    thread.stream.push({ type: "approval-request", approvalId: record.id, calls: waiting.map(({ toolCallId, toolName, arguments: args }) => ({ toolCallId, toolName, arguments: args })), expiresAt: record.expiresAt });
  }

  /** A new request for `gated`, announced to stream readers. */
  #ask(host: ApprovalHost, thread: ApprovalThread, prepared: ThreadPrepared, gated: readonly ToolCall[], verdict: GateVerdict | undefined): Parking {
    const answerId = thread.lastAnswerId();
    const { record, outcome } = requestApproval(host, prepared, gated, verdict, {
      ...(answerId !== undefined ? { answerId } : {}),
      notify: { threadId: thread.threadId, firstRunId: thread.firstRunId },
    });
    thread.stream.push({
      type: "approval-request",
      approvalId: record.id,
      calls: (record.approval?.calls ?? []).map(({ toolCallId, toolName, arguments: args }) => ({ toolCallId, toolName, arguments: args })),
      expiresAt: record.expiresAt,
    });
    return { record, outcome };
  }

  /** The thread as the approvals path sees it: results land in call order, an edit resends the transcript from its answer. */
  #host(thread: ApprovalThread): ApprovalHost {
    return {
      agentId: thread.agentId,
      principal: thread.principal,
      book: this.book,
      messages: () => thread.messages,
      resend: (index) => (thread.sentLength = Math.min(thread.sentLength, index)),
      answer: (call, content) => void thread.answer(call.id, content),
    };
  }
}

// A thread has no run-wide `resumedBy`: each approved call carries its decider to its handler.
function decidedBy(approved: Approved, by: Principal | undefined): Approved {
  return by ? { ...approved, by } : approved;
}
