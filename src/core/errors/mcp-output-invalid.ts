import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export interface McpOutputInvalidFields {
  /** The MCP tool whose run answered. */
  tool: string;
  runId: string;
  problem: string;
}

/**
 * AI1070: an agent served as an MCP tool finished, but its answer is not what the tool's
 * `output` schema promises. The run itself completed; the MCP caller gets `isError: true`
 * instead of structured content its client would reject.
 */
export class McpOutputInvalidError extends DurableAgentsError<McpOutputInvalidFields> {
  static readonly code = ErrorCode.McpOutputInvalid;
  readonly code = ErrorCode.McpOutputInvalid;
  constructor(fields: McpOutputInvalidFields) {
    super(`[AI1070] The answer of run ${fields.runId} (MCP tool "${fields.tool}") does not match the tool's output schema: ${fields.problem}.`, fields);
  }
}
