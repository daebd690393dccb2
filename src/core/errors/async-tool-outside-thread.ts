import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type AsyncToolOutsideThreadFields = { toolName: string; agentId: string };

/** AI1026: an async tool was called by an agent run; async tools only work in threads. */
export class AsyncToolOutsideThreadError extends DurableAgentsError<AsyncToolOutsideThreadFields> {
  static readonly code = ErrorCode.AsyncToolOutsideThread;
  readonly code = ErrorCode.AsyncToolOutsideThread;
  constructor(f: AsyncToolOutsideThreadFields) {
    super(
      `[AI1026] Async tool "${f.toolName}" was called by a run of agent "${f.agentId}": async tools deliver their result through a thread (addToolResult). Use the agent in a thread, or give the run a defineTool() that defers with ctx.defer().`,
      f,
    );
  }
}
