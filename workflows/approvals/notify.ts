import { CancellationScope, proxyActivities } from "@temporalio/workflow";
import type { ApprovalCall } from "../../src/core/approval.js";
import type { AgentDescription, AgentStepActivities, NotifyApprovalInput } from "../../src/core/contracts.js";
import { ownEntry } from "../../src/core/own.js";
import { notifyOptions } from "../shared/activity-options.js";

/**
 * Runs the notify hooks of a request's tools (an activity: at least once, retried a few
 * times), for runs and threads alike. Only when a tool has one, so a request nobody is told
 * of costs no activity. A failure never reaches the run or the thread: the request stays
 * listed in the inbox.
 */
export async function notifyApprovers(
  described: Partial<Pick<AgentDescription, "tools" | "timeouts">>,
  request: Omit<NotifyApprovalInput, "calls"> & { calls: readonly ApprovalCall[] },
): Promise<void> {
  const tells = (name: string) => {
    const tool = ownEntry(described.tools, name);
    return request.reason === "escalated" || request.requires ? tool?.notifies || tool?.notifiesEscalation : tool?.notifies;
  };
  if (!described.timeouts || !request.calls.some((c) => tells(c.toolName))) return;
  const calls = request.calls.map(({ toolCallId, toolName, arguments: args, meta }) => ({ toolCallId, toolName, arguments: args, ...(meta ? { meta } : {}) }));
  const { notifyApproval } = proxyActivities<AgentStepActivities>(notifyOptions({ timeouts: described.timeouts }));
  // A stop of the turn that asked does not take the notification back: the request outlives it.
  await CancellationScope.nonCancellable(() => notifyApproval({ ...request, calls })).catch(() => undefined);
}
