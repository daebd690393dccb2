import { z } from "zod";
import type { ToolDefinition } from "../src/core/define-tool.js";
import type { ToolCall } from "../src/core/messages.js";
import type { StandardSchema } from "../src/core/schema.js";
import type { PreparedDefinition } from "./agent-registry.js";

export type ParsedToolCall = { ok: true; tool: ToolDefinition; args: unknown } | { ok: false; content: string };

/**
 * Finds the called tool and checks its arguments. Mistakes the model can fix (an unknown
 * tool, arguments that are not JSON or fail the schema) come back as a tool error it reads.
 */
export async function parseToolCall(definition: PreparedDefinition, call: ToolCall): Promise<ParsedToolCall> {
  const { name, arguments: rawArgs } = call.function;
  const tool = definition.tools.get(name);
  if (!tool) {
    return { ok: false, content: `Error: unknown tool "${name}". Available tools: ${[...definition.tools.keys()].join(", ") || "none"}.` };
  }
  let args: unknown;
  try {
    args = rawArgs.trim() === "" ? {} : JSON.parse(rawArgs);
  } catch (err) {
    return { ok: false, content: `Error: the arguments for "${name}" are not valid JSON (${(err as Error).message}). Send a JSON object.` };
  }
  // Through `~standard`, so a schema from any copy of zod validates the same way.
  const result = await (tool.input as unknown as StandardSchema)["~standard"].validate(args);
  if (result.issues) return { ok: false, content: `Error: invalid arguments for "${name}":\n${z.prettifyError({ issues: result.issues } as never)}` };
  return { ok: true, tool, args: result.value };
}
