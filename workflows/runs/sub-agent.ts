import type { ToolResult } from "../../src/core/contracts.js";
import { addUsage, type ToolCall, type Usage } from "../../src/core/messages.js";
import { DEFAULT_TOOL_RESULT_BYTES } from "../../src/core/payload-size.js";
import { limitToolResult } from "../../src/core/tool-result-limit.js";
import { runSubAgent } from "../shared/sub-agent.js";
import type { RunContext } from "./context.js";

/**
 * A call of a sub-agent: the agent runs as a child workflow of this run (its own run id,
 * transcript and history), with at most `turnsLeft` turns, and its final answer is the
 * call's result. Its turns and tokens are added to this run's whether it answers, fails or
 * is cancelled with the run. What goes wrong in it is the model's to hear, as a tool error
 * is; a cancel of this run reaches it (the child is in the run's scope) and stops the run.
 * Its answer is cut to `share`, the call's part of the room for the step's results, as a
 * tool's result is (the child keeps it whole).
 * When it parks on a deferral, it tells this run, which parks with it (see `DeferralBook.subAgentParked`).
 */
export function callSubAgent(run: RunContext, call: ToolCall, agentId: string, turnsLeft: number, share: number): Promise<ToolResult> {
  const { state, cancellation } = run;
  return runSubAgent(
    {
      principal: state.principal,
      restored: state.restored,
      deferralRefused: run.deferralRefused,
      children: run.children,
      spend: (turns, usage) => spend(state, turns, usage),
      cancelled: () => cancellation.requested(),
    },
    call,
    agentId,
    turnsLeft,
  ).then((result) => limitToolResult(result, DEFAULT_TOOL_RESULT_BYTES, share));
}

function spend(state: RunContext["state"], turns: number, usage: Usage): void {
  state.turnsUsed += turns;
  state.usage = addUsage(state.usage, usage);
}
