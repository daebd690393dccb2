import { parseDeferralId } from "../../src/core/deferral-id.js";
import { subAgentDeferralProblem } from "../../src/core/request-shapes.js";
import type { PendingApproval } from "../../src/core/thread-contracts.js";
import type { SubAgentDeferral } from "../../src/core/wire/run.js";
import { isDescendant } from "../shared/sub-agent.js";
import type { StreamLog } from "../shared/stream-log.js";

/**
 * The approval requests of the sub-agents a turn runs (their gated tools, or their own
 * sub-agents'): each child tells the thread by signal when it parks on one and when it moves
 * on, as it tells a run. The thread shows them with its own (`state().approvals`, the
 * stream's `approval-request` / `approval-decided` entries, marked with `subAgent`); the
 * request itself stays the child's, decided through `threads.decide`, the inbox or its token.
 * Nothing is carried: the thread does not continue as new while a child runs.
 */
export class SubAgentRequests {
  /** The running children's workflow ids, with the thread's call each answers. */
  readonly #calls = new Map<string, string>();
  readonly #pending = new Map<string, PendingApproval & { child: string }>();

  started(childId: string, toolCallId: string): void {
    this.#calls.set(childId, toolCallId);
  }

  /** A signal from a child (or one of its own): heard only from the children running now, and only when well formed. */
  heard(thread: { stream: StreamLog }, message: SubAgentDeferral): void {
    if (subAgentDeferralProblem(message) !== undefined) return;
    const runId = parseDeferralId(message.deferralId)?.runId;
    const child = [...this.#calls.keys()].find((id) => isDescendant(new Set([id]), runId));
    if (child === undefined || runId === undefined) return;
    if (message.status === "deferred") {
      // A child's ctx.defer() is no approval: its token is its tool's to hand out.
      if (!message.calls) return;
      const known = this.#pending.get(message.deferralId);
      if (known) return this.#decidedSome(thread, known, message.decided);
      const view: PendingApproval = { approvalId: message.deferralId, calls: message.calls, expiresAt: message.expiresAt, subAgent: { agentId: message.agentId, runId, toolCallId: this.#calls.get(child)! } };
      this.#pending.set(message.deferralId, { ...view, child });
      thread.stream.push({ type: "approval-request", ...view });
      return;
    }
    if (this.#pending.delete(message.deferralId)) thread.stream.push({ type: "approval-decided", approvalId: message.deferralId, outcome: message.status });
  }

  /**
   * Calls of a request decided one at a time in the child: shown decided, and readers get the
   * request again with the calls still waiting, as for the thread's own. Only calls the
   * request lists count, and only a list longer than the one shown (signals come in order).
   */
  #decidedSome(thread: { stream: StreamLog }, request: PendingApproval, decided: string[] | undefined): void {
    const listed = new Set(request.calls.map((c) => c.toolCallId));
    const now = [...new Set(decided ?? [])].filter((id) => listed.has(id));
    if (now.length <= (request.decided?.length ?? 0)) return;
    request.decided = now;
    const waiting = request.calls.filter((c) => !now.includes(c.toolCallId));
    if (waiting.length > 0) thread.stream.push({ type: "approval-request", approvalId: request.approvalId, calls: waiting, expiresAt: request.expiresAt, ...(request.subAgent ? { subAgent: request.subAgent } : {}) });
  }

  /** The pending requests, as `state().approvals` lists them after the thread's own. */
  views(): PendingApproval[] {
    return [...this.#pending.values()].map(({ child: _child, ...view }) => view);
  }

  /** The request a call of the thread waits on through its sub-agent, if any. */
  requestOf(toolCallId: string): string | undefined {
    return [...this.#pending.values()].find((p) => p.subAgent?.toolCallId === toolCallId)?.approvalId;
  }

  /** The child's call ended: readers are told its requests are over, whatever signal is still on its way. */
  ended(thread: { stream: StreamLog }, childId: string, outcome: "resumed" | "denied"): void {
    this.#calls.delete(childId);
    for (const [id, request] of this.#pending) {
      if (request.child !== childId) continue;
      this.#pending.delete(id);
      thread.stream.push({ type: "approval-decided", approvalId: id, outcome });
    }
  }
}
