import { Context } from "@temporalio/activity";
import { z } from "zod";
import type { ToolContext } from "../src/define-tool.js";
import type { ToolCallInput, ToolCallOutput } from "../workflows/contracts.js";
import type { AgentRegistry } from "./agent-registry.js";
import { toActivityFailure } from "./failures.js";
import { withHeartbeat } from "./heartbeat.js";

export function createCallTool(registry: AgentRegistry) {
  /**
   * One tool call. Mistakes the model can fix (unknown tool, bad arguments, a handler
   * that throws) come back as tool errors for it to read, never as run failures.
   */
  return async function callTool(input: ToolCallInput): Promise<ToolCallOutput> {
    const { tools } = registryEntry(registry, input.agentId);
    const { name, arguments: rawArgs } = input.toolCall.function;
    const tool = tools.get(name);
    if (!tool) {
      return toolError(`unknown tool "${name}". Available tools: ${[...tools.keys()].join(", ") || "none"}.`);
    }
    let args: unknown;
    try {
      args = rawArgs.trim() === "" ? {} : JSON.parse(rawArgs);
    } catch (err) {
      return toolError(`the arguments for "${name}" are not valid JSON (${(err as Error).message}). Send a JSON object.`);
    }
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      return toolError(`invalid arguments for "${name}":\n${z.prettifyError(parsed.error)}`);
    }
    const activity = Context.current();
    const ctx: ToolContext = {
      runId: input.workflowId,
      agentId: input.agentId,
      toolCallId: input.toolCall.id,
      idempotencyKey: `${input.workflowId}/${input.toolCall.id}`,
      principal: input.principal,
      signal: activity.cancellationSignal,
      attempt: activity.info.attempt,
    };
    try {
      const out = await withHeartbeat(async () => tool.handler(parsed.data, ctx));
      return { content: typeof out === "string" ? out : JSON.stringify(out ?? null), isError: false };
    } catch (err) {
      // A cancelled call must surface as cancellation, not as a result the model reads.
      if (activity.cancellationSignal.aborted) throw err;
      return toolError(`"${name}" failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
}

function registryEntry(registry: AgentRegistry, agentId: string) {
  try {
    return registry.get(agentId);
  } catch (err) {
    throw toActivityFailure(err);
  }
}

function toolError(message: string): ToolCallOutput {
  return { content: `Error: ${message}`, isError: true };
}
