import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import { McpOutputInvalidError } from "../core/errors/http.js";
import { isSchema, type StandardSchema } from "../core/schema.js";
import type { McpAgentTool, McpServerOptions } from "./options.js";
import { advertisedOutputSchema, jsonSchemaFor, TEXT_OUTPUT_SCHEMA, type JsonSchema } from "./schemas.js";

/** The server's own tool: waits for a run to settle again. */
export const GET_RUN = "get_run";
/** The inbox's tools (`createMcpServer({ approvals: true })`, approval-tools.ts). */
export const LIST_APPROVALS = "list_approvals";
export const GET_APPROVAL = "get_approval";
export const DECIDE_APPROVAL = "decide_approval";
export const APPROVAL_HISTORY = "approval_history";
/** Tool names the server keeps for itself when it serves the inbox. */
export const APPROVAL_TOOL_NAMES: readonly string[] = [LIST_APPROVALS, GET_APPROVAL, DECIDE_APPROVAL, APPROVAL_HISTORY];
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const DEFAULT_INPUT = z.object({ prompt: z.string().describe("What to ask the agent") });

/** An agent tool as checked when the server is made, with the JSON Schemas it advertises. */
export interface PreparedTool {
  options: McpAgentTool;
  input: StandardSchema;
  /** The tool's `output`, else its agent's when that is an object schema; absent: the answer is text. */
  output?: StandardSchema;
  inputJson: JsonSchema;
  outputJson: JsonSchema;
}

const GET_RUN_TOOL = (): Tool => ({
  name: GET_RUN,
  description:
    "Waits until a run started by another tool settles again (after an approval, say) and returns its outcome: the answer, a new deferral acknowledgment, or an error with its code. Pass the acknowledgment's deferralId too: if the run already moved on from it, the answer comes at once.",
  inputSchema: {
    type: "object",
    properties: {
      runId: { type: "string", description: "The runId of a deferral acknowledgment" },
      deferralId: { type: "string", description: "The deferralId of that acknowledgment: get_run waits past it. Without it, past the deferral the run waits on when asked" },
    },
    required: ["runId"],
  },
  outputSchema: {
    type: "object",
    properties: {
      runId: { type: "string" },
      status: { enum: ["completed", "deferred"] },
      text: { type: "string" },
      deferralId: { type: "string" },
      expiresAt: { type: "string" },
      approvalUrl: { type: "string" },
      schema: { type: "object" },
    },
    required: ["runId", "status"],
  },
});

/** What `tools/list` answers: the agents' tools, their output inside an envelope or not, then `get_run`. */
export function listedTools(tools: readonly PreparedTool[], envelope: boolean): Tool[] {
  return [
    ...tools.map(
      (t): Tool => ({
        name: t.options.name,
        description: t.options.description,
        inputSchema: t.inputJson as Tool["inputSchema"],
        outputSchema: advertisedOutputSchema(t.outputJson, envelope) as Tool["outputSchema"],
      }),
    ),
    GET_RUN_TOOL(),
  ];
}

export function prepareTools(options: McpServerOptions): PreparedTool[] {
  if (!options?.agents || !Array.isArray(options.tools) || options.tools.length === 0) {
    throw new InvalidDefinitionError({ subject: "createMcpServer", problem: "pass agents (an AgentClient) and at least one tool" });
  }
  // The inbox's tools keep their names only when served: a server without them lets an agent use one.
  const reserved = options.approvals === true ? APPROVAL_TOOL_NAMES : [];
  const seen = new Set<string>([GET_RUN, ...reserved]);
  return options.tools.map((t) => {
    const subject = `MCP tool "${String(t?.name)}"`;
    if (typeof t?.name !== "string" || !TOOL_NAME.test(t.name)) throw new InvalidDefinitionError({ subject, problem: "name must match /^[A-Za-z0-9_.-]{1,64}$/" });
    if (seen.has(t.name)) throw new InvalidDefinitionError({ subject, problem: t.name === GET_RUN || reserved.includes(t.name) ? `${t.name} is the server's own tool` : "two tools have this name" });
    seen.add(t.name);
    if (typeof t.description !== "string" || t.description.trim() === "") throw new InvalidDefinitionError({ subject, problem: "description must be a non-empty string" });
    if (t.input !== undefined && !isSchema(t.input)) throw new InvalidDefinitionError({ subject, problem: "input must be a schema" });
    if (t.output !== undefined && !isSchema(t.output)) throw new InvalidDefinitionError({ subject, problem: "output must be a schema" });
    if (t.output && acceptsAck(t.output)) {
      // oneOf needs exactly one branch to match: an Output that also accepts the acknowledgment
      // would make every deferral answer invalid to a validating client.
      throw new InvalidDefinitionError({ subject, problem: "output accepts a deferral acknowledgment ({ status: \"deferred\", … }); make it strict (z.object) or require a field of its own" });
    }
    const input = t.input ?? (DEFAULT_INPUT as unknown as StandardSchema);
    const output = t.output ? { schema: t.output, json: jsonSchemaFor(t.output, "output", subject) } : agentOutput(t.agent, subject);
    return {
      options: t,
      input,
      ...(output ? { output: output.schema } : {}),
      inputJson: jsonSchemaFor(input, "input", subject),
      outputJson: output?.json ?? TEXT_OUTPUT_SCHEMA,
    };
  });
}

/**
 * The agent's own `output`, when the tool declares none: MCP's structured content is an
 * object, so only an object schema that cannot pass for a deferral acknowledgment is taken;
 * any other answers as text.
 */
function agentOutput(agent: McpAgentTool["agent"], subject: string): { schema: StandardSchema; json: JsonSchema } | undefined {
  const schema = typeof agent === "object" && agent !== null ? (agent.output as StandardSchema | undefined) : undefined;
  if (!schema || acceptsAck(schema)) return undefined;
  try {
    return { schema, json: jsonSchemaFor(schema, "output", subject) };
  } catch {
    // Not an object schema (or not one MCP can advertise): the answer goes out as text.
    return undefined;
  }
}

const SAMPLE_ACK = { status: "deferred", runId: "run", deferralId: "dfr", expiresAt: "2030-01-01T00:00:00.000Z" };

/** Whether `output` passes a deferral acknowledgment (checked when its library answers synchronously, as zod does). */
function acceptsAck(output: StandardSchema): boolean {
  const result = output["~standard"].validate(SAMPLE_ACK);
  return !(result instanceof Promise) && !result.issues;
}

/** The run's prompt for validated arguments: the tool's own `prompt`, else `prompt` when it is the only argument, else the arguments as JSON. */
export function promptFor(tool: PreparedTool, input: unknown): string {
  if (tool.options.prompt) return tool.options.prompt(input);
  const record = input as Record<string, unknown>;
  const keys = Object.keys(record);
  return keys.length === 1 && typeof record.prompt === "string" ? record.prompt : JSON.stringify(input);
}

/** The agent's final text as the tool's `output` (an object), or why it is not one. */
export async function parseOutput(tool: PreparedTool, runId: string, text: string): Promise<Record<string, unknown> | McpOutputInvalidError> {
  const invalid = (problem: string) => new McpOutputInvalidError({ tool: tool.options.name, runId, problem });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid("the answer is not JSON");
  }
  const checked = await tool.output!["~standard"].validate(value);
  if (checked.issues) return invalid(checked.issues.map((i) => i.message).join("; "));
  const out = checked.value;
  if (typeof out !== "object" || out === null || Array.isArray(out)) return invalid("the answer is not an object");
  return out as Record<string, unknown>;
}
