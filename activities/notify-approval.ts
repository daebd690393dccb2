import { Context } from "@temporalio/activity";
import type { NotifyApprovalInput } from "../src/core/contracts.js";
import type { ApprovalRequestInfo } from "../src/core/define-tool.js";
import { DeferralNotConfiguredError } from "../src/core/errors/setup.js";
import { approvalUrl } from "../src/deferral/approval-url.js";
import type { ResolvedDeferralConfig } from "../src/deferral/config.js";
import type { AgentRegistry } from "./agent-registry.js";
import { approvalToken } from "./approval-gate.js";
import { toActivityFailure } from "./failures.js";

/**
 * `notifyApproval`: runs the `approval.notify` hook of each tool with calls in the request,
 * once per tool, with the whole request: its calls, its token and the approval page's link.
 * The token is minted again here (it is deterministic), so it never entered history.
 */
export function createNotifyApproval(deps: { registry: AgentRegistry; deferral: ResolvedDeferralConfig | undefined }) {
  return async function notifyApproval(input: NotifyApprovalInput): Promise<void> {
    try {
      const definition = deps.registry.get(input.agentId);
      if (!deps.deferral) throw new DeferralNotConfiguredError({ where: `the approval request ${input.deferralId}` });
      const activity = Context.current();
      const workflowId = activity.info.workflowExecution?.workflowId ?? "";
      const token = approvalToken(definition, { gate: { deferralId: input.deferralId, ...(input.firstRunId ? { firstRunId: input.firstRunId } : {}) } }, input.calls[0]!.toolCallId, deps.deferral);
      const base = deps.deferral.approvalUrl;
      const request: ApprovalRequestInfo = {
        approvalId: input.deferralId,
        agentId: input.agentId,
        runId: workflowId,
        ...(input.threadId ? { threadId: input.threadId } : {}),
        calls: input.calls,
        expiresAt: input.expiresAt,
        ...(input.principal ? { principal: input.principal } : {}),
        token,
        ...(base !== undefined ? { url: approvalUrl(base, token) } : {}),
        reason: input.reason ?? "asked",
        ...(input.reminder !== undefined ? { reminder: input.reminder } : {}),
        ...(input.requires ? { requires: input.requires } : {}),
      };
      // Each notification of a request has its own key: a reminder is not the request's first message again.
      const occasion = input.reason === "reminder" ? `remind/${input.reminder}` : input.reason === "escalated" ? "escalate" : "notify";
      const names = [...new Set(input.calls.map((c) => c.toolName))];
      for (const name of names) {
        const approval = definition.tools.get(name)?.approval;
        const notify = input.reason === "escalated" || input.requires ? (approval?.escalate?.notify ?? approval?.notify) : approval?.notify;
        if (!notify) continue;
        await notify(request, { idempotencyKey: `${input.deferralId}/${occasion}/${name}`, signal: activity.cancellationSignal, attempt: activity.info.attempt });
      }
    } catch (err) {
      throw toActivityFailure(err);
    }
  };
}
