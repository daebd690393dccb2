import { DurableAgentsError } from "./base.js";
import { ErrorCode } from "./codes.js";

export type DeferOutsideRunFields = { where: string };

/** AI1006: `ctx.defer()` outside a real agent dispatch. */
export class DeferOutsideRunError extends DurableAgentsError<DeferOutsideRunFields> {
  static readonly code = ErrorCode.DeferOutsideRun;
  readonly code = ErrorCode.DeferOutsideRun;
  constructor(f: DeferOutsideRunFields) {
    super(
      `[AI1006] ctx.defer() was called from ${f.where}, which is not an agent run: nothing was deferred. Deferral works only for tool calls an agent run makes.`,
      f,
    );
  }
}
