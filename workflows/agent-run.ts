import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from "@temporalio/workflow";
import { MaxTurnsError } from "../src/errors/max-turns.js";
import { addUsage, emptyUsage, type ChatMessage, type ToolMessage } from "../src/model/messages.js";
import type { AgentActivities, PreparedAgent } from "./contracts.js";
import { runStateQuery, threadQuery } from "./messages.js";
import type { AgentResult, AgentRunInput, RunState } from "./run-state.js";

const NON_RETRYABLE = ["AI1001", "AI1002", "AI1003", "AI1007", "AI1009"];

const { prepareAgent } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: "30s",
  retry: { nonRetryableErrorTypes: NON_RETRYABLE },
});

/**
 * One agent run: model call → the batch of tool calls in parallel → repeat, until the
 * model answers without tools or the turns run out. The system prompt and tool list
 * are never in workflow state: the worker prepares them for each model call.
 */
export async function agentRun(input: AgentRunInput): Promise<AgentResult> {
  const state: RunState = {
    agentId: input.agentId,
    status: "running",
    messages: [{ role: "user", content: input.prompt }],
    turnsUsed: 0,
    maxTurns: undefined,
    usage: emptyUsage(),
    ...(input.principal ? { principal: input.principal } : {}),
  };
  setHandler(runStateQuery, () => state);
  setHandler(threadQuery, ({ length }) => state.messages.slice(0, length));

  try {
    const prepared = await prepareAgent({ agentId: input.agentId });
    state.maxTurns = prepared.maxTurns;
    const result = await loop(state, prepared);
    state.status = "completed";
    return result;
  } catch (err) {
    state.status = "failed";
    // Surface the activity's typed failure itself, so the caller sees its code on top.
    throw err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : err;
  }
}

async function loop(state: RunState, prepared: PreparedAgent): Promise<AgentResult> {
  const { callModel, callTool } = proxyActivities<AgentActivities>({
    startToCloseTimeout: prepared.timeouts.startToCloseMs,
    heartbeatTimeout: prepared.timeouts.heartbeatMs,
    retry: { initialInterval: "1s", backoffCoefficient: 2, maximumInterval: "1m", nonRetryableErrorTypes: NON_RETRYABLE },
  });
  const { workflowId, runId } = workflowInfo();
  let sentLength = 0;
  for (;;) {
    if (state.turnsUsed >= prepared.maxTurns) {
      throw new MaxTurnsError({ maxTurns: prepared.maxTurns, turnsUsed: state.turnsUsed, usage: state.usage }).toFailure();
    }
    const delta = state.messages.slice(sentLength);
    const reply = await callModel({ agentId: state.agentId, workflowId, runId, epoch: 0, baseLength: sentLength, delta });
    sentLength = state.messages.length;
    state.turnsUsed += 1;
    state.usage = addUsage(state.usage, reply.usage);
    state.messages.push(reply.message);

    const calls = reply.message.tool_calls ?? [];
    if (calls.length === 0) {
      return { text: reply.message.content ?? "", messages: state.messages, turnsUsed: state.turnsUsed, usage: state.usage };
    }
    const results = await Promise.all(
      calls.map(async (toolCall): Promise<ToolMessage> => {
        const out = await callTool({ agentId: state.agentId, workflowId, toolCall, principal: state.principal });
        return { role: "tool", tool_call_id: toolCall.id, content: out.content };
      }),
    );
    state.messages.push(...(results satisfies ChatMessage[]));
  }
}
