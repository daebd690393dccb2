import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DeferInThreadFields = { threadId: string; toolName: string };

/** AI1023: a tool called `ctx.defer()` during a thread turn; threads do not defer, the turn fails. */
export class DeferInThreadError extends DurableAgentsError<DeferInThreadFields> {
  static readonly code = ErrorCode.DeferInThread;
  readonly code = ErrorCode.DeferInThread;
  constructor(f: DeferInThreadFields) {
    super(
      `[AI1023] Tool "${f.toolName}" called ctx.defer() in thread "${f.threadId}": threads cannot defer, so the turn failed. Run the agent with AgentClient.run() to defer, or make the tool a defineAsyncTool() whose result arrives through addToolResult().`,
      f,
    );
  }
}
