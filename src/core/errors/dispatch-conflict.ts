import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DispatchConflictFields = { agentId: string; subRunId: string };

/**
 * AI1019: `ctx.dispatch()` found a run under the id of the sub-run it starts that carries no
 * proof of having been started by this tool call (someone started it beforehand, or an
 * earlier call reused the id). Its answer is never read as this call's.
 */
export class DispatchConflictError extends DurableAgentsError<DispatchConflictFields> {
  static readonly code = ErrorCode.DispatchConflict;
  readonly code = ErrorCode.DispatchConflict;
  constructor(f: DispatchConflictFields) {
    super(
      `[AI1019] ctx.dispatch() of agent "${f.agentId}" found a run under its sub-run id "${f.subRunId}" that this tool call did not start, so its answer is not read and the task was not sent. Sub-run ids are <run>/<tool call>/<agent>: let no caller start runs under another run's id (refuse run.start for ids with "/" in your authorize hook), and dispatch again from a new tool call.`,
      f,
    );
  }
}
