import { decisionFor, rejectedResult, requestCalls, undecidedResult, type GateVerdict } from "../src/core/approval.js";
import type { DeferralRecord, ResumeReply, ResumeRequest } from "../src/core/deferral-record.js";
import { deniedResult } from "../src/core/denied-result.js";
import { DeferralNotConfiguredError } from "../src/core/errors/setup.js";
import type { ToolCall } from "../src/core/messages.js";
import { ownEntry } from "../src/core/own.js";
import type { JsonObject, Principal } from "../src/core/json.js";
import type { PendingApproval, StreamUpdateBody, ThreadPrepared } from "../src/core/thread-contracts.js";
import { DeferralBook } from "./deferral-book.js";
import { workflowDeferralRuntime } from "./deferral-runtime.js";
import type { Approved } from "./run-approval.js";
import { approvedAs, mergedMeta } from "./run-approval.js";
import { notifyApprovers } from "./approval-notify.js";

/**
 * What approvals read and change of the thread they run in (its ThreadState, which holds
 * them: named here so the two files do not import each other).
 */
export interface ApprovalThread {
  readonly agentId: string;
  readonly threadId: string;
  readonly firstRunId: string;
  readonly principal: Principal | undefined;
  readonly running: ReadonlyMap<string, unknown>;
  readonly stream: { push(body: StreamUpdateBody): void; approvalDecided(approvalId: string): boolean };
  lastAnswerId(): string | undefined;
  answered(toolCallId: string): boolean;
  answer(toolCallId: string, content: string): boolean;
  showAsRun(call: ToolCall, input: JsonObject): ToolCall;
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
    this.book = new DeferralBook({ ...workflowDeferralRuntime(), details: undefined });
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
    return [{ approvalId: record.id, calls: record.approval.calls.map(({ toolCallId, toolName, arguments: args }) => ({ toolCallId, toolName, arguments: args })), expiresAt: record.expiresAt }];
  }

  /**
   * The request made for the calls of the model's latest answer, whatever became of it: a
   * decision taken while the turn was stopped is still to be applied while its calls are open.
   */
  #requestFor(thread: ApprovalThread): DeferralRecord | undefined {
    const answerId = thread.lastAnswerId();
    return [...this.book.records.list].reverse().find((r) => r.approval !== undefined && r.approval.answerId === answerId);
  }

  /** The calls of `open` that wait for a decision: gated tools' calls the worker did not clear, still without a result. */
  gated(thread: ApprovalThread, prepared: ThreadPrepared, open: readonly ToolCall[], verdict: GateVerdict | undefined): ToolCall[] {
    const waiting = this.#requestFor(thread)?.approval?.calls.map((c) => c.toolCallId) ?? [];
    return open.filter(
      (call) =>
        !thread.answered(call.id) &&
        !thread.running.has(call.id) &&
        (waiting.includes(call.id) || (ownEntry(prepared.tools, call.function.name)?.approval !== undefined && !verdict?.cleared.includes(call.id))),
    );
  }

  /**
   * Waits for the decision on `gated` (a new request, or the one a stopped turn left), then
   * lands it: rejected, denied or expired calls are answered for the model without running;
   * approved ones are handed to `run`. `announce` tells stream readers of a new request.
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
    const parked = await (again ? this.book.waitAgain(earlier) : this.#ask(thread, prepared, gated, verdict));
    const calls = parked.record.approval?.calls ?? [];
    this.#announceDecided(thread, parked.record, parked.kind);
    const approved: Array<Promise<void>> = [];
    for (const waiting of calls) {
      const call = gated.find((c) => c.id === waiting.toolCallId);
      if (!call) continue;
      if (parked.kind === "expired") thread.answer(call.id, undecidedResult(call.function.name, "its approval request expired before anyone decided"));
      else if (parked.kind === "denied") thread.answer(call.id, deniedResult(parked.record.denial.reason, parked.record.denial.by?.id));
      else {
        const decision = decisionFor(parked.payload, call.id);
        if (decision?.approved) {
          const edited = decision.input === undefined ? call : thread.showAsRun(call, decision.input);
          approved.push(run(edited, approvedAs(parked.record.id, decision.input)));
        }
        else thread.answer(call.id, rejectedResult(call.function.name, decision?.reason, parked.kind === "resumed" ? parked.resumedBy : undefined));
      }
    }
    await Promise.all(approved);
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

  #ask(thread: ApprovalThread, prepared: ThreadPrepared, gated: readonly ToolCall[], verdict: GateVerdict | undefined): ReturnType<DeferralBook["park"]> {
    const calls = requestCalls(gated, verdict);
    // Without a digest no decision could prove it holds the request's token.
    if (!verdict?.digest || verdict.ttlMs === undefined) throw new DeferralNotConfiguredError({ where: `tool "${calls[0]!.toolName}" (needsApproval)` }).toFailure();
    const parking = this.book.park({
      toolCallId: calls[0]!.toolCallId,
      toolName: calls[0]!.toolName,
      agentId: thread.agentId,
      meta: mergedMeta(calls),
      ttlMs: verdict.ttlMs,
      ...(thread.principal ? { principal: thread.principal } : {}),
      digest: verdict.digest,
      approval: { calls, ...(thread.lastAnswerId() !== undefined ? { answerId: thread.lastAnswerId()! } : {}) },
    });
    const record = this.book.records.list.at(-1)!;
    void notifyApprovers(prepared, {
      agentId: thread.agentId,
      deferralId: record.id,
      expiresAt: record.expiresAt,
      calls,
      threadId: thread.threadId,
      firstRunId: thread.firstRunId,
      ...(thread.principal ? { principal: thread.principal } : {}),
    });
    thread.stream.push({
      type: "approval-request",
      approvalId: record.id,
      calls: calls.map(({ toolCallId, toolName, arguments: args }) => ({ toolCallId, toolName, arguments: args })),
      expiresAt: record.expiresAt,
    });
    return parking;
  }
}
